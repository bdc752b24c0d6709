"""tpulayout.place against the placements JAX 0.11.2 recorded (testdata/jax, see its
README) and against `tpulayout place --json`: every device's ranges exactly, replicas
one entry, and every case jax.device_put refused refused with the CLI's message."""

import json
import re
import subprocess
from pathlib import Path

import pytest

import tpulayout

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "testdata" / "jax" / "jax-sharding.json"


def jax_cases():
    with open(GOLDEN) as f:
        g = json.load(f)
    assert g["meta"]["jax"] == "0.11.2"
    return g["cases"]


def spec_text(spec):
    """The case's PartitionSpec as Python writes it: P(None, 'x', ('a', 'b'))."""
    def entry(e):
        if e is None:
            return "None"
        if isinstance(e, str):
            return repr(e)
        return "(" + ", ".join(repr(a) for a in e) + ")"
    return "P(" + ", ".join(entry(e) for e in spec) + ")"


def mesh_text(mesh):
    return ",".join(f"{a}={n}" for a, n in zip(mesh["axes"], mesh["sizes"]))


def shape_text(shape):
    return "bf16[" + ",".join(str(d) for d in shape) + "]"


def test_all_recorded_placements():
    cases = jax_cases()
    assert len(cases) == 718
    placed = refused = 0
    for c in cases:
        kw = dict(mesh=mesh_text(c["mesh"]), devices=c["mesh"]["devices"], spec=spec_text(c["spec"]))
        if c["device_put"] != "ok":
            refused += 1
            m = re.search(r"array axis (\d+) is partitioned (\d+)", c["indices_error"])
            dim, count = int(m.group(1)), int(m.group(2))
            want = f"dim {dim} of size {c['shape'][dim]} is not divisible by {count}"
            with pytest.raises(tpulayout.InputError, match=re.escape(want)):
                tpulayout.place(shape_text(c["shape"]), **kw)
            continue
        placed += 1
        r = tpulayout.place(shape_text(c["shape"]), **kw)
        got = {}
        for s in r["shards"]:
            for d in s["devices"]:
                assert d not in got, (c, d)
                got[d] = s["ranges"]
        want = {int(d): v for d, v in c["indices"].items()}
        assert got == want, c
        # Replicas are one entry: no two entries hold the same ranges.
        assert len({json.dumps(s["ranges"]) for s in r["shards"]}) == len(r["shards"]), c
    assert (placed, refused) == (524, 194)


def test_same_as_cli(cli, tmp_path):
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"rules": [{"match": "attn", "spec": 'P(None, "model")'}], "default": "P()"}))
    for args, kw in [
        (["--spec", 'P("data", "model")'], dict(spec='P("data", "model")')),
        (["--spec", "P('model')", "--devices", "7,6,5,4,3,2,1,0"], dict(spec="P('model')", devices=[7, 6, 5, 4, 3, 2, 1, 0])),
        (["--rules", str(rules), "--tensor", "layer.attn.w"], dict(rules=rules, tensor="layer.attn.w")),
        (["--rules", str(rules), "--tensor", "norm"], dict(rules=str(rules), tensor="norm")),
    ]:
        out = subprocess.run([cli, "place", "f32[512,256]{1,0:T(8,128)}", "--mesh", "data=2,model=4", "--json", *args],
                             capture_output=True, text=True, check=True).stdout
        assert tpulayout.place("f32[512,256]{1,0:T(8,128)}", mesh="data=2,model=4", **kw) == json.loads(out), args
    # Rules as the file's object, and devices as text.
    r = tpulayout.place("f32[8,8]", mesh="x=2,y=2", rules={"rules": [{"match": "w", "spec": 'P("y")'}]},
                        tensor="w", devices="3,2,1,0")
    assert r["name"] == "w" and r["spec"] == 'P("y")'
    assert [(s["ranges"], s["devices"]) for s in r["shards"]] == [([[0, 4], [0, 8]], [1, 3]), ([[4, 8], [0, 8]], [0, 2])]


def test_refusals(cli):
    args = ["bf16[16,6]", "--mesh", "x=8", "--spec", 'P(None, "x")', "--tensor", "w"]
    p = subprocess.run([cli, "place", *args], capture_output=True, text=True)
    assert p.returncode == 2
    msg = p.stderr.strip().removeprefix("tpulayout place: ")
    with pytest.raises(tpulayout.InputError) as e:
        tpulayout.place("bf16[16,6]", mesh="x=8", spec='P(None, "x")', tensor="w")
    assert str(e.value) == msg
    assert msg == 'tensor "w" (dims [16,6]): dim 1 of size 6 is not divisible by 8, the product of the mesh axes x(8) that spec P(None, "x") shards it over'
    for kw, want in [
        (dict(mesh="x=8"), "needs one of --spec"),
        (dict(mesh="x=8", rules={"rules": []}), "--rules needs --tensor NAME"),
        (dict(mesh="", spec="P()"), "missing --mesh"),
        (dict(mesh="x=8", spec="P()", devices=[0, 1]), "8 devices, but only 2 device ids"),
    ]:
        with pytest.raises(tpulayout.InputError, match=re.escape(want)):
            tpulayout.place("bf16[16,6]", **kw)
