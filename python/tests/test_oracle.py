"""tpulayout against NumPy's pad-reshape-transpose on random shapes and layouts, and round
trips back to the host."""

import random

import numpy as np
import pytest

import tpulayout
from tpulayout import _dtypes
from oracle import bf16_bits_to_f32, device_bytes, f32_to_bf16_bits, layout_text

TILE_SIZES = [1, 2, 3, 4, 8, 16, 32, 128]

# (host dtype, device type, packing tile or None, element bits)
KINDS = [
    ("f32", "f32", None, 0),
    ("f32", "bf16", (2, 1), 0),
    ("f32", "bf16", None, 0),
    ("bf16", "bf16", (2, 1), 0),
    ("s8", "s8", (4, 1), 0),
    ("s8", "s4", None, 4),
    ("f32", "f16", (2, 1), 0),
    ("s32", "s32", None, 0),
    ("u8", "u8", (4, 1), 0),
]


def host_values(rng: np.random.Generator, kind: str, device: str, dims) -> np.ndarray:
    if kind == "f32":
        return rng.standard_normal(dims).astype(np.float32)
    if kind == "bf16":  # bits of ordinary values, as uint16 (or ml_dtypes.bfloat16)
        bits = f32_to_bf16_bits(rng.standard_normal(dims).astype(np.float32)).reshape(dims)
        return bits.view(_dtypes.numpy_type("bf16"))
    if kind == "s8":
        lo, hi = (-8, 8) if device == "s4" else (-128, 128)
        return rng.integers(lo, hi, dims).astype(np.int8)
    if kind == "u8":
        return rng.integers(0, 256, dims).astype(np.uint8)
    return rng.integers(-2**31, 2**31, dims).astype(np.int32)


def device_values(a: np.ndarray, device: str) -> np.ndarray:
    """a converted to the device type, as NumPy holds it (bits for bf16)."""
    if device == "bf16":
        if a.dtype == np.float32:
            return f32_to_bf16_bits(a).reshape(a.shape)
        return a.view(np.uint16)
    if device == "f16":
        return a.astype(np.float16)
    return a


def random_case(r: random.Random, i: int):
    host, device, packing, bits = KINDS[i % len(KINDS)]
    rank = r.choice([1, 2, 2, 2, 3, 3, 4])
    dims = [r.choice([1, 2, 3, 5, 8, 13, 16, 31, 40]) for _ in range(rank)]
    if rank >= 2 and r.random() < 0.3:
        dims[-1] = r.choice([128, 130, 256, 300])
    m2m = list(range(rank - 1, -1, -1))
    if r.random() < 0.4:
        r.shuffle(m2m)  # transposed minor_to_major
    tiles = []
    u = r.random()
    if u < 0.6:
        tiles.append(tuple(r.choice(TILE_SIZES) for _ in range(min(rank, 2) if r.random() < 0.8 else 1)))
        if packing and r.random() < 0.8:
            tiles.append(packing)
    elif u < 0.7:
        tiles = [(r.choice([8, 32]),), (r.choice([1, 2, 4]),)]
    order = r.choice(["C", "F", "T"])
    return host, device, dims, m2m, tiles, bits, order


@pytest.mark.parametrize("i", range(240))
def test_to_device_matches_numpy(i):
    r = random.Random(1000 + i)
    rng = np.random.default_rng(i)
    host, device, dims, m2m, tiles, bits, order = random_case(r, i)
    a = host_values(rng, host, device, dims)
    if order == "F":
        a = np.asfortranarray(a)
    elif order == "T" and a.ndim > 1:  # a transposed view: strides are a dense permutation
        perm = list(range(a.ndim))
        r.shuffle(perm)
        a = np.ascontiguousarray(np.transpose(a, perm)).transpose(np.argsort(perm))
    shape = f"{device}[{','.join(map(str, dims))}]" + layout_text(m2m, tiles, bits)
    want = device_bytes(device_values(np.ascontiguousarray(a), device), m2m, tiles, bits)
    got = tpulayout.to_device(a, shape)
    assert got.dtype == np.uint8
    assert got.nbytes == tpulayout.info(shape).footprint_bytes
    assert got.tobytes() == want, shape

    # Back to the host, in the host's type.
    back = tpulayout.from_device(got, shape, dtype=a.dtype)
    if host == "f32" and device == "bf16":
        np.testing.assert_array_equal(back, bf16_bits_to_f32(device_values(a, "bf16")))
    elif host == "f32" and device == "f16":
        np.testing.assert_array_equal(back, a.astype(np.float16).astype(np.float32))
    else:
        np.testing.assert_array_equal(back.view(np.uint8), np.ascontiguousarray(a).view(np.uint8))
    # And from_device in the device's own type by default.
    dflt = tpulayout.from_device(bytes(got), shape)
    assert dflt.dtype == _dtypes.numpy_type(device)
    assert dflt.shape == tuple(dims)


@pytest.mark.parametrize("i", range(40))
def test_relayout_between_device_layouts(i):
    """relayout and Plan between two random device layouts equal NumPy's images."""
    r = random.Random(5000 + i)
    rng = np.random.default_rng(5000 + i)
    host, device, dims, m2m, tiles, bits, _ = random_case(r, i)
    _, _, _, m2m2, tiles2, _, _ = random_case(r, i)
    m2m2 = m2m2 if len(m2m2) == len(dims) else list(range(len(dims) - 1, -1, -1))
    kind = {"s4": "s8", "f16": "f32", "s32": "s32"}.get(device, device)
    a = host_values(rng, kind, device, dims)
    if device == "f16":
        a = a.astype(np.float16)
    vals = device_values(a, device) if device != "f16" else a
    d = f"{device}[{','.join(map(str, dims))}]"
    src, dst = d + layout_text(m2m, tiles, bits), d + layout_text(m2m2, tiles2, bits)
    src_img = device_bytes(vals, m2m, tiles, bits)
    want = device_bytes(vals, m2m2, tiles2, bits)
    assert tpulayout.relayout(src_img, src, dst).tobytes() == want
    with tpulayout.Plan(src, dst) as p:
        out = bytearray(p.dst_bytes)
        for _ in range(2):
            assert p.copy(memoryview(src_img), out) is out
            assert bytes(out) == want
