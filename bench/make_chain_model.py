#!/usr/bin/env python3
"""Writes the import scale bench's model: a chain of OPS ops repeating
MatMul -> Add -> Sin on x [1, 8] f32, every MatMul reading the one shared
weight W [8, 8] and every Add the one shared bias B [8] (so an import that
copies a shared constant per use shows in the tensor count). No onnx
package needed: the protobuf is encoded with make_weight_model.py's helpers.

    python3 bench/make_chain_model.py OPS OUT.onnx
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_weight_model import ld, value_info, vint  # noqa: E402

WIDTH = 8


def initializer(name, dims, values):
    raw = b"".join(struct.pack("<f", v) for v in values)
    return ld(5, b"".join(vint(1, d) for d in dims) + vint(2, 1) + ld(8, name) + ld(9, raw))


def node(op_type, inputs, output):
    return b"".join(ld(1, i) for i in inputs) + ld(2, output) + ld(4, op_type)


def main():
    ops, out = int(sys.argv[1]), sys.argv[2]
    if ops < 1:
        sys.exit("OPS must be at least 1")
    # Small exact values (multiples of 2^-6) so every tool reads them alike.
    w = [((i * 5) % 9 - 4) / 64.0 for i in range(WIDTH * WIDTH)]
    b = [((i * 3) % 7 - 3) / 64.0 for i in range(WIDTH)]
    pattern = (b"MatMul", b"Add", b"Sin")
    parts = []
    prev = b"x"
    for i in range(ops):
        kind = pattern[i % 3]
        name = b"t%d" % i if i + 1 < ops else b"y"
        second = {b"MatMul": [b"W"], b"Add": [b"B"], b"Sin": []}[kind]
        parts.append(ld(1, node(kind, [prev] + second, name)))
        prev = name
    graph = b"".join(parts) + ld(2, b"chain")
    graph += initializer(b"W", (WIDTH, WIDTH), w) + initializer(b"B", (WIDTH,), b)
    graph += ld(11, value_info("x", (1, WIDTH))) + ld(12, value_info("y", (1, WIDTH)))
    with open(out, "wb") as f:
        f.write(vint(1, 8))                        # ir_version
        f.write(ld(8, ld(1, b"") + vint(2, 17)))   # opset_import: default domain, 17
        f.write(ld(7, graph))


if __name__ == "__main__":
    main()
