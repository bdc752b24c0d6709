"""Every error path raises a clear Python exception; none crashes the interpreter."""

import mmap

import numpy as np
import pytest

import tpulayout
from tpulayout import (BufferArgumentError, InputError, LayoutError, ShapeError, SizeError,
                       TpulayoutError)

BF16 = "bf16[16,256]{1,0:T(8,128)(2,1)}"


def test_layout_error_has_go_message_and_position():
    with pytest.raises(LayoutError) as e:
        tpulayout.parse("f32[2,3]{0,0}")
    assert isinstance(e.value, ValueError)
    assert str(e.value) == 'layout: parse "f32[2,3]{0,0}": at byte 11: minor_to_major repeats dimension 0'
    assert e.value.position == 11
    assert e.value.text == "f32[2,3]{0,0}"
    with pytest.raises(LayoutError) as e:
        tpulayout.to_device(np.zeros((2, 3), np.float32), "f32[2,3]{1,0:T(8,128}")
    assert e.value.position > 0


@pytest.mark.parametrize("text", ["", "f32", "f32[2,3]{1,0:T(0,1)}", "(f32[2], s8[3])", "xyz[3]"])
def test_bad_shapes(text):
    with pytest.raises(ValueError):
        tpulayout.parse(text)


def test_shape_mismatch():
    with pytest.raises(ShapeError) as e:
        tpulayout.to_device(np.zeros((3, 5), np.float32), "f32[3,6]{1,0:T(8,128)}")
    assert isinstance(e.value, ValueError)
    with pytest.raises(ShapeError):
        tpulayout.relayout(bytes(60), "f32[3,5]", "f32[5,3]")


def test_out_wrong_size_names_both_sizes():
    a = np.zeros((16, 256), np.float32)
    with pytest.raises(SizeError, match="8191 bytes, want 8192"):
        tpulayout.to_device(a, BF16, out=bytearray(8191))


def test_out_read_only():
    a = np.zeros((16, 256), np.float32)
    with pytest.raises(BufferArgumentError, match="read-only"):
        tpulayout.to_device(a, BF16, out=bytes(8192))
    ro = np.zeros(8192, np.uint8)
    ro.flags.writeable = False
    with pytest.raises(BufferArgumentError, match="read-only"):
        tpulayout.to_device(a, BF16, out=ro)
    with pytest.raises(BufferArgumentError, match="read-only"):
        tpulayout.Plan("f32[16,256]", BF16).copy(a, memoryview(bytes(8192)))


def test_out_not_contiguous_or_not_a_buffer():
    a = np.zeros((16, 256), np.float32)
    with pytest.raises(BufferArgumentError, match="contiguous"):
        tpulayout.to_device(a, BF16, out=memoryview(bytearray(16384))[::2])
    with pytest.raises(BufferArgumentError, match="contiguous"):
        tpulayout.to_device(a, BF16, out=np.zeros(16384, np.uint8)[::2])
    with pytest.raises(BufferArgumentError, match="buffer"):
        tpulayout.to_device(a, BF16, out=[0] * 8192)
    with pytest.raises(BufferArgumentError, match="buffer"):
        tpulayout.from_device("not bytes", BF16)


def test_from_device_errors():
    with pytest.raises(SizeError, match="8000 bytes, want 8192"):
        tpulayout.from_device(bytes(8000), BF16)
    with pytest.raises(BufferArgumentError, match="contiguous"):
        tpulayout.from_device(memoryview(bytes(16384))[::2], BF16)
    with pytest.raises(SizeError, match="shape"):
        tpulayout.from_device(bytes(8192), BF16, out=np.zeros((16, 255), np.float32))
    ro = np.zeros((16, 256), np.float32)
    ro.flags.writeable = False
    with pytest.raises(BufferArgumentError, match="read-only"):
        tpulayout.from_device(bytes(8192), BF16, out=ro)
    with pytest.raises(InputError, match="dtype"):
        tpulayout.from_device(bytes(8192), BF16, dtype=np.float64, out=np.zeros((16, 256), np.float32))


def test_bad_options():
    a = np.zeros((16, 256), np.float32)
    with pytest.raises(InputError):
        tpulayout.to_device(a, BF16, workers=0)
    with pytest.raises(InputError):
        tpulayout.to_device(a, BF16, pad="sometimes")
    with pytest.raises(InputError):
        tpulayout.to_device(a, BF16, dtype="bf16")  # a full shape already has a type
    with pytest.raises(InputError, match="generation"):
        tpulayout.default_layout((8, 128), "bf16", gen="v99")
    with pytest.raises(TypeError):
        tpulayout.default_layout((8, 128), "bfloat17")
    with pytest.raises(TypeError, match="big-endian"):
        tpulayout.to_device(np.zeros(4, ">f4"), "f32[4]")
    with pytest.raises(TypeError, match="no XLA element type"):
        tpulayout.to_device(np.zeros(4, object), "f32[4]")


def test_unsupported_conversion():
    with pytest.raises(TpulayoutError) as e:
        tpulayout.to_device(np.zeros(4, np.complex64), "s4[4]{0:E(4)}")
    assert isinstance(e.value, ValueError)


def test_closed_plan():
    p = tpulayout.Plan("f32[16,256]", BF16)
    p.close()
    p.close()
    with pytest.raises(InputError, match="closed"):
        p.copy(np.zeros((16, 256), np.float32))


def test_plan_wrong_source_size():
    p = tpulayout.Plan("f32[16,256]", BF16)
    with pytest.raises(SizeError, match="src has 100 bytes, want 16384"):
        p.copy(bytes(100))


def test_mmap_source_and_destination(tmp_path):
    a = np.random.default_rng(1).standard_normal((16, 256)).astype(np.float32)
    path = tmp_path / "img.bin"
    path.write_bytes(bytes(8192))
    with open(path, "r+b") as f, mmap.mmap(f.fileno(), 0) as m:
        tpulayout.to_device(a, BF16, out=m)
        ref = tpulayout.to_device(a, BF16)
        assert m[:] == ref.tobytes()
        back = tpulayout.from_device(m, BF16, dtype=np.float32)
    np.testing.assert_allclose(back, a, rtol=1 / 128)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        with pytest.raises(BufferArgumentError):
            tpulayout.to_device(a, BF16, out=m)


def test_misaligned_buffers():
    """Buffers at odd addresses are copied correctly (the kernels take unaligned heads)."""
    a = np.random.default_rng(2).standard_normal((16, 256)).astype(np.float32)
    ref = tpulayout.to_device(a, BF16)
    raw = bytearray(8192 + 1)
    out = memoryview(raw)[1:]
    tpulayout.to_device(a, BF16, out=out)
    assert bytes(out) == ref.tobytes()
    src = np.frombuffer(bytearray(a.nbytes + 3), np.uint8)[3:]
    src[:] = a.view(np.uint8).reshape(-1)
    assert tpulayout.Plan("f32[16,256]", BF16).copy(src).tobytes() == ref.tobytes()
    back = tpulayout.from_device(memoryview(bytes(1) + ref.tobytes())[1:], BF16, dtype=np.float32)
    np.testing.assert_array_equal(back, tpulayout.from_device(ref, BF16, dtype=np.float32))


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_forked_child_raises_instead_of_hanging():
    import os
    import signal

    a = np.ones((16, 256), np.float32)
    plan = tpulayout.Plan("f32[16,256]", BF16)
    tpulayout.to_device(a, BF16)
    pid = os.fork()
    if pid == 0:  # the child: every entry point raises; exit status 0 only if all did
        signal.alarm(20)
        ok = 0
        for f in (lambda: tpulayout.to_device(a, BF16), lambda: plan.copy(a),
                  lambda: tpulayout.parse(BF16), lambda: tpulayout.validate(bytes(8192), BF16, a)):
            try:
                f()
            except TpulayoutError as e:
                ok += "fork" in str(e)
        os._exit(0 if ok == 4 else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    np.testing.assert_array_equal(plan.copy(a), tpulayout.to_device(a, BF16))  # the parent still works


@pytest.mark.parametrize("shape", [(3.5, 4), (-3, 4), (2**64, 4), ("3", 4), (2**62, 2**62)])
def test_default_layout_bad_dims(shape):
    # (3.5, 4) gave bf16[3,4], (2**64, 4) gave bf16[0,4] and (2**62, 2**62) a layout
    # whose footprint overflows: another shape, unsaid.
    with pytest.raises(TpulayoutError):
        tpulayout.default_layout(shape, "bf16")


@pytest.mark.parametrize("shape", [(-3, 5), (2.5,), -1])
def test_empty_bad_dims(shape):
    # empty((-3, 5)) returned an array of shape (0, 5).
    with pytest.raises(InputError):
        tpulayout.empty(shape, np.float32)


@pytest.mark.parametrize("kw", [{"ulp": -1}, {"ulp": 1.5}, {"abs": float("nan")}, {"abs": -1},
                                {"rel": -0.5}, {"abs": "x"}, {"max_listed": 10**20},
                                {"max_listed": 2.5}])
def test_validate_bad_tolerances(kw):
    # ulp=-1 and max_listed=10**20 raised Go's JSON messages, abs=nan a JSON syntax
    # error; ulp=1.5 and abs=-1 were taken silently (the CLI's --tol refuses them).
    a = np.ones((3, 5), np.float32)
    with pytest.raises(InputError):
        tpulayout.validate(bytes(60), "f32[3,5]", a, **kw)


def test_validate_infinite_tolerance():
    # rel=inf, as the CLI's --tol rel=inf, raised "invalid character 'I'".
    a = np.ones((3, 5), np.float32)
    rep = tpulayout.validate(tpulayout.to_device(a * 2, "f32[3,5]"), "f32[3,5]", a, rel=float("inf"))
    assert rep.ok


@pytest.mark.parametrize("workers", [2**40, 2**32 + 1, True])
def test_workers_out_of_c_int(workers):
    # workers=2**40 reached Go as 0 (all cores) and 2**32+1 as 1: ctypes wraps a C int.
    with pytest.raises(InputError):
        tpulayout.Plan("f32[3,5]", "f32[3,5]{1,0:T(8,128)}", workers=workers)


@pytest.mark.parametrize("name,want", [("u8", np.uint8), ("f16", np.float16), ("f32", np.float32),
                                       ("s8", np.int8), ("u16", np.uint16)])
def test_empty_takes_xla_names(name, want):
    # empty(shape, "u8") was uint64 and "f16" float128 (NumPy's codes), "f32" a TypeError,
    # though every other dtype= of the package reads XLA names.
    assert tpulayout.empty((2, 3), name).dtype == want
