#!/usr/bin/python3
"""NumPy peer for cmd/relayout-bench: the same cases, done the way a NumPy user would.

Run it with the Python that has NumPy (Debian: apt-get install -y python3-numpy):

    /usr/bin/python3 bench/scripts/np_peer.py [--size small|large|both|NxM] [--count N]
        [--benchtime SECONDS] [--case REGEXP] > /tmp/np.txt

It prints the Go benchmark format on stdout, with the case and size names relayout-bench
uses, so the two files can be read side by side (see bench/README.md for benchstat), and
a summary table on stderr.

Impls (the /impl= key):
  numpy        np.copyto(out, view): the relayout as a strided copy into a preallocated
               output (for f32-to-bf16: round-to-nearest-even bit arithmetic, fused with
               the tiling band by band so the temporaries stay in cache).
  numpy-alloc  the everyday idiom np.ascontiguousarray(a.reshape(...).transpose(...)),
               which also allocates and page-faults a new output on every call (for
               f32-to-bf16: convert the whole array to a bf16 temporary, then tile it).
  npcopy       the yardstick: np.copyto between two contiguous arrays of the source's
               byte size (memcpy), timed right after every sample of the case.

NumPy copies are single-threaded, so every line has workers=1; compare them with
relayout-bench's workers=1 lines. GB/s and MB/s count source bytes (1 GB = 1e9 B).
ratio-to-copy is the median over samples of the per-pair npcopy_time / case_time.
Cases whose dims are not multiples of the tile (only possible with --size NxM) are
skipped: a reshape cannot express the tile padding.
"""
import argparse
import math
import os
import platform
import re
import statistics
import sys
import time

import numpy as np

SMALL = (1024, 1024, 32)  # rows, cols, a (the 4-D case is a^4)
LARGE = (8192, 8192, 64)

CASES = [
    "f32-rowmajor-to-T8x128",
    "f32-T8x128-to-rowmajor",
    "bf16-rowmajor-to-T8x128-2x1",
    "bf16-T8x128-2x1-to-rowmajor",
    "f32-to-bf16-T8x128-2x1",
    "f32-transpose",
    "f32-perm3210",
    "bf16-T8x128-2x1-to-T16x128-2x1",
    "s8-rowmajor-to-T32x128-4x1",
]


def bf16_bits(u32, out):
    """f32 bit patterns (uint32) -> bf16 bit patterns, round to nearest, ties to even,
    written into the uint32 array out (high half zero). NaN is not special-cased: the
    inputs here are finite."""
    np.right_shift(u32, 16, out=out)
    np.bitwise_and(out, 1, out=out)
    out += np.uint32(0x7FFF)
    out += u32
    out >>= np.uint32(16)
    return out


class Case:
    """One case at one size: its source, and for each impl a function that performs the
    relayout plus, for the preallocated impl, the array it writes (for checking)."""

    def __init__(self, name, size, src):
        self.name, self.size, self.src = name, size, src
        self.nbytes = src.nbytes
        self.fns = {}
        self.out = None


def tile_src_f32(rows, cols, rng):
    return rng.standard_normal((rows, cols), dtype=np.float32)


def build(name, rows, cols, a, rng, src=None):
    """Return the Case for name at rows x cols (a^4 for the 4-D case), or None when the
    dims do not fit the case's tiles. src, if given, is the source's raw bytes."""
    R, C = rows, cols

    def source(shape, dtype, make):
        if src is not None:
            return np.frombuffer(src, dtype=dtype).reshape(shape).copy()
        return make()

    def f32():
        return source((R, C), np.float32, lambda: rng.standard_normal((R, C), dtype=np.float32))

    def u16():
        # bf16 data: the high halves of normal f32 values, so they are plausible numbers.
        return source((R, C), np.uint16, lambda: (rng.standard_normal((R, C), dtype=np.float32)
                                                  .view(np.uint32) >> 16).astype(np.uint16))

    size = f"{R}x{C}"
    if name == "f32-perm3210":
        x = source((a, a, a, a), np.float32, lambda: rng.standard_normal((a, a, a, a), dtype=np.float32))
        c = Case(name, f"{a}x{a}x{a}x{a}", x)
        out = np.empty((a, a, a, a), np.float32)  # out[i3,i2,i1,i0] = x[i0,i1,i2,i3]
        c.fns["numpy"] = lambda: np.copyto(out, x.transpose(3, 2, 1, 0))
        c.fns["numpy-alloc"] = lambda: np.ascontiguousarray(x.transpose(3, 2, 1, 0))
        c.out = out
        return c
    need_r = {"s8-rowmajor-to-T32x128-4x1": 32, "bf16-T8x128-2x1-to-T16x128-2x1": 16}.get(name, 8)
    if name != "f32-transpose" and (R % need_r or C % 128):
        return None

    if name == "f32-rowmajor-to-T8x128":
        x = f32()
        out = np.empty((R // 8, C // 128, 8, 128), np.float32)
        view = lambda: x.reshape(R // 8, 8, C // 128, 128).transpose(0, 2, 1, 3)
    elif name == "f32-T8x128-to-rowmajor":
        x = source((R // 8, C // 128, 8, 128), np.float32,
                   lambda: rng.standard_normal((R // 8, C // 128, 8, 128), dtype=np.float32))
        out = np.empty((R // 8, 8, C // 128, 128), np.float32)  # row-major R x C
        view = lambda: x.transpose(0, 2, 1, 3)
    elif name == "bf16-rowmajor-to-T8x128-2x1":
        x = u16()  # row 8t+2p+k, col 128d+e  ->  [t][d][p][e][k]
        out = np.empty((R // 8, C // 128, 4, 128, 2), np.uint16)
        view = lambda: x.reshape(R // 8, 4, 2, C // 128, 128).transpose(0, 3, 1, 4, 2)
    elif name == "bf16-T8x128-2x1-to-rowmajor":
        x = u16().reshape(R // 8, C // 128, 4, 128, 2)
        out = np.empty((R // 8, 4, 2, C // 128, 128), np.uint16)
        view = lambda: x.transpose(0, 2, 4, 1, 3)
    elif name == "bf16-T8x128-2x1-to-T16x128-2x1":
        # Source row 16A + 8h + 2p + k sits at [2A+h][d][p][e][k]; the T(16,128)(2,1)
        # destination puts it at [A][d][4h+p][e][k].
        x = u16().reshape(R // 16, 2, C // 128, 4, 128, 2)
        out = np.empty((R // 16, C // 128, 2, 4, 128, 2), np.uint16)
        view = lambda: x.transpose(0, 2, 1, 3, 4, 5)
    elif name == "s8-rowmajor-to-T32x128-4x1":
        x = source((R, C), np.int8, lambda: rng.integers(-128, 128, (R, C), dtype=np.int8))
        out = np.empty((R // 32, C // 128, 8, 128, 4), np.int8)
        view = lambda: x.reshape(R // 32, 8, 4, C // 128, 128).transpose(0, 3, 1, 4, 2)
    elif name == "f32-transpose":
        x = f32()
        out = np.empty((C, R), np.float32)  # f32[R,C]{0,1}: column-major
        view = lambda: x.T
    elif name == "f32-to-bf16-T8x128-2x1":
        return build_f32_to_bf16(f32(), R, C, size)
    else:
        raise ValueError(name)

    c = Case(name, size, x)
    v = view()
    c.fns["numpy"] = lambda: np.copyto(out, v)
    c.fns["numpy-alloc"] = lambda: np.ascontiguousarray(view())
    c.out = out
    return c


def build_f32_to_bf16(x, R, C, size):
    c = Case("f32-to-bf16-T8x128-2x1", size, x)
    u = x.view(np.uint32)
    out = np.empty((R // 8, C // 128, 4, 128, 2), np.uint16)
    # Bands of whole 8-row tile rows, about 256 KiB of uint32 temporaries each.
    band = max(8, min(R, (1 << 16) // C // 8 * 8))
    tmp = np.empty((band, C), np.uint32)

    def fused():
        for r0 in range(0, R, band):
            r1 = min(R, r0 + band)
            t = tmp[: r1 - r0]
            bf16_bits(u[r0:r1], t)
            np.copyto(out[r0 // 8:r1 // 8],
                      t.reshape((r1 - r0) // 8, 4, 2, C // 128, 128).transpose(0, 3, 1, 4, 2),
                      casting="unsafe")

    def alloc():
        h = bf16_bits(u, np.empty_like(u)).astype(np.uint16)
        return np.ascontiguousarray(h.reshape(R // 8, 4, 2, C // 128, 128).transpose(0, 3, 1, 4, 2))

    c.fns["numpy"] = fused
    c.fns["numpy-alloc"] = alloc
    c.out = out
    return c


def check():
    """Self-check of the index mappings on small arrays, by explicit index formulas."""
    rng = np.random.default_rng(1)
    R, C = 32, 256
    for name in CASES:
        c = build(name, R, C, 3, rng)
        c.fns["numpy"]()
        o = c.out.reshape(-1)
        alloc = np.asarray(c.fns["numpy-alloc"]()).reshape(-1)
        assert np.array_equal(o, alloc), name
        s = c.src
        for (r, k) in [(0, 0), (1, 2), (7, 127), (9, 130), (17, 200), (31, 255)]:
            if name == "f32-perm3210":
                i = (r % 3, k % 3, (r + k) % 3, 2)
                assert o[((i[3] * 3 + i[2]) * 3 + i[1]) * 3 + i[0]] == s[i], name
                continue
            tile = (r // 8) * (C // 128) + k // 128
            if name == "f32-rowmajor-to-T8x128":
                assert o[tile * 1024 + (r % 8) * 128 + k % 128] == s[r, k], name
            elif name == "f32-T8x128-to-rowmajor":
                assert o[r * C + k] == s.reshape(-1)[tile * 1024 + (r % 8) * 128 + k % 128], name
            elif name == "bf16-rowmajor-to-T8x128-2x1":
                assert o[tile * 1024 + ((r % 8) // 2 * 128 + k % 128) * 2 + r % 2] == s[r, k], name
            elif name == "bf16-T8x128-2x1-to-rowmajor":
                assert o[r * C + k] == s.reshape(-1)[tile * 1024 + ((r % 8) // 2 * 128 + k % 128) * 2 + r % 2], name
            elif name == "bf16-T8x128-2x1-to-T16x128-2x1":
                t16 = (r // 16) * (C // 128) + k // 128
                want = s.reshape(-1)[tile * 1024 + ((r % 8) // 2 * 128 + k % 128) * 2 + r % 2]
                assert o[t16 * 2048 + ((r % 16) // 2 * 128 + k % 128) * 2 + r % 2] == want, name
            elif name == "s8-rowmajor-to-T32x128-4x1":
                t32 = (r // 32) * (C // 128) + k // 128
                assert o[t32 * 4096 + ((r % 32) // 4 * 128 + k % 128) * 4 + r % 4] == s[r, k], name
            elif name == "f32-transpose":
                assert o[k * R + r] == s[r, k], name
            elif name == "f32-to-bf16-T8x128-2x1":
                bits = int(s.view(np.uint32)[r, k])
                want = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
                assert o[tile * 1024 + ((r % 8) // 2 * 128 + k % 128) * 2 + r % 2] == want, name
    # Round-to-nearest-even on exact ties and near-ties.
    f = np.array([1.0, 1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-20, -2.5], np.float32)
    b = bf16_bits(f.view(np.uint32), np.empty(f.shape, np.uint32))
    got = (b << np.uint32(16)).view(np.float32)
    assert list(got) == [1.0, 1.0, 1 + 4 * 2**-8, 1 + 2 * 2**-8, -2.5], got


def per_call(fn, n):
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def calibrate(fn, benchtime):
    """Iterations that make one sample last at least benchtime seconds."""
    n = 1
    while True:
        t = per_call(fn, n) * n
        if t >= benchtime:
            return n
        per = max(t / n, 1e-9)
        want = math.ceil(benchtime / per)
        if t >= benchtime / 5:
            return max(want, n)
        n = min(max(want, n + 1), 100 * n)


def quantile(xs, p):
    s = sorted(xs)
    h = p * (len(s) - 1)
    lo = int(math.floor(h))
    if lo + 1 >= len(s):
        return s[-1]
    return s[lo] + (h - lo) * (s[lo + 1] - s[lo])


def go_arch():
    m = platform.machine().lower()
    return {"x86_64": "amd64", "aarch64": "arm64", "i686": "386", "armv7l": "arm"}.get(m, m)


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def procs():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def parse_size(s):
    if s == "small":
        return [SMALL]
    if s == "large":
        return [LARGE]
    if s == "both":
        return [SMALL, LARGE]
    m = re.fullmatch(r"(\d+)(?:x(\d+))?", s)
    if not m:
        raise argparse.ArgumentTypeError(f"{s!r}: want small, large, both or NxM")
    r = int(m.group(1))
    c = int(m.group(2) or r)
    if r < 1 or c < 1:
        raise argparse.ArgumentTypeError(f"{s!r}: dims must be positive")
    return [(r, c, max(1, int((r * c) ** 0.25 + 1e-9)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=parse_size, default=parse_size("both"), help="small, large, both or NxM")
    ap.add_argument("--count", type=int, default=10, help="samples per case and impl")
    ap.add_argument("--benchtime", type=float, default=0.05, help="minimum seconds per sample")
    ap.add_argument("--case", type=re.compile, default=None, help="regexp selecting case names")
    ap.add_argument("--impl", default="numpy,numpy-alloc", help="impls to run, comma-separated")
    ap.add_argument("--check", action="store_true", help="only run the layout self-check")
    args = ap.parse_args()
    if args.count < 1:
        ap.error("--count must be at least 1")
    check()
    if args.check:
        print("ok", file=sys.stderr)
        return
    impls = [i for i in args.impl.split(",") if i]

    suffix = f"-{procs()}" if procs() != 1 else ""
    print(f"goos: {sys.platform}\ngoarch: {go_arch()}\npkg: numpy\ncpu: {cpu_name()}\n"
          f"numpy: {np.__version__}\npython: {platform.python_version()}", flush=True)
    rng = np.random.default_rng(0)
    rows = []
    for (R, C, a) in args.size:
        for name in CASES:
            if args.case and not args.case.search(name):
                continue
            c = build(name, R, C, a, rng)
            if c is None:
                print(f"np_peer: {name} at {R}x{C}: dims are not multiples of the tile; skipped", file=sys.stderr)
                continue
            cp_src = np.ones(c.nbytes, np.uint8)
            cp_dst = np.zeros(c.nbytes, np.uint8)
            cp = lambda: np.copyto(cp_dst, cp_src)
            cp()
            ncp = calibrate(cp, args.benchtime)
            for impl in impls:
                fn = c.fns.get(impl)
                if fn is None:
                    continue
                fn()
                n = calibrate(fn, args.benchtime)
                case_s, copy_s = [], []
                for _ in range(args.count):
                    case_s.append(per_call(fn, n))
                    copy_s.append(per_call(cp, ncp))
                name_base = f"BenchmarkRelayout/case={c.name}/size={c.size}/workers=1"
                for ts, tp in zip(case_s, copy_s):
                    print(f"{name_base}/impl={impl}{suffix}\t{n}\t{ts * 1e9:.0f} ns/op\t"
                          f"{c.nbytes / ts / 1e6:.2f} MB/s\t{tp / ts:.4f} ratio-to-copy/op")
                for tp in copy_s:
                    print(f"{name_base}/impl=npcopy{suffix}\t{ncp}\t{tp * 1e9:.0f} ns/op\t{c.nbytes / tp / 1e6:.2f} MB/s")
                sys.stdout.flush()
                g = [c.nbytes / t / 1e9 for t in case_s]
                rows.append((c.name, c.size, impl, statistics.median(g), min(g), max(g),
                             statistics.median([c.nbytes / t / 1e9 for t in copy_s]),
                             statistics.median([tp / ts for ts, tp in zip(case_s, copy_s)])))
                print(f"np_peer: {c.name} {c.size} {impl}: {rows[-1][3]:.2f} GB/s, "
                      f"ratio to copy {rows[-1][7]:.2f}", file=sys.stderr, flush=True)
            del c, cp_src, cp_dst

    hdr = ("case", "size", "impl", "GB/s", "(min–max)", "copy GB/s", "ratio to copy")
    table = [hdr] + [(n, s, i, f"{g:.2f}", f"({lo:.2f}–{hi:.2f})", f"{cg:.2f}", f"{r:.2f}x")
                     for (n, s, i, g, lo, hi, cg, r) in rows]
    widths = [max(len(r[k]) for r in table) for k in range(len(hdr))]
    for r in table:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip(), file=sys.stderr)
    print("GB/s: source bytes per second (1 GB = 1e9 B), median; copy: np.copyto of the same bytes "
          "(memcpy), timed right after each sample; ratio: median of per-pair copy_time/case_time; "
          "single-threaded (workers=1)", file=sys.stderr)


if __name__ == "__main__":
    main()
