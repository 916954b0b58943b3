#!/usr/bin/env python3
"""Writes an ONNX model whose weights are MB megabytes (one MatMul, x [1, K]
times W [K, N], f32), for the load-time and peak-memory figures of
docs/benchmarks.md. No onnx package needed: the few protobuf
fields are encoded by hand (onnx.proto field numbers in the comments).

    python3 bench/make_weight_model.py MB OUT.onnx
"""
import struct
import sys


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def field(number, wire, payload):
    return varint(number << 3 | wire) + payload


def vint(number, v):
    return field(number, 0, varint(v))


def ld(number, payload):  # length-delimited: strings, bytes, messages
    return field(number, 2, varint(len(payload)) + payload)


def value_info(name, dims):
    shape = b"".join(ld(1, vint(1, d)) for d in dims)       # TensorShapeProto.dim.dim_value
    tensor_type = vint(1, 1) + ld(2, shape)                  # elem_type FLOAT, shape
    return ld(1, name.encode()) + ld(2, ld(1, tensor_type))  # ValueInfoProto name, type.tensor_type


def main():
    mb, out = int(sys.argv[1]), sys.argv[2]
    k = 1024
    n = mb * 1024 * 1024 // (4 * k)
    # Small exact values (multiples of 2^-10) so every tool reads them alike.
    row = b"".join(struct.pack("<f", ((i * 37) % 201 - 100) / 1024.0) for i in range(n))
    with open(out, "wb") as f:
        weight_header = b"".join(vint(1, d) for d in (k, n)) + vint(2, 1) + ld(8, b"w")  # dims, FLOAT, name
        raw_len = 4 * k * n
        tensor_len = len(weight_header) + len(varint(9 << 3 | 2)) + len(varint(raw_len)) + raw_len
        node = ld(1, b"x") + ld(1, b"w") + ld(2, b"y") + ld(3, b"matmul") + ld(4, b"MatMul")
        graph_head = ld(1, node) + ld(2, b"weights")
        graph_tail = ld(11, value_info("x", (1, k))) + ld(12, value_info("y", (1, n)))
        initializer_prefix = varint(5 << 3 | 2) + varint(tensor_len)
        graph_len = len(graph_head) + len(initializer_prefix) + tensor_len + len(graph_tail)
        f.write(vint(1, 8))                                          # ir_version
        f.write(ld(8, ld(1, b"") + vint(2, 17)))                     # opset_import: default domain, 17
        f.write(varint(7 << 3 | 2) + varint(graph_len))              # graph
        f.write(graph_head + initializer_prefix + weight_header)
        f.write(varint(9 << 3 | 2) + varint(raw_len))                # raw_data
        for _ in range(k):
            f.write(row)
        f.write(graph_tail)


if __name__ == "__main__":
    main()
