"""Conversions from Python have XLA's bits: every f32 input that XLA's convert was
recorded on (testdata/xla/conversions.zip, see testdata/xla/README.md) converted to each
type, and every bit pattern of each narrow type widened to f32, through
tpulayout.relayout. The one decided difference: f32 subnormals to f64 and pred keep
their value (as NumPy does), where the recording's CPU backend read them as zero
(docs/conversions.md)."""

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest

import tpulayout

ZIP = Path(__file__).resolve().parents[2] / "testdata" / "xla" / "conversions.zip"

TYPES = ("bf16 f16 f64 s8 u8 s16 u16 s32 u32 s64 u64 pred f8e4m3fn f8e5m2 f8e4m3fnuz "
         "f8e5m2fnuz f8e4m3b11fnuz f8e3m4 f8e4m3 f8e8m0fnu f4e2m1fn s4 u4 s2 u2").split()
WIDENED = [t for t in TYPES if t not in ("f64", "s32", "u32", "s64", "u64", "pred")]
# Bytes an element takes in a dense layout: sub-byte types one byte each.
WIDTH = {"f64": 8, "s64": 8, "u64": 8, "s32": 4, "u32": 4, "bf16": 2, "f16": 2, "s16": 2, "u16": 2}
# The bits of a sub-byte type's value: the recording holds them zero-extended in a byte,
# and a whole-byte s4 or s2 here holds the same integer sign-extended (-1 is 0xff, as in
# an int8; buffer.Widen), so the two are compared in the type's own bits.
BITS = {"s4": 4, "u4": 4, "f4e2m1fn": 4, "s2": 2, "u2": 2}


@pytest.fixture(scope="module")
def recorded():
    with zipfile.ZipFile(ZIP) as z:
        return {n[:-4]: np.load(io.BytesIO(z.read(n))) for n in z.namelist() if n.endswith(".npy")}


def subnormal(bits):
    return ((bits & 0x7F800000) == 0) & ((bits & 0x7FFFFF) != 0)


@pytest.mark.parametrize("ty", TYPES)
def test_from_f32(recorded, ty):
    x = recorded["input_f32"]
    n = x.size
    out = tpulayout.relayout(x.tobytes(), f"f32[{n}]{{0}}", f"{ty}[{n}]{{0}}")
    w = WIDTH.get(ty, 1)
    got = np.frombuffer(bytes(out), dtype=f"<u{w}")
    if ty in BITS:
        assert (got[got >= 1 << BITS[ty]] >= 256 - (1 << (BITS[ty] - 1))).all()  # sign-extended
        got = got & ((1 << BITS[ty]) - 1)
    want = recorded[f"xla_from_f32_{ty}"]
    assert got.size == want.size == n
    keep = np.zeros(n, dtype=bool)
    if ty in ("f64", "pred"):
        keep = subnormal(x.view(np.uint32))
        assert keep.sum() == 1287  # the recorded inputs that are f32 subnormals
        sign = (x.view(np.uint32)[keep] >> 31).astype(np.uint64) << 63
        if ty == "f64":
            assert (want[keep] == sign).all()  # the recording: ±0.0
            assert (got[keep] == x[keep].astype(np.float64).view(np.uint64)).all()  # here: the value
        else:
            assert (want[keep] == 0).all() and (got[keep] == 1).all()
    bad = np.nonzero((got != want) & ~keep)[0]
    assert bad.size == 0, (f"f32 → {ty}: {bad.size} of {n} differ from XLA, first: "
                           f"0x{x.view(np.uint32)[bad[0]]:08x} → 0x{int(got[bad[0]]):x}, XLA 0x{int(want[bad[0]]):x}")


@pytest.mark.parametrize("ty", WIDENED)
def test_to_f32(recorded, ty):
    pats, want = recorded[f"xla_to_f32_{ty}"]
    w = WIDTH.get(ty, 1)
    n = pats.size
    out = tpulayout.relayout(pats.astype(f"<u{w}").tobytes(), f"{ty}[{n}]{{0}}", f"f32[{n}]{{0}}")
    got = np.frombuffer(bytes(out), dtype="<u4")
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, (f"{ty} → f32: {bad.size} of {n} differ from XLA, first: "
                           f"0x{int(pats[bad[0]]):x} → 0x{int(got[bad[0]]):08x}, XLA 0x{int(want[bad[0]]):08x}")


def test_bf16_tiled(recorded):
    """f32 to bf16 in the TPU's paired tiles (the fused convert-and-interleave kernels),
    read back to the host in row-major order: XLA's bits."""
    x = recorded["input_f32"]
    n = x.size - x.size % 1024
    rows = n // 128
    dev = f"bf16[{rows},128]{{1,0:T(8,128)(2,1)}}"
    img = tpulayout.to_device(x[:n].reshape(rows, 128), dev)
    back = tpulayout.from_device(img, dev, dtype=np.uint16)
    assert (back.reshape(-1) == recorded["xla_from_f32_bf16"][:n]).all()
