"""validate() and check() against the command's JSON and on known mistakes."""

import json
import os
import shutil
import subprocess

import numpy as np
import pytest

import tpulayout
from tpulayout import InputError, LayoutMismatch, SizeError, ShapeError

L = "bf16[256,1024]{1,0:T(8,128)(2,1)}"


@pytest.fixture(scope="module")
def ref():
    return np.random.default_rng(11).standard_normal((256, 1024)).astype(np.float32)


def test_ok(ref):
    r = tpulayout.validate(tpulayout.to_device(ref, L), L, ref)
    assert r.ok and bool(r) and r.mismatches == 0 and r.first == [] and r.diagnosis is None
    assert r.elements == 256 * 1024 and r.compare_dtype == "bf16"
    assert tpulayout.check(tpulayout.to_device(ref, L), L, ref).ok


def test_missing_packing_is_diagnosed(ref):
    bad = tpulayout.to_device(ref, "bf16[256,1024]{1,0:T(8,128)}")
    r = tpulayout.validate(bad, L, ref, max_listed=5)
    assert not r.ok and r.mismatches > 250000 and len(r.first) == 5
    assert r.first[0]["index"] == [0, 1] and r.first[0]["byte_offset"] == 4
    assert r.diagnosis["best"]["arrangement"] == "no-packing"
    assert "MISMATCH" in str(r)
    with pytest.raises(LayoutMismatch) as e:
        tpulayout.check(bad, L, ref)
    assert e.value.report.mismatches == r.mismatches
    assert "no-packing" in str(e.value) or "packing" in str(e.value)


def test_tolerance_and_padding(ref):
    img = tpulayout.to_device(ref, L)
    w = img.view(np.uint16).copy()
    w[0] += 1  # one ulp off at (0,0)
    assert tpulayout.validate(w, L, ref).mismatches == 1
    assert tpulayout.validate(w, L, ref, ulp=1).ok
    shape = "bf16[3,5]{1,0:T(8,128)(2,1)}"
    small = np.ones((3, 5), np.float32)
    padded = tpulayout.to_device(small, shape, pad=7)
    assert tpulayout.validate(padded, shape, small).ok
    r = tpulayout.validate(padded, shape, small, check_padding=True)
    assert not r.ok and r.padding_mismatches == 8 * 128 - 15


def test_raw_reference_in_any_layout(ref):
    img = tpulayout.to_device(ref, L)
    col = tpulayout.to_device(ref, "f32[256,1024]{0,1}")
    assert tpulayout.validate(img, L, col, ref_layout="f32[256,1024]{0,1}").ok
    assert tpulayout.validate(img, L, np.asfortranarray(ref)).ok
    big = np.zeros((257, 1100), np.float32)  # a padded slice of a bigger array, in place
    big[:256, 30:1054] = ref
    assert tpulayout.validate(img, L, big[:256, 30:1054]).ok
    assert tpulayout.validate(img, L, big[:256, 31:1055]).mismatches > 0


def test_errors(ref):
    img = tpulayout.to_device(ref, L)
    with pytest.raises(SizeError):
        tpulayout.validate(img[:-2], L, ref)
    with pytest.raises(ValueError):
        tpulayout.validate(img, L, ref[:, :1000])
    with pytest.raises(InputError):
        tpulayout.validate(img, L, ref, gen="v99")
    with pytest.raises(ValueError):
        tpulayout.validate(img, "bf16[256,1024]{1,0:T(8,128)(2,1}", ref)


@pytest.mark.skipif(shutil.which("go") is None, reason="needs the Go toolchain")
def test_same_json_as_the_command(ref, tmp_path):
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    cli = tmp_path / "tpulayout"
    subprocess.run(["go", "build", "-o", str(cli), "./cmd/tpulayout"], cwd=root, check=True)
    bad = tpulayout.to_device(ref, "bf16[256,1024]{1,0:T(8,128)}")
    (tmp_path / "dump.bin").write_bytes(bad.tobytes())
    np.save(tmp_path / "ref.npy", ref)
    run = subprocess.run([str(cli), "validate", str(tmp_path / "dump.bin"), "--layout", L,
                          "--ref", str(tmp_path / "ref.npy"), "--json", "--max", "7"],
                         capture_output=True, text=True)
    assert run.returncode == 1, run.stderr
    want = json.loads(run.stdout)
    got = tpulayout.validate(bad, L, ref, max_listed=7).json
    for k in ("dump", "ref"):
        want.pop(k, None)
    assert got == want
