#!/usr/bin/python3
"""Generate the .npy fixtures of buffer's tests with real NumPy.

Run from this directory with Debian's NumPy:  /usr/bin/python3 gen.py
Writes *.npy and expected.json, which lists for every file its descr, shape,
fortran flag and the raw bits of each element in C (row-major) order, as
unsigned little-endian integers, plus the values where they are plain numbers.
"""
import json
import numpy as np

np.random.seed(0)
expected = {}


def record(name, arr, bits=None, values=True):
    c = np.ascontiguousarray(arr)
    if bits is None:
        le = c.astype(c.dtype.newbyteorder('<'))
        u = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[le.dtype.itemsize]
        bits = le.view(u).ravel().tolist()
    e = {"shape": list(arr.shape), "bits": [int(b) for b in bits]}
    if values:
        e["values"] = [int(v) if isinstance(v, bool) else v for v in c.ravel().tolist()]
    expected[name] = e


def save(name, arr, **kw):
    np.save(name, arr)
    with open(name, 'rb') as f:
        major, minor = f.read(8)[6:8]
    hdr = np.lib.format.read_array_header_1_0 if major == 1 else np.lib.format.read_array_header_2_0
    with open(name, 'rb') as f:
        np.lib.format.read_magic(f)
        shape, fortran, dtype = hdr(f)
    record(name, arr, **kw)
    expected[name].update({"descr": dtype.str, "fortran": fortran, "version": [major, minor]})


m = (np.arange(12, dtype=np.float32) * 0.5 - 2.25).reshape(3, 4)
m[1, 1] = -0.0
m[2, 3] = 1e-40  # subnormal
save("f32_c.npy", m)
save("f32_f.npy", np.asfortranarray(m))
save("f32_3d.npy", (np.arange(24, dtype=np.float32) / 7).reshape(2, 3, 4))
save("f32_f3d.npy", np.asfortranarray((np.arange(24, dtype=np.float32) / 3).reshape(2, 3, 4)))
save("f64.npy", np.array([[1.0 / 3, -2.0], [1e300, 5e-324]], dtype=np.float64))
save("f16.npy", np.array([0.1, -65504, 6e-8, 1.0, -0.0], dtype=np.float16))
for t in [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]:
    info = np.iinfo(t)
    vals = [info.min, info.max, 0, 1, 42, info.max // 3]
    if info.min < 0:
        vals[2] = -1
    save(np.dtype(t).name + ".npy", np.array(vals, dtype=t))
save("bool.npy", np.array([[True, False, True], [False, False, True]]))
save("scalar.npy", np.array(3.5, dtype=np.float32))
save("empty.npy", np.zeros((0, 3), dtype=np.float32))
save("be_f4.npy", np.array([[1.5, -2.0, 3.25], [1e-3, 7.0, -0.0]], dtype='>f4'))
save("be_i2.npy", np.array([1, -2, 300, -32768], dtype='>i2'))

# bfloat16 as NumPy stores ml_dtypes' bfloat16: a 2-byte void dtype. The bits are
# 1.0, -2.5, pi rounded, +0, -0, +Inf, a quiet NaN, a subnormal.
bf = np.array([0x3F80, 0xC020, 0x4049, 0x0000, 0x8000, 0x7F80, 0x7FC0, 0x0001], dtype='<u2')
save("bf16_v2.npy", bf.view('V2').reshape(2, 4), bits=bf.tolist(), values=False)
save("bf16_u2.npy", bf.reshape(2, 4), values=False)

# A version 2.0 header.
v2 = np.arange(6, dtype=np.int32).reshape(2, 3) * 1000
with open("v2_i4.npy", "wb") as f:
    np.lib.format.write_array(f, v2, version=(2, 0))
record("v2_i4.npy", v2)
expected["v2_i4.npy"].update({"descr": "<i4", "fortran": False, "version": [2, 0]})

with open("expected.json", "w") as f:
    json.dump(expected, f, indent=1, sort_keys=True)
    f.write("\n")
