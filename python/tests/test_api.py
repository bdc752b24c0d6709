"""The rest of the API: padding, layout forms, info, plans, threads, memory."""

import threading
import tracemalloc

import numpy as np
import pytest

import tpulayout
from tpulayout import _dtypes
from oracle import bf16_bits_to_f32, device_bytes, f32_to_bf16_bits

BF16 = "bf16[16,256]{1,0:T(8,128)(2,1)}"


def test_pad_value_and_leave():
    a = np.ones((3, 5), np.float32)
    shape = "bf16[3,5]{1,0:T(8,128)(2,1)}"
    img = tpulayout.to_device(a, shape, pad=1.5).view(np.uint16)
    assert (img == 0x3FC0).sum() == 8 * 128 - 15 and (img == 0x3F80).sum() == 15
    assert np.count_nonzero(tpulayout.to_device(a, shape).view(np.uint16)) == 15  # zero padding
    out = bytearray(b"\xab" * 2048)
    tpulayout.to_device(a, shape, pad="leave", out=out)
    assert out.count(0xAB) == 2048 - 30


def test_layout_alone_and_tpu_default():
    a = np.random.default_rng(3).standard_normal((32, 256)).astype(np.float32)
    full = tpulayout.to_device(a, "bf16[32,256]{1,0:T(8,128)(2,1)}")
    assert tpulayout.to_device(a, "{1,0:T(8,128)(2,1)}", dtype="bf16").tobytes() == full.tobytes()
    assert tpulayout.to_device(a, "tpu:v5e", dtype="bf16").tobytes() == full.tobytes()
    assert tpulayout.to_device(a, "{1,0:T(8,128)}").tobytes() == tpulayout.to_device(a, "f32[32,256]{1,0:T(8,128)}").tobytes()


def test_default_layout():
    assert tpulayout.default_layout((256, 1024), "bf16") == "bf16[256,1024]{1,0:T(8,128)(2,1)}"
    assert tpulayout.default_layout((256, 1024), np.float32) == "f32[256,1024]{1,0:T(8,128)}"
    assert tpulayout.default_layout((64, 128), "s8") == "s8[64,128]{1,0:T(8,128)(4,1)}"
    assert tpulayout.default_layout((256, 1024), "bf16", gen="v7x") == "bf16[256,1024]{1,0:T(16,128)(2,1)}"
    assert tpulayout.default_layout((4096,), "bf16") == "bf16[4096]{0:T(1024)(128)(2,1)}"


def test_parse_and_info():
    s = tpulayout.parse("bf16[3, 5]{1,0:T(8,128)(2,1)}")
    assert str(s) == "bf16[3,5]{1,0:T(8,128)(2,1)}"
    assert s.dims == (3, 5) and s.dtype == "bf16" and s.minor_to_major == (1, 0)
    assert s.tiles == ((8, 128), (2, 1)) and s.element_bits == 16 and s.footprint_bytes == 2048
    i = tpulayout.info("bf16[300,1000]{1,0:T(8,128)(2,1)}")
    assert i.footprint_bytes == 304 * 1024 * 2 and i.logical_bytes == 600000
    assert i.padding_elements == 304 * 1024 - 300000
    assert i.tile_count == 38 * 8
    assert i.levels[0] == ("physical", (300, 1000))
    assert i.tpu["tiles"] == 38 * 8 and i.tpu["vregs"] > 0
    assert tpulayout.info("f32[3]").tpu is None
    assert i.physical_order == (0, 1)
    assert tpulayout.info("f32[2,3,4]{0,2,1}").physical_order == (1, 2, 0)
    assert tpulayout.parse("s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}").footprint_bytes == 28311552


def test_strided_and_odd_arrays():
    base = np.arange(40 * 300, dtype=np.float32).reshape(40, 300)
    for a in (base[::2, 3:260], base[:, ::-1], base[5:6], base.T[::3], np.broadcast_to(base[0], (4, 300))):
        shape = f"f32[{a.shape[0]},{a.shape[1]}]{{1,0:T(8,128)}}"
        want = device_bytes(np.ascontiguousarray(a), [1, 0], [(8, 128)])
        assert tpulayout.to_device(a, shape).tobytes() == want
    assert tpulayout.to_device(np.float32(2.5), "f32[]").tobytes() == np.float32(2.5).tobytes()
    assert tpulayout.to_device(np.zeros((0, 5), np.float32), "bf16[0,5]{1,0:T(8,128)(2,1)}").nbytes == 0
    assert tpulayout.from_device(b"", "f32[0,5]").shape == (0, 5)


def test_from_device_out_any_dense_order():
    a = np.random.default_rng(4).standard_normal((16, 256)).astype(np.float32)
    img = tpulayout.to_device(a, BF16)
    want = bf16_bits_to_f32(f32_to_bf16_bits(a).reshape(a.shape))
    for out in (np.empty((16, 256), np.float32), np.empty((16, 256), np.float32, order="F"),
                np.empty((256, 16), np.float32).T):
        assert tpulayout.from_device(img, BF16, out=out) is out
        np.testing.assert_array_equal(out, want)


def test_bf16_default_dtype():
    a = np.random.default_rng(5).standard_normal((16, 256)).astype(np.float32)
    b = tpulayout.from_device(tpulayout.to_device(a, BF16), BF16)
    bits = f32_to_bf16_bits(a).reshape(a.shape)
    if _dtypes.ml_dtypes is None:
        assert b.dtype == np.uint16  # documented: the bits; .view(ml_dtypes.bfloat16) later
        np.testing.assert_array_equal(b, bits)
    else:
        assert b.dtype == _dtypes.ml_dtypes.bfloat16
        np.testing.assert_array_equal(b.view(np.uint16), bits)
    # uint16 going to bf16 is taken as bits, not converted as integers.
    assert tpulayout.to_device(bits, BF16).tobytes() == tpulayout.to_device(a, BF16).tobytes()


def test_from_device_dtype_by_xla_name():
    a = np.random.default_rng(8).standard_normal((16, 256)).astype(np.float32)
    img = tpulayout.to_device(a, BF16)
    np.testing.assert_array_equal(tpulayout.from_device(img, BF16, dtype="f32"),
                                  tpulayout.from_device(img, BF16, dtype=np.float32))
    assert tpulayout.from_device(img, BF16, dtype="bf16").dtype == _dtypes.numpy_type("bf16")


def test_s4_without_ml_dtypes_comes_as_int8():
    a = np.arange(-8, 8, dtype=np.int8).repeat(8).reshape(64, 2)
    shape = "s4[64,2]{1,0:T(64,128)(8,1)E(4)}"
    back = tpulayout.from_device(tpulayout.to_device(a, shape), shape)
    np.testing.assert_array_equal(back.astype(np.int8), a)


def test_plan_reuse_does_not_allocate():
    src = np.random.default_rng(6).standard_normal((256, 256)).astype(np.float32)
    out = np.empty(256 * 256 * 2, np.uint8)
    with tpulayout.Plan("f32[256,256]", "bf16[256,256]{1,0:T(8,128)(2,1)}", workers=1) as p:
        assert p.kernel == "interleave" and p.src_bytes == src.nbytes and p.dst_bytes == out.nbytes
        p.copy(src, out)
        tracemalloc.start()
        for _ in range(100):
            p.copy(src, out)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < 4096, peak
    assert out.tobytes() == tpulayout.to_device(src, "bf16[256,256]{1,0:T(8,128)(2,1)}").tobytes()


def test_zero_copy_peak_memory():
    """to_device and from_device allocate the result and nothing of the array's size
    besides (measured on 64 MiB; bench.py --memory measures 1 GiB)."""
    a = np.ones((4096, 4096), np.float32)
    shape = "bf16[4096,4096]{1,0:T(8,128)(2,1)}"
    tracemalloc.start()
    img = tpulayout.to_device(a, shape)
    _, peak = tracemalloc.get_traced_memory()
    assert peak < img.nbytes * 1.05 + (1 << 20), peak
    tracemalloc.reset_peak()
    base, _ = tracemalloc.get_traced_memory()
    tpulayout.to_device(a, shape, out=img)
    _, peak2 = tracemalloc.get_traced_memory()
    assert peak2 - base < (1 << 20), peak2 - base
    back = tpulayout.from_device(img, shape, dtype=np.float32)
    _, peak3 = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak3 - base < a.nbytes * 1.05 + (1 << 20), peak3 - base
    assert (back == 1).all()


def test_threads_convert_at_once():
    """Four Python threads convert different arrays through one shared plan and their
    own calls at the same time; every result is exact."""
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal((512, 1024)).astype(np.float32) for _ in range(4)]
    shape = "bf16[512,1024]{1,0:T(8,128)(2,1)}"
    want = [device_bytes(f32_to_bf16_bits(a).reshape(a.shape), [1, 0], [(8, 128), (2, 1)]) for a in arrays]
    plan = tpulayout.Plan("f32[512,1024]", shape, workers=2)
    errors = []
    start = threading.Barrier(4)

    def work(k):
        try:
            start.wait()
            for _ in range(10):
                assert tpulayout.to_device(arrays[k], shape).tobytes() == want[k]
                assert plan.copy(arrays[k]).tobytes() == want[k]
                back = tpulayout.from_device(want[k], shape, dtype=np.float32)
                np.testing.assert_array_equal(back, bf16_bits_to_f32(f32_to_bf16_bits(arrays[k]).reshape(512, 1024)))
        except BaseException as e:  # reported in the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    plan.close()
    assert not errors, errors


def test_partial_last_byte_is_zeroed():
    """s4 elements that end inside the last byte leave its other bits zero even over a
    dirty out buffer (relayout itself leaves them as they were)."""
    out = bytearray(b"\xff\xff")
    tpulayout.to_device(np.array([1, 2, 3], np.int8), "s4[3]{0:E(4)}", out=out)
    assert bytes(out) == b"\x21\x03"
    img = tpulayout.empty(64)
    img[:] = 0xFF
    tpulayout.to_device(np.full((3, 41), -1, np.int8), "s4[3,41]{1,0:E(4)}", out=img[:62])
    assert img[61] == 0x0F and (img[:61] == 0xFF).all()


def test_empty_is_aligned():
    for shape, dt in [(100, np.uint8), ((3, 5), np.float32), ((8192, 8), np.uint16)]:
        a = tpulayout.empty(shape, dt)
        assert a.ctypes.data % 64 == 0 and a.flags.c_contiguous and a.dtype == dt
    assert tpulayout.to_device(np.ones((16, 256), np.float32), BF16).ctypes.data % 64 == 0
    assert tpulayout.from_device(bytes(8192), BF16).ctypes.data % 64 == 0


def random_view(r, base):
    """A random view of base: slices with steps in the major dims, offsets, a transpose."""
    idx = []
    for k, n in enumerate(base.shape):
        lo = r.randrange(0, max(1, n // 3))
        hi = r.randrange(lo + 1, n + 1)
        step = r.choice([1, 1, 1, 2, 3]) if k < base.ndim - 1 else r.choice([1, 1, 1, 1, 2])
        idx.append(slice(lo, hi, step))
    v = base[tuple(idx)]
    if r.random() < 0.3:
        v = v.T
    return v


@pytest.mark.parametrize("i", range(60))
def test_views_in_place(i):
    """to_device reads sliced views as they are and from_device writes into them,
    leaving every element around them untouched; both equal NumPy on a C-order copy."""
    import random

    r = random.Random(9000 + i)
    rank = r.choice([1, 2, 2, 3])
    base_shape = tuple(r.choice([1, 3, 8, 17, 40, 130]) for _ in range(rank))
    dt = r.choice([np.float32, np.int8, np.uint16])
    base = np.random.default_rng(i).integers(0, 100, base_shape).astype(dt)
    if r.random() < 0.3:
        base = np.asfortranarray(base)
    v = random_view(r, base)
    xla = {np.float32: "f32", np.int8: "s8", np.uint16: "u16"}[dt]
    dims = ",".join(map(str, v.shape))
    tiles = r.choice(["", ":T(8,128)", ":T(4,8)", ":T(2,128)(2,1)"]) if v.ndim >= 2 else ""
    m2m = ",".join(map(str, range(v.ndim - 1, -1, -1)))
    shape = f"{xla}[{dims}]{{{m2m}{tiles}}}"
    want = tpulayout.to_device(np.ascontiguousarray(v), shape)
    assert tpulayout.to_device(v, shape).tobytes() == want.tobytes()

    canary = base.copy(order="K")  # the same memory order as base
    # The same view of the canary copy: rebuild it from the offsets of v in base.
    off = v.ctypes.data - base.ctypes.data
    tv = np.lib.stride_tricks.as_strided(canary.reshape(-1, order="A")[off // canary.itemsize:],
                                         v.shape, v.strides)
    before = canary.copy(order="K")
    marks = np.zeros_like(base)
    np.lib.stride_tricks.as_strided(marks.reshape(-1, order="A")[off // canary.itemsize:],
                                    v.shape, v.strides)[...] = 1
    mask = marks == 1
    img = tpulayout.to_device((np.ascontiguousarray(v) + 1).astype(dt), shape)
    tpulayout.from_device(img, shape, out=tv)
    np.testing.assert_array_equal(tv, (np.ascontiguousarray(v) + 1).astype(dt))
    np.testing.assert_array_equal(canary[~mask], before[~mask])


def test_padded_view_is_not_copied():
    """A padded slice is read in place when the memory its layout spans (to the stride
    of its last row) lies inside the array it was sliced from; else it is copied once."""
    base = np.ones((4097, 4096 + 128), np.float32)
    shape = "bf16[4096,4096]{1,0:T(8,128)(2,1)}"
    out = tpulayout.empty(4096 * 4096 * 2)
    for v, copied in [(base[:-1, :4096], False), (base[:-1, 64:4096 + 64], False),
                      (base[1:, 64:4096 + 64], True)]:
        tracemalloc.start()
        tpulayout.to_device(v, shape, out=out)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert (peak > v.size * 4) == copied, peak
        assert out.tobytes() == tpulayout.to_device(np.ascontiguousarray(v), shape).tobytes()


def test_time_in_go_copies():
    """The benchmark's in-Go loop does the same copy as Plan.copy."""
    src = np.random.default_rng(12).integers(0, 2**16, (256, 256)).astype(np.uint16)
    out = tpulayout.empty(256 * 256 * 2)
    with tpulayout.Plan("bf16[256,256]{1,0}", "bf16[256,256]{1,0:T(8,128)(2,1)}") as p:
        assert p._time_in_go(src, out, 3) > 0
        assert out.tobytes() == p.copy(src).tobytes()
        with pytest.raises(tpulayout.SizeError):
            p._time_in_go(src[:-1], out, 1)


def test_small_plans_are_kept_large_ones_freed():
    from tpulayout import _core

    rng = np.random.default_rng(13)
    for n in range(1, 80):  # more shapes than the cache keeps: the oldest are evicted
        a = rng.standard_normal((n, 130)).astype(np.float32)
        shape = f"bf16[{n},130]{{1,0:T(8,128)(2,1)}}"
        img = tpulayout.to_device(a, shape)
        want = device_bytes(f32_to_bf16_bits(a).reshape(a.shape), [1, 0], [(8, 128), (2, 1)])
        assert img.tobytes() == want
        np.testing.assert_array_equal(tpulayout.from_device(img, shape, dtype=np.float32),
                                      bf16_bits_to_f32(f32_to_bf16_bits(a).reshape(a.shape)))
    assert len(_core._plans) == _core._CACHE_MAX_PLANS
    assert all(p._handle for p in _core._plans.values())
    big = np.ones((2048, 2048), np.float32)
    tpulayout.to_device(big, "bf16[2048,2048]{1,0:T(8,128)(2,1)}")
    assert not any("2048" in k[0] for k in _core._plans)


def test_gil_released_during_copies():
    """Another Python thread runs while a copy is inside the Go library: it records
    times in the middle fifth of the call. With the GIL held (ctypes.PyDLL) it could
    only run in the switch interval before the call starts, so the middle of a long
    copy holds none of its times (checked by swapping CDLL for PyDLL: 0 of 9 calls)."""
    import time

    a = np.ones((8192, 8192), np.float32)
    shape = "bf16[8192,8192]{1,0:T(8,128)(2,1)}"
    out = tpulayout.empty(8192 * 8192 * 2)
    plan = tpulayout.Plan("f32[8192,8192]", shape, workers=1)
    plan.copy(a, out)
    stamps, stop = [], threading.Event()

    def tick():
        while not stop.is_set():
            stamps.append(time.perf_counter())

    t = threading.Thread(target=tick)
    t.start()
    hits = 0
    try:
        for _ in range(3):
            time.sleep(0.02)
            t0 = time.perf_counter()
            plan.copy(a, out)
            t1 = time.perf_counter()
            lo, hi = t0 + 0.4 * (t1 - t0), t0 + 0.6 * (t1 - t0)
            hits += any(lo < s < hi for s in stamps[-500000:])
    finally:
        stop.set()
        t.join()
    assert hits >= 2, hits


@pytest.mark.parametrize("dst", ["{1,0:T(8,128)}", "tpu:v5e"])
def test_relayout_dst_layout_alone(dst):
    # As to_device: a layout alone or tpu:GEN takes the source's dims and type.
    a = np.arange(15, dtype=np.float32).reshape(3, 5)
    want = tpulayout.to_device(a, dst)
    got = tpulayout.relayout(a.tobytes(), "f32[3,5]", dst)
    assert got.tobytes() == want.tobytes()
    plan = tpulayout.Plan("f32[3,5]", dst)
    assert plan.dst == tpulayout.Plan("f32[3,5]{1,0}", plan.dst).dst
    assert plan.copy(a.tobytes()).tobytes() == want.tobytes()
