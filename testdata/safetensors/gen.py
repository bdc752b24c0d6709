#!/usr/bin/python3
"""Generate safetensors fixtures for buffer's tests, straight from the documented
format (no safetensors package, and independent of the Go writer):

  8 bytes: N, the header length, unsigned little-endian
  N bytes: JSON {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [b, e]},
                 "__metadata__": {"k": "v"}}   (offsets relative to the data section)
  the data: each tensor row-major, little-endian

Run from this directory: /usr/bin/python3 gen.py
Writes model.safetensors and expected.json (per tensor: dtype, shape and the raw bits
of each element in row-major order as unsigned integers).
"""
import json
import struct

# name -> (dtype, shape, struct code of the bits, bits)
tensors = [
    ("weight", "F32", [2, 3], "I", [0x3F800000, 0xC0200000, 0x00000000, 0x80000000, 0x7F800000, 0x3EAAAAAB]),
    ("bf16", "BF16", [4], "H", [0x3F80, 0xC020, 0x7F80, 0x0001]),
    ("half", "F16", [3], "H", [0x3C00, 0xFBFF, 0x0001]),
    ("double", "F64", [2], "Q", [0x3FF0000000000000, 0xC000000000000000]),
    ("i8", "I8", [3], "B", [0x80, 0xFF, 0x7F]),
    ("u8", "U8", [2], "B", [0, 255]),
    ("i16", "I16", [2], "H", [0x8000, 0xFFFE]),
    ("u16", "U16", [2], "H", [1, 65535]),
    ("i32", "I32", [1, 2], "I", [0xFFFFFFFF, 7]),
    ("u32", "U32", [2], "I", [0xFFFFFFFF, 7]),
    ("i64", "I64", [2], "Q", [0x8000000000000000, 5]),
    ("u64", "U64", [2], "Q", [0xFFFFFFFFFFFFFFFF, 5]),
    ("mask", "BOOL", [2, 2], "B", [1, 0, 0, 1]),
    # f8e4m3fn: 1.0, -448, NaN, smallest subnormal 2^-9
    ("e4m3", "F8_E4M3", [4], "B", [0x38, 0xFE, 0x7F, 0x01]),
    # f8e5m2: 1.0, -57344, +Inf, NaN
    ("e5m2", "F8_E5M2", [4], "B", [0x3C, 0xFB, 0x7C, 0x7E]),
    ("scalar", "F32", [], "I", [0x40490FDB]),
    ("empty", "F32", [0, 4], "I", []),
]

header = {"__metadata__": {"format": "pt", "source": "gen.py"}}
data = b""
expected = {}
for name, dtype, shape, code, bits in tensors:
    blob = struct.pack("<%d%s" % (len(bits), code), *bits)
    header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(blob)]}
    data += blob
    expected[name] = {"dtype": dtype, "shape": shape, "bits": bits}

h = json.dumps(header, separators=(",", ":")).encode()
h += b" " * (-len(h) % 8)
with open("model.safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(h)))
    f.write(h)
    f.write(data)
with open("expected.json", "w") as f:
    json.dump({"metadata": header["__metadata__"], "tensors": expected}, f, indent=1, sort_keys=True)
    f.write("\n")
