"""Issue 25 on the Python side: pad range and exactness, pred truth in packed layouts,
and a memory-mapped source truncated under the call."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tpulayout
from tpulayout import InputError


@pytest.mark.parametrize("pad, want", [
    (2**63, "outside s64's range -9223372036854775808 to 9223372036854775807"),
    (-(2**63) - 2048, "outside s64's range"),
    (2**53 + 1, "cannot be written exactly: the pad travels as a float64, which holds 9007199254740992"),
    (2**1100, "cannot be written exactly"),
    (1.5, "not a whole number in s64's range"),
])
def test_pad_range_and_exactness(pad, want):
    """pad=2**63 on s64 wrote 0x7fff…, pad=2**53+1 wrote 2**53; the CLI refuses both."""
    a = np.arange(5, dtype=np.int64)
    with pytest.raises(InputError, match=want.replace("(", r"\(").replace("*", r"\*")):
        tpulayout.to_device(a, "s64[5]{0:T(8)}", pad=pad)


def test_pad_in_range_is_written():
    a = np.arange(5, dtype=np.int64)
    for pad in (2**62, -(2**63), 2**53):
        img = tpulayout.to_device(a, "s64[5]{0:T(8)}", pad=pad).view(np.int64)
        assert list(img[5:]) == [pad] * 3
    img = tpulayout.to_device(a.astype(np.uint64), "u64[5]{0:T(8)}", pad=2**64 - 2048).view(np.uint64)
    assert int(img[7]) == 2**64 - 2048
    with pytest.raises(InputError, match="outside u64's range 0 to 18446744073709551615"):
        tpulayout.to_device(a.astype(np.uint64), "u64[5]{0:T(8)}", pad=2**64)


def test_pred_nonzero_is_true_when_packed():
    """Bytes 00 01 02 ff as pred packed into E(1) became 0x0a: element 2 false."""
    a = np.array([0, 1, 2, 255, 128, 0, 126, 1], np.uint8).view(np.bool_)
    img = tpulayout.to_device(a, "pred[8]{0:E(1)}")
    assert bytes(img) == b"\xde"
    img2 = tpulayout.to_device(a, "pred[8]{0:E(2)}")
    assert bytes(img2) == b"\x54\x51"
    back = tpulayout.from_device(img, "pred[8]{0:E(1)}")
    assert back.tolist() == [False, True, True, True, True, False, True, True]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs a Unix mmap")
def test_from_device_mmap_truncated_raises(tmp_path):
    """from_device on an mmap whose file another process truncated killed the
    interpreter (SIGBUS, Go's "fatal error: fault", exit 134); it must raise naming the
    buffer. Run in a child interpreter, so that a crash fails the test, not pytest."""
    path = tmp_path / "img.bin"
    code = textwrap.dedent(f"""
        import mmap, os, sys
        import numpy as np
        import tpulayout
        shape = "bf16[512,1024]{{1,0:T(8,128)(2,1)}}"
        with open({str(path)!r}, "wb") as f:
            f.truncate(512 * 1024 * 2)
        with open({str(path)!r}, "r+b") as f:
            m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            os.truncate({str(path)!r}, 4096)  # as another process would
            for workers in (1, None):
                try:
                    tpulayout.from_device(m, shape, workers=workers)
                except tpulayout.InputError as e:
                    assert "source buffer" in str(e) and "memory fault" in str(e), e
                    print("raised", workers)
                else:
                    sys.exit("no exception")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr[-2000:])
    assert r.stdout.split("\n")[:2] == ["raised 1", "raised None"], r.stdout
