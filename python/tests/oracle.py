"""NumPy's pad-reshape-transpose idiom for XLA tiled layouts: the independent reference
the tests compare tpulayout with (it never calls tpulayout)."""

from __future__ import annotations

import numpy as np


def f32_to_bf16_bits(a: np.ndarray) -> np.ndarray:
    """f32 → bf16 bits, round to nearest even (finite inputs)."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_bits_to_f32(b: np.ndarray) -> np.ndarray:
    return (b.astype(np.uint32) << 16).view(np.float32)


def tile(a: np.ndarray, m2m, tiles) -> np.ndarray:
    """The expanded array of a in layout {m2m:T…}: physical order, then each tile pads the
    minor dims of the previous level's shape to its multiples and moves the tile dims
    innermost. Padding is zero."""
    x = np.transpose(a, list(reversed(m2m))) if a.ndim else a
    for t in tiles:
        k = len(t)
        if x.ndim < k:
            x = x.reshape((1,) * (k - x.ndim) + x.shape)
        lead = x.shape[:x.ndim - k]
        minor = x.shape[x.ndim - k:]
        padded = [-(-d // s) * s for d, s in zip(minor, t)]
        pad = [(0, 0)] * len(lead) + [(0, p - d) for d, p in zip(minor, padded)]
        x = np.pad(x, pad)
        split = []
        for p, s in zip(padded, t):
            split += [p // s, s]
        x = x.reshape(lead + tuple(split))
        nl = len(lead)
        order = list(range(nl)) + [nl + 2 * i for i in range(k)] + [nl + 2 * i + 1 for i in range(k)]
        x = np.transpose(x, order)
    return x


def device_bytes(values: np.ndarray, m2m, tiles, bits: int = 0) -> bytes:
    """The device image of values (already in the device type, or int8 nibbles for
    bits=4) in layout {m2m:T…E(bits)}."""
    flat = np.ascontiguousarray(tile(values, m2m, tiles)).reshape(-1)
    if bits == 4:
        n = flat.astype(np.uint8) & 0xF
        if n.size % 2:
            n = np.append(n, np.uint8(0))
        return (n[0::2] | (n[1::2] << 4)).astype(np.uint8).tobytes()
    return flat.tobytes()


def layout_text(m2m, tiles, bits: int = 0) -> str:
    s = "{" + ",".join(map(str, m2m))
    attrs = "".join("(" + ",".join(map(str, t)) + ")" for t in tiles)
    if tiles:
        attrs = "T" + attrs
    if bits:
        attrs += f"E({bits})"
    if attrs:
        s += ":" + attrs
    return s + "}"
