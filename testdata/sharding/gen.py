#!/usr/bin/env python3
"""Generates the sharded-conversion fixtures of package sharding, independently of it.

For each case it writes NAME.safetensors (the global array, tensor "x"), NAME.images.bin
(the expected device image of every device, in increasing device id order) and an entry
of cases.json. The device of each shard follows jax.sharding.NamedSharding: the mesh's
device array is transposed so that the axes of the spec come first, in spec order, and
the unnamed (replicating) axes last, and reshaped to (shards of dim 0, …, replicas), as
JAX's named_sharding_to_xla_hlo_sharding builds the tile assignment; device
ta[i0, …, r] holds the slice i_d*shard_d:(i_d+1)*shard_d of each dim d, which is what
addressable_devices_indices_map returns. Each slice is then padded, reshaped and
transposed into the XLA tiled layout with NumPy.

Run from the repository root: python3 testdata/sharding/gen.py
"""
import json
import os
import re

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(16)


def parse_layout(text):
    """'bf16[8,128]{1,0:T(8,128)(2,1)}' -> dtype, dims, minor_to_major, tiles."""
    m = re.fullmatch(r"(\w+)\[([\d,]*)\]\{([\d,]*)(?::(T(?:\([\d,]+\))+))?\}", text)
    dtype, dims, m2m, tiles = m.groups()
    dims = [int(x) for x in dims.split(",") if x]
    m2m = [int(x) for x in m2m.split(",") if x]
    tiles = [[int(x) for x in t.split(",")] for t in re.findall(r"\(([\d,]+)\)", tiles or "")]
    return dtype, dims, m2m, tiles


def tile(a, tiles):
    """XLA nested tiling of a (already in physical, majormost-first order): each tile
    pads and splits the minor dims of the previous result into (count, in-tile) pairs,
    the in-tile dims moving to the minor end."""
    for t in tiles:
        k = len(t)
        if a.ndim < k:  # a tile wider than the array: the missing major dims are 1 (scalars)
            a = a.reshape((1,) * (k - a.ndim) + a.shape)
        outer = a.shape[: a.ndim - k]
        minor = a.shape[a.ndim - k :]
        padded = [-(-n // e) * e for n, e in zip(minor, t)]
        a = np.pad(a, [(0, 0)] * len(outer) + [(0, p - n) for p, n in zip(padded, minor)])
        split = list(outer)
        for p, e in zip(padded, t):
            split += [p // e, e]
        a = a.reshape(split)
        o = len(outer)
        order = list(range(o)) + [o + 2 * i for i in range(k)] + [o + 2 * i + 1 for i in range(k)]
        a = a.transpose(order)
    return a


def device_image(shard, layout):
    _, dims, m2m, tiles = parse_layout(layout)
    assert list(shard.shape) == dims, (shard.shape, dims)
    phys = shard.transpose(list(reversed(m2m))) if shard.ndim else shard
    return np.ascontiguousarray(tile(phys, tiles)).tobytes()


def f32_to_bf16_bits(x):
    b = x.astype("<f4").view("<u4").astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype("<u2")


def parse_spec(spec):
    """'P("a", None, ("b","c"))' -> [['a'], [], ['b','c']]"""
    body = spec.strip()[2:-1]
    out = []
    for m in re.finditer(r"None|\(([^)]*)\)|\"(\w+)\"|'(\w+)'", body):
        if m.group(0) == "None":
            out.append([])
        elif m.group(1) is not None:
            out.append(re.findall(r"[\"'](\w+)[\"']", m.group(1)))
        else:
            out.append([m.group(2) or m.group(3)])
    return out


def indices_map(mesh, devices, spec, shape):
    names = [a for a, _ in mesh]
    sizes = [s for _, s in mesh]
    devs = np.array(devices).reshape(sizes)
    entries = parse_spec(spec) + [[]] * (len(shape) - len(parse_spec(spec)))
    used = [names.index(a) for e in entries for a in e]
    rest = [i for i in range(len(names)) if i not in used]
    counts = [int(np.prod([sizes[names.index(a)] for a in e])) if e else 1 for e in entries]
    ta = devs.transpose(used + rest).reshape(counts + [-1])
    out = {}
    for idx in np.ndindex(*ta.shape):
        dev = int(ta[idx])
        sl = []
        for d, i in enumerate(idx[:-1]):
            n = shape[d] // counts[d]
            sl.append((i * n, (i + 1) * n))
        out[dev] = sl
    return out


def write_safetensors(path, dtype, arr_bytes, shape):
    hdr = json.dumps({"x": {"dtype": dtype, "shape": shape, "data_offsets": [0, len(arr_bytes)]}}).encode()
    hdr += b" " * (-len(hdr) % 8)
    with open(path, "wb") as f:
        f.write(len(hdr).to_bytes(8, "little"))
        f.write(hdr)
        f.write(arr_bytes)


CASES = [
    # name, mesh, devices, spec, source dtype, shape, shard layout
    ("rows_x4", [("x", 4)], None, 'P("x")', "BF16", [32, 256], "bf16[8,256]{1,0:T(8,128)(2,1)}"),
    ("cols_x4", [("x", 4)], None, 'P(None, "x")', "BF16", [16, 512], "bf16[16,128]{1,0:T(8,128)(2,1)}"),
    ("mesh2d_both", [("data", 2), ("model", 4)], None, 'P("data", "model")', "BF16", [16, 256], "bf16[8,64]{1,0:T(8,128)(2,1)}"),
    ("mesh2d_repl_f32", [("data", 2), ("model", 2)], None, 'P("model")', "F32", [16, 256], "bf16[8,256]{1,0:T(8,128)(2,1)}"),
    ("multi_ab", [("a", 2), ("b", 2)], None, 'P(("a", "b"))', "BF16", [32, 128], "bf16[8,128]{1,0:T(8,128)(2,1)}"),
    ("multi_ba", [("a", 2), ("b", 2)], None, "P(('b', 'a'))", "BF16", [32, 128], "bf16[8,128]{1,0:T(8,128)(2,1)}"),
    ("mesh3d_all", [("x", 2), ("y", 2), ("z", 2)], None, 'P("x", "y", "z")', "BF16", [4, 16, 256], "bf16[2,8,128]{2,1,0:T(8,128)(2,1)}"),
    ("mesh3d_multi_repl", [("x", 2), ("y", 2), ("z", 2)], None, 'P(None, ("x", "z"))', "BF16", [2, 32, 128], "bf16[2,8,128]{2,1,0:T(8,128)(2,1)}"),
    ("s8_quads", [("x", 2), ("y", 2)], None, 'P("x", "y")', "I8", [64, 256], "s8[32,128]{1,0:T(32,128)(4,1)}"),
    ("s8_repl", [("x", 2), ("y", 2)], None, 'P(None, "y")', "I8", [32, 256], "s8[32,128]{1,0:T(32,128)(4,1)}"),
    ("replicated", [("x", 2)], None, "P()", "F32", [8, 128], "f32[8,128]{1,0:T(8,128)}"),
    ("devices_order", [("x", 2), ("y", 2)], [3, 1, 0, 2], 'P("x", "y")', "F32", [16, 256], "f32[8,128]{1,0:T(8,128)}"),
    ("transposed", [("x", 2)], None, 'P("x")', "BF16", [256, 32], "bf16[128,32]{0,1:T(8,128)(2,1)}"),
    ("vector", [("x", 2), ("y", 2)], None, 'P(("y", "x"))', "BF16", [2048], "bf16[512]{0:T(512)(128)(2,1)}"),
    ("padded_small_tiles", [("x", 3)], None, 'P(None, "x")', "F32", [5, 12], "bf16[5,4]{1,0:T(4,3)(2,1)}"),
    # The defaults of tpu:v5e since issue #31: int8 in T(8,128)(4,1), a scalar in one
    # (1,128) tile of 32-bit words.
    ("s8_default", [("x", 2)], None, 'P("x")', "I8", [64, 256], "s8[32,256]{1,0:T(8,128)(4,1)}"),
    ("scalar", [("x", 2)], None, "P()", "F32", [], "f32[]{:T(128)}"),
]


def main():
    out = []
    for name, mesh, devices, spec, sdt, shape, layout in CASES:
        n = int(np.prod([s for _, s in mesh]))
        devs = devices if devices is not None else list(range(n))
        dst_dt = parse_layout(layout)[0]
        if sdt == "BF16":
            src = f32_to_bf16_bits(rng.standard_normal(shape).astype(np.float32))
        elif sdt == "F32":
            src = rng.standard_normal(shape).astype("<f4")
        else:
            src = rng.integers(-128, 128, size=shape, dtype=np.int8)
        write_safetensors(os.path.join(HERE, name + ".safetensors"), sdt, src.tobytes(), shape)
        if sdt == "F32" and dst_dt == "bf16":
            conv = f32_to_bf16_bits(src)
        else:
            conv = src
        imap = indices_map(mesh, devs, spec, shape)
        images, entries, off = b"", [], 0
        for dev in sorted(imap):
            sl = imap[dev]
            shard = conv[tuple(slice(a, b) for a, b in sl)]
            img = device_image(shard, layout)
            entries.append({"device": dev, "ranges": [list(r) for r in sl], "offset": off, "bytes": len(img)})
            images += img
            off += len(img)
        with open(os.path.join(HERE, name + ".images.bin"), "wb") as f:
            f.write(images)
        out.append({"name": name, "mesh": ",".join(f"{a}={s}" for a, s in mesh), "devices": devices,
                    "spec": spec, "layout": layout, "images": entries})
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
