#!/usr/bin/python3
"""Record pycute's answers on a deterministic table of layout-algebra cases.

Usage: PYCUTE_PATH=/path/to/cutlass/python python3 record.py > pycute-cases.json

PYCUTE_PATH is the directory that holds the `pycute` package (NVIDIA/cutlass's
python/ folder). This script holds no pycute code: it imports it. Operations pycute
lacks (blocked/raked product, max common vector/layout) are built here from pycute's
primitives following CuTe's C++ definitions (include/cute/layout.hpp); such cases say
so in their "via" field.

Each case: op, its inputs as CuTe text, and pycute's answer ("result", a layout's
text or an integer) or the exception it raised ("error"). Cases whose check needs
pycute's intermediate layouts carry them in "aux" (e.g. the complement a divide
composes with).
"""

import ast
import json
import math
import os
import random
import sys

sys.path.insert(0, os.environ["PYCUTE_PATH"])
import pycute as cute  # noqa: E402


def text_tuple(t):
    if isinstance(t, int):
        return str(t)
    return "(" + ",".join(text_tuple(e) for e in t) + ")"


def text(layout):
    return text_tuple(layout.shape) + ":" + text_tuple(layout.stride)


def compact(shape, order=None):
    """Column-major strides of a nested shape, its flat modes taken in `order`."""
    flat = list(cute.flatten(shape))
    order = order or list(range(len(flat)))
    strides = [0] * len(flat)
    s = 1
    for i in order:
        strides[i] = s
        s *= flat[i]
    return unflatten(strides, shape)


def unflatten(flat, profile):
    it = iter(flat)

    def go(p):
        if isinstance(p, int):
            return next(it)
        return tuple(go(e) for e in p)

    return go(profile)


def nest(flat, rng):
    """Group a flat list of ints into a random nesting (one level at most per mode)."""
    out, i = [], 0
    while i < len(flat):
        k = rng.choice([1, 1, 1, 2, 3])
        grp = flat[i:i + k]
        out.append(grp[0] if len(grp) == 1 else tuple(grp))
        i += k
    return out[0] if len(out) == 1 else tuple(out)


def random_layout(rng, max_size=256, kind=None):
    kind = kind or rng.choice(["compact", "compact", "padded", "any"])
    n = rng.randint(1, 4)
    flat = [rng.choice([1, 2, 2, 3, 4, 4, 5, 6, 8]) for _ in range(n)]
    while math.prod(flat) > max_size:
        flat[flat.index(max(flat))] //= 2
    shape = nest(flat, rng)
    if kind == "compact":
        order = list(range(len(flat)))
        rng.shuffle(order)
        stride = compact(shape, order)
    elif kind == "padded":
        order = list(range(len(flat)))
        rng.shuffle(order)
        strides, s = [0] * len(flat), 1
        for i in order:
            strides[i] = s
            s *= flat[i] * rng.choice([1, 1, 2, 3])
        stride = unflatten(strides, shape)
    else:
        stride = unflatten([rng.choice([0, 1, 2, 3, 4, 6, 8, 16]) for _ in flat], shape)
    return cute.Layout(shape, stride)


def tile_for(rng, size):
    """A tile layout whose size is a small divisor of size (or any small size)."""
    divs = [d for d in range(1, size + 1) if size % d == 0 and d <= 64]
    n = rng.choice(divs) if rng.random() < 0.8 else rng.randint(2, 7)
    d = rng.choice([1, 1, 2, 3, 4])
    if rng.random() < 0.3 and n % 2 == 0 and n > 2:
        return cute.Layout((2, n // 2), (d, 2 * d * rng.choice([1, 2])))
    return cute.Layout(n, d)


def run(op, fn, **inputs):
    case = {"op": op}
    case.update(inputs)
    try:
        r = fn()
        if isinstance(r, tuple):
            r, aux = r
            case["aux"] = aux
        case["result"] = r if isinstance(r, int) else text(r)
    except Exception as e:  # pycute refuses by assertion or arithmetic error
        case["error"] = type(e).__name__ + (": " + str(e) if str(e) else "")
    return case


def blocked(a, b, raked):
    """CuTe's blocked/raked_product: zip of logical_product of rank-padded layouts."""
    r = max(len(a), len(b))
    pa = cute.make_layout([a[i] if i < len(a) else cute.Layout(1, 0) for i in range(r)])
    pb = cute.make_layout([b[i] if i < len(b) else cute.Layout(1, 0) for i in range(r)])
    p = cute.logical_product(pa, pb)
    aux = text(cute.complement(pa, cute.size(pa) * cute.cosize(pb)))
    modes = [cute.make_layout(p[1][i], p[0][i]) if raked else cute.make_layout(p[0][i], p[1][i])
             for i in range(r)]
    return cute.make_layout(modes), aux


def max_common(a, b, want_layout):
    """CuTe's max_common_vector / max_common_layout (layout.hpp)."""
    inv = cute.right_inverse(b)
    common = cute.coalesce(cute.composition(a, inv))
    if cute.flatten(common.stride)[0] != 1:
        return cute.Layout(1, 0) if want_layout else 1
    if want_layout:
        return cute.composition(inv, common[0])
    return cute.flatten(common.shape)[0]


HAND_COMPOSE = [
    ("(6,2):(8,2)", "(4,3):(3,1)"),
    ("(10,2):(16,4)", "(5,4):(1,5)"),
    ("20:2", "(5,4):(4,1)"),
    ("(4,6,8,10):(2,3,5,7)", "6:12"),
    ("(12,(4,8)):(59,(13,1))", "(3,8):(4,1)"),
    ("(8,128):(128,1)", "(3,1):(1,0)"),
    ("(8,128):(128,1)", "((3,2),(128,1)):((1,3),(8,0))"),
    ("(4,3):(3,1)", "(2,6):(1,2)"),
    ("(3,4):(4,1)", "6:2"),
    ("(2,3):(3,1)", "(3,2):(2,1)"),
    ("(4,4):(4,1)", "(2,2):(1,2)"),
    ("(4,4):(4,1)", "(2,2):(2,4)"),
    ("(6,4):(1,6)", "(4,6):(6,1)"),
    ("(3,6):(1,3)", "(2,9):(9,1)"),
    ("(2,2,2):(4,2,1)", "(2,4):(4,1)"),
    ("(5,3):(3,1)", "(3,5):(5,1)"),
    ("8:1", "(2,2,2):(4,1,2)"),
    ("(4,2):(2,1)", "(2,4):(1,2)"),
]


def composition_cases(rng):
    out = []
    for a, b in HAND_COMPOSE:
        A, B = parse(a), parse(b)
        out.append(run("composition", lambda: cute.composition(A, B), a=a, b=b))
    for _ in range(70):
        A = random_layout(rng)
        B = random_layout(rng, max_size=cute.size(A), kind=rng.choice(["compact", "padded", "any"]))
        out.append(run("composition", lambda: cute.composition(A, B), a=text(A), b=text(B)))
    return out


def parse(s):
    sh, st = s.split(":")
    return cute.Layout(_tuple(sh), _tuple(st))


def _tuple(s):
    return ast.literal_eval(s.replace(")", ",)"))  # "(4,2)" -> (4,2,); "(4)" -> (4,)


def main():
    rng = random.Random(20261128)
    cases = []
    layouts = [parse(s) for s in ["(4,2):(2,1)", "(2,(2,2)):(4,(1,2))", "((2,3),(2,4)):((1,2),(6,12))",
                                  "(4,1,3):(1,0,4)", "12:1", "1:0", "(3,2):(0,1)", "(8,128):(128,1)"]]
    layouts += [random_layout(rng) for _ in range(40)]
    for L in layouts:
        cases.append(run("coalesce", lambda: cute.coalesce(L), a=text(L)))
        if len(L) > 1:
            cases.append(run("coalesce_by_mode", lambda: cute.coalesce(L, tuple([1] * len(L))), a=text(L)))
    cases += composition_cases(rng)
    for L in layouts + [random_layout(rng, kind="padded") for _ in range(10)]:
        cot = rng.choice([1, cute.cosize(L), 2 * cute.cosize(L), cute.size(L) * 3])
        cases.append(run("complement", lambda: cute.complement(L, cot), a=text(L), cotarget=cot))
        cases.append(run("right_inverse", lambda: cute.right_inverse(L), a=text(L)))
        cases.append(run("left_inverse", lambda: cute.left_inverse(L), a=text(L)))
    for _ in range(30):
        A = random_layout(rng)
        B = tile_for(rng, cute.size(A))
        cases.append(run("logical_divide", lambda: (cute.logical_divide(A, B),
                                                    text(cute.complement(B, cute.size(A)))),
                         a=text(A), b=text(B)))
        B = random_layout(rng, max_size=16, kind=rng.choice(["compact", "padded"]))
        cases.append(run("logical_product", lambda: (cute.logical_product(A, B),
                                                     text(cute.complement(A, cute.size(A) * cute.cosize(B)))),
                         a=text(A), b=text(B)))
    # f32[16,256]{1,0:T(8,128)} cut by Pallas-style blocks (design note, `blocks`).
    xla = parse("((8,2),(128,2)):((128,2048),(1,1024))")
    for block in [(8, 128), (8, 256), (16, 128), (4, 256), (12, 128), (16, 256), (2, 64)]:
        tiler = tuple(cute.Layout(n, 1) for n in block)
        aux = lambda: [text(cute.complement(tiler[i], cute.size(xla[i]))) for i in range(2)]
        for op, fn in (("zipped_divide", cute.zipped_divide), ("tiled_divide", cute.tiled_divide)):
            cases.append(run(op, lambda: (fn(xla, tiler), aux()), a=text(xla), b=[text(t) for t in tiler]))
    for _ in range(24):
        A = random_layout(rng)
        k = rng.randint(1, len(A))
        tiler = tuple(tile_for(rng, cute.size(A[i])) for i in range(k))
        aux = lambda: [text(cute.complement(tiler[i], cute.size(A[i]))) for i in range(k)]
        for op, fn in (("zipped_divide", cute.zipped_divide), ("tiled_divide", cute.tiled_divide)):
            cases.append(run(op, lambda: (fn(A, tiler), aux()), a=text(A), b=[text(t) for t in tiler]))
    for _ in range(16):
        A = random_layout(rng, max_size=32, kind=rng.choice(["compact", "padded"]))
        B = random_layout(rng, max_size=16, kind=rng.choice(["compact", "padded"]))
        if len(A) < 2 and len(B) < 2:
            A = cute.make_layout(A, cute.Layout(2, cute.cosize(A)))
        for op, raked in (("blocked_product", False), ("raked_product", True)):
            c = run(op, lambda: blocked(A, B, raked), a=text(A), b=text(B))
            c["via"] = "CuTe C++ definition over pycute's logical_product"
            cases.append(c)
    for _ in range(20):
        A = random_layout(rng, kind=rng.choice(["compact", "padded"]))
        flat = list(cute.flatten(A.shape))
        order = list(range(len(flat)))
        rng.shuffle(order)
        B = cute.Layout(A.shape, compact(A.shape, order))
        if rng.random() < 0.5:
            A, B = B, A
        for op, want in (("max_common_vector", False), ("max_common_layout", True)):
            c = run(op, lambda: max_common(A, B, want), a=text(A), b=text(B))
            c["via"] = "CuTe C++ definition over pycute's right_inverse, composition, coalesce"
            cases.append(c)
    json.dump({"cases": cases}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
