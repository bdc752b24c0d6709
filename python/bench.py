"""Speed of the Python package beside numpy.copyto of the same bytes, in the same run.

    python3 python/bench.py [--workers N] [--samples N] [--go] [--memory] [--small]

Times to_device of an 8192x8192 f32 array to bf16 T(8,128)(2,1) and from_device of that
image back to a row-major bf16 array, each paired sample beside numpy.copyto of the
source bytes (ratio = copyto's time / the call's time, median of the pairs, as
relayout-bench reports for Go's copy()); NumPy's pad-reshape-transpose idiom for the same
conversion; and the per-call overhead of a reused Plan on 256x256 bf16 (its time from
Python less the same copies looped inside the Go library). --go also runs
cmd/relayout-bench on the same cases (needs the Go toolchain) and prints the Python
ratio as a share of Go's. --memory (alone) converts a 1 GiB f32
array and back and reports the peak memory against the two arrays' size. --small (alone)
times the small calls: a cached to_device and from_device with out= and a reused
Plan.copy on bf16[8,128], beside an empty call into the library through ctypes and
numpy.copyto of the same 2 KiB, interleaved in the same run.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import timeit
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tpulayout  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = 8192
DEV = f"bf16[{N},{N}]{{1,0:T(8,128)(2,1)}}"


def paired(op, ref, samples):
    """Median of ref's time / op's time over paired samples, and op's median seconds."""
    ratios, times = [], []
    op(), ref()  # warm up: page faults, plans, caches
    for _ in range(samples):
        t0 = time.perf_counter()
        ref()
        t1 = time.perf_counter()
        op()
        t2 = time.perf_counter()
        ratios.append((t1 - t0) / (t2 - t1))
        times.append(t2 - t1)
    return statistics.median(ratios), statistics.median(times)


def numpy_idiom(a):
    """f32 → bf16 (round to nearest even on the bits) then pad-reshape-transpose to
    T(8,128)(2,1): the hand-written NumPy way."""
    u = a.view(np.uint32)
    bits = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    r, c = bits.shape
    t = bits.reshape(r // 8, 8, c // 128, 128).transpose(0, 2, 1, 3)
    t = t.reshape(r // 8, c // 128, 4, 2, 128, 1).transpose(0, 1, 2, 4, 3, 5)
    return np.ascontiguousarray(t).reshape(-1).view(np.uint8)


def go_case(src, dst, workers, count=10):
    cmd = ["go", "run", "./cmd/relayout-bench", "-from", src, "-to", dst, "-workers", str(workers),
           "-count", str(count), "-json"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return json.loads(out.splitlines()[0])


def memory(w):
    """Peak memory of converting a 1 GiB f32 array, in a process that did nothing else."""
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    big = np.ones((16384, 16384), np.float32)  # 1 GiB, every page touched
    dev = "bf16[16384,16384]{1,0:T(8,128)(2,1)}"
    tracemalloc.start()
    out = tpulayout.to_device(big, dev, workers=w)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    back = tpulayout.from_device(out, dev, dtype=np.float32, out=big)  # in place, back to f32
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    both = big.nbytes + out.nbytes
    print(f"memory, 1 GiB f32 -> bf16 image and back into the f32 array: traced peak "
          f"{peak / 2**20:.0f} MiB for a {out.nbytes / 2**20:.0f} MiB result; peak RSS "
          f"{rss1 / 2**20:.0f} MiB = {rss1 / both:.3f}x the two arrays ({both / 2**20:.0f} MiB; "
          f"{rss0 / 2**20:.0f} MiB before them)")
    assert back is big


def small(rounds=40, reps=5000):
    """Small-call costs: each case's best of rounds (noise on a shared machine only
    adds), the cases interleaved round by round, and each as a ratio to the empty call
    and to numpy.copyto of the same bytes."""
    from tpulayout._lib import lib
    dev = "bf16[8,128]{1,0:T(8,128)(2,1)}"
    x = np.arange(8 * 128, dtype=np.uint16).reshape(8, 128)  # bf16 bits
    x_copy = np.empty_like(x)
    img = tpulayout.empty(2048)
    host = tpulayout.empty((8, 128), np.uint16)
    plan = tpulayout.Plan("bf16[8,128]{1,0}", dev, workers=1)
    cases = {
        "empty ctypes call": lambda: lib.tl_free(None),
        "numpy.copyto 2 KiB": lambda: np.copyto(x_copy, x),
        "to_device(x, layout, out=img)": lambda: tpulayout.to_device(x, dev, out=img, workers=1),
        "from_device(img, layout, out=host)": lambda: tpulayout.from_device(img, dev, out=host, workers=1),
        "Plan.copy(x, img)": lambda: plan.copy(x, img),
    }
    best = {k: float("inf") for k in cases}
    for f in cases.values():
        f()  # warm up: plans compiled and cached
    for _ in range(rounds):
        for k, f in cases.items():
            best[k] = min(best[k], timeit.timeit(f, number=reps) / reps)
    assert np.array_equal(host, x), "from_device did not give back to_device's array"
    empty, copyto = best["empty ctypes call"], best["numpy.copyto 2 KiB"]
    print(f"small calls on bf16[8,128] (2 KiB), {dev}, 1 worker; best of {rounds} rounds of {reps}:")
    for k, t in best.items():
        print(f"  {k:36s} {t * 1e6:6.2f} us  {t / empty:5.1f}x the empty call  {t / copyto:5.2f}x numpy.copyto")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--go", action="store_true", help="also run relayout-bench on the same cases")
    ap.add_argument("--memory", action="store_true",
                    help="only measure the peak memory of a 1 GiB conversion")
    ap.add_argument("--small", action="store_true",
                    help="only time the small calls (bf16[8,128]) beside an empty call and numpy.copyto")
    args = ap.parse_args()
    w = args.workers
    if args.small:
        return small()

    if args.memory:
        return memory(w)
    print(f"numpy {np.__version__}, workers={w}, samples={args.samples}")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((N, N), dtype=np.float32)
    a_copy = np.empty_like(a)
    img = tpulayout.empty(N * N * 2)  # 64-byte aligned, as to_device's own results

    to_ratio, to_t = paired(lambda: tpulayout.to_device(a, DEV, out=img, workers=w),
                            lambda: np.copyto(a_copy, a), args.samples)
    print(f"to_device   f32[{N},{N}] -> {DEV}: {a.nbytes / to_t / 1e9:.2f} GB/s of source, "
          f"{to_ratio:.2f}x numpy.copyto")

    host = tpulayout.empty((N, N), np.uint16)
    host_copy = np.empty_like(host)
    from_ratio, from_t = paired(lambda: tpulayout.from_device(img, DEV, out=host, workers=w),
                                lambda: np.copyto(host_copy, host), args.samples)
    print(f"from_device {DEV} -> bf16[{N},{N}]{{1,0}}: {img.nbytes / from_t / 1e9:.2f} GB/s, "
          f"{from_ratio:.2f}x numpy.copyto")

    t0 = time.perf_counter()
    want = numpy_idiom(a)
    np_t = time.perf_counter() - t0
    assert want.tobytes() == img.tobytes(), "NumPy idiom and to_device differ"
    print(f"NumPy pad-reshape-transpose idiom, same conversion: {a.nbytes / np_t / 1e9:.3f} GB/s; "
          f"to_device is {np_t / to_t:.1f}x faster")
    del want

    # Per-call overhead: Plan.copy from Python against the same copies looped inside Go,
    # interleaved, best of several rounds each (the noise of a shared machine only adds).
    small_src = np.ones((256, 256), np.uint16)
    small_out = tpulayout.empty(256 * 256 * 2)
    plan = tpulayout.Plan("bf16[256,256]{1,0}", "bf16[256,256]{1,0:T(8,128)(2,1)}", workers=1)
    reps, py, go = 5000, [], []
    for _ in range(7):
        py.append(timeit.timeit(lambda: plan.copy(small_src, small_out), number=reps) / reps)
        go.append(plan._time_in_go(small_src, small_out, reps))
    print(f"Plan.copy bf16[256,256] -> T(8,128)(2,1), reused, 1 worker: {min(py) * 1e6:.2f} us a call "
          f"from Python, {min(go) * 1e6:.2f} us a copy inside Go: overhead {(min(py) - min(go)) * 1e6:.2f} us")

    if args.go:
        g_to = go_case(f"f32[{N},{N}]", DEV, w)
        g_from = go_case(DEV, f"bf16[{N},{N}]{{1,0}}", w)
        print(f"Go relayout-bench, same cases: to {g_to['ratio_to_copy']:.2f}x copy(), "
              f"from {g_from['ratio_to_copy']:.2f}x copy()")
        print(f"Python/Go ratio: to_device {to_ratio / g_to['ratio_to_copy']:.2f}, "
              f"from_device {from_ratio / g_from['ratio_to_copy']:.2f}")



if __name__ == "__main__":
    main()
