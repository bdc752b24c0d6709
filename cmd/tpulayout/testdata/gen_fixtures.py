#!/usr/bin/python3
"""Generates the convert/validate fixtures in testdata/convert/ independently of Go.

Each device image is made the way the XLA layout spec describes tiling: pad every dim
to a multiple of the tile, reshape into (tile count, in-tile) pairs, transpose the
in-tile dims to the minor end, flatten, and repeat for the next tile. bf16 is rounded
from f32 to nearest even with uint32 bit arithmetic. Padding is zero.

Run from this directory with Debian's numpy:  /usr/bin/python3 gen_fixtures.py
"""
import numpy as np

OUT = "convert/"


def tile(a, t):
    """Applies one tile t to the minor len(t) dims of a (numpy array), returning the
    expanded array (..., counts..., in-tile...)."""
    k = len(t)
    lead, minor = a.shape[:-k], a.shape[-k:]
    pad = [(0, 0)] * len(lead) + [(0, (-d) % s) for d, s in zip(minor, t)]
    a = np.pad(a, pad)  # zeros
    shape = list(lead)
    for d, s in zip(a.shape[-k:], t):
        shape += [d // s, s]
    a = a.reshape(shape)
    n = len(lead)
    order = list(range(n)) + [n + 2 * i for i in range(k)] + [n + 2 * i + 1 for i in range(k)]
    return a.transpose(order)


def device(a, tiles, transpose=False):
    """The device image bytes of a (2-D) with the given tiles; transpose=True applies
    minor_to_major {0,1} (dim 0 minor) first."""
    if transpose:
        a = a.T
    for t in tiles:
        a = tile(a, t)
    return np.ascontiguousarray(a).tobytes()


def bf16_bits(f):
    """f32 -> bf16 bits, round to nearest even (no NaNs in these inputs)."""
    u = f.astype("<f4").view(np.uint32).astype(np.uint64)
    r = ((u >> 16) & 1) + 0x7FFF
    return ((u + r) >> 16).astype("<u2")


rng = np.random.default_rng(20240611)

# f32[20,300]: normals with some exact ties for bf16 rounding.
f = rng.standard_normal((20, 300)).astype("<f4")
ties = f.view(np.uint32)
ties[0, :16] = (ties[0, :16] & 0xFFFF0000) | 0x8000  # exactly halfway: ties to even
ties[1, :16] = (ties[1, :16] & 0xFFFF0000) | 0x8001  # just above halfway
np.save(OUT + "f32_20x300.npy", f)
open(OUT + "f32_20x300.T8x128.bin", "wb").write(device(f, [(8, 128)]))

b = bf16_bits(f)
open(OUT + "f32_20x300.bf16.T8x128_2x1.bin", "wb").write(device(b, [(8, 128), (2, 1)]))
open(OUT + "f32_20x300.bf16.T16x128_2x1.bin", "wb").write(device(b, [(16, 128), (2, 1)]))
# The same bf16 values without pair packing: what a wrong dump looks like.
open(OUT + "f32_20x300.bf16.T8x128.bin", "wb").write(device(b, [(8, 128)]))

# f32[130,20] with minor_to_major {0,1} (column-major) and T(8,128).
g = rng.standard_normal((130, 20)).astype("<f4")
np.save(OUT + "f32_130x20.npy", g)
open(OUT + "f32_130x20.cm.T8x128.bin", "wb").write(device(g, [(8, 128)], transpose=True))

# s8[40,130] in T(32,128)(4,1).
s = rng.integers(-128, 128, size=(40, 130), dtype=np.int8)
np.save(OUT + "s8_40x130.npy", s)
open(OUT + "s8_40x130.T32x128_4x1.bin", "wb").write(device(s, [(32, 128), (4, 1)]))

# f16[9,200] in T(8,128)(2,1).
h = rng.standard_normal((9, 200)).astype("<f2")
np.save(OUT + "f16_9x200.npy", h)
open(OUT + "f16_9x200.T8x128_2x1.bin", "wb").write(device(h, [(8, 128), (2, 1)]))
