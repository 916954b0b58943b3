#!/usr/bin/env python3
"""Carves the bytecode envelopes of one vendor out of a compiled .tsr, one
file each: the dispatch fuzz targets' seeds (docs/reliability.md).

  fuzz/carve_bytecode.py MODEL.tsr VENDOR OUT_PREFIX

An envelope starts with "TSRB" and states its whole size at offset 112
(tessera/bytecode.h); its vendor is the NUL-padded name at offset 16.
Writes OUT_PREFIX_<crc32 of the blob>.bin for each blob of VENDOR.
"""
import struct
import sys
import zlib


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path, vendor, prefix = sys.argv[1:]
    data = open(path, "rb").read()
    found = 0
    at = data.find(b"TSRB")
    while at >= 0:
        if at + 128 <= len(data):
            name = data[at + 16:at + 48].split(b"\0", 1)[0].decode("ascii", "replace")
            (total,) = struct.unpack_from("<Q", data, at + 112)
            if name == vendor and 128 <= total <= len(data) - at:
                blob = data[at:at + total]
                out = f"{prefix}_{zlib.crc32(blob):08x}.bin"
                open(out, "wb").write(blob)
                print(out)
                found += 1
        at = data.find(b"TSRB", at + 4)
    if found == 0:
        print(f"{path}: no {vendor} bytecode", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
