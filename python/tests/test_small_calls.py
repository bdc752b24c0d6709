"""The fast paths of small calls (to_device/from_device with a plan found by the
arguments' types, dims and strides; array addresses kept by weak reference) give the
bytes the full path gives, and never another array's address."""

import gc
import warnings

import numpy as np
import pytest

import tpulayout
from tpulayout import _core

DEV = "bf16[8,128]{1,0:T(8,128)(2,1)}"


def test_to_device_fast_path_is_taken_and_exact():
    _core._fast.clear()
    x = np.arange(1024, dtype=np.uint16).reshape(8, 128)
    img = tpulayout.empty(2048)
    tpulayout.to_device(x, DEV, out=img)
    assert any(k[0] == "to" and k[1] == DEV for k in _core._fast), "the call was not kept"
    want = img.copy()
    img[:] = 0
    for _ in range(3):
        y = x + 1  # a new array of the same kind: same key, another address
        assert tpulayout.to_device(y, DEV, out=img) is img
        assert np.array_equal(img, tpulayout.to_device(y, DEV, workers=2))
    tpulayout.to_device(x, DEV, out=img)
    assert np.array_equal(img, want)


def test_same_dims_other_strides_take_their_own_plan():
    _core._fast.clear()
    x = np.arange(1024, dtype=np.uint16).reshape(8, 128)
    want = tpulayout.to_device(x, DEV)
    f = np.asfortranarray(x)  # same dtype and dims, other strides
    assert np.array_equal(tpulayout.to_device(f, DEV), want)
    big = np.zeros((8, 256), np.uint16)
    big[:, :128] = x
    view = big[:, :128]  # a padded view: its plan depends on the memory around it
    assert np.array_equal(tpulayout.to_device(view, DEV), want)
    assert not any(k[0] == "to" and k[7] == view.strides for k in _core._fast)
    assert np.array_equal(tpulayout.to_device(x, DEV), want)


def test_fast_path_keeps_the_checks():
    x = np.ones((8, 128), np.uint16)
    img = tpulayout.empty(2048)
    tpulayout.to_device(x, DEV, out=img)
    tpulayout.to_device(x, DEV, out=img)
    ro = tpulayout.empty(2048)
    ro.flags.writeable = False
    with pytest.raises(tpulayout.BufferArgumentError, match="read-only"):
        tpulayout.to_device(x, DEV, out=ro)
    with pytest.raises(tpulayout.SizeError, match="2047 bytes, want 2048"):
        tpulayout.to_device(x, DEV, out=tpulayout.empty(2047))
    host = np.empty((8, 128), np.uint16)
    tpulayout.from_device(img, DEV, out=host)
    tpulayout.from_device(img, DEV, out=host)
    assert np.array_equal(host, x)
    host.flags.writeable = False
    with pytest.raises(tpulayout.BufferArgumentError, match="read-only"):
        tpulayout.from_device(img, DEV, out=host)
    with pytest.raises(tpulayout.SizeError):
        tpulayout.from_device(img[:-1], DEV, out=np.empty((8, 128), np.uint16))


def test_from_device_fast_path_is_exact():
    _core._fast.clear()
    x = np.arange(1024, dtype=np.uint16).reshape(8, 128)
    img = tpulayout.to_device(x, DEV)
    host = np.empty((8, 128), np.uint16)
    tpulayout.from_device(img, DEV, out=host)
    assert any(k[0] == "from" for k in _core._fast)
    for i in range(3):
        y = x * (i + 2)
        assert np.array_equal(tpulayout.from_device(tpulayout.to_device(y, DEV), DEV, out=host), y)


def test_addresses_follow_arrays():
    seen = 0
    for _ in range(50):
        a = np.zeros(64, np.uint8)
        assert _core._address(a) == a.ctypes.data
        del a
        gc.collect()
        b = np.ones(64, np.uint8)  # often takes the dead array's id
        assert _core._address(b) == b.ctypes.data
        seen += 1
    assert seen == 50
    c = np.zeros(64, np.uint8)
    _core._address(c)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            c.data = np.ones(64, np.uint8).data  # moves the data: .base changes
        except AttributeError:
            pytest.skip("this NumPy does not allow assigning .data")
    assert _core._address(c) == c.ctypes.data


def test_eviction_clears_the_fast_table():
    x = np.ones((8, 128), np.uint16)
    tpulayout.to_device(x, DEV)
    assert _core._fast
    for n in range(1, _core._CACHE_MAX_PLANS + 2):  # as many other small plans
        tpulayout.to_device(np.ones((n, 3), np.float32), "tpu:v5e")
    assert not any(k[1] == DEV for k in _core._fast)
    host = np.empty((8, 128), np.uint16)
    assert np.array_equal(tpulayout.from_device(tpulayout.to_device(x, DEV), DEV, out=host), x)
