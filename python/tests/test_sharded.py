"""tpulayout.shard, merge, verify, gather and Sharded against the CLI: the same JSON as
`tpulayout convert --mesh … --json`, `manifest merge --json`, `verify --json` and
`gather --json`, the same files, and the CLI's messages for bad input."""

import json
import os
import struct
import subprocess
import uuid
from pathlib import Path

import numpy as np
import pytest

import tpulayout

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "testdata" / "sharding" / "mesh2d_both.safetensors"


def write_safetensors(path, arrays):
    """A safetensors file of {name: array} (f32, s32, u16 as bf16 bits)."""
    codes = {np.dtype(np.float32): "F32", np.dtype(np.int32): "I32", np.dtype(np.uint16): "BF16"}
    header, off, blobs = {}, 0, []
    for name, a in arrays.items():
        b = np.ascontiguousarray(a).tobytes()
        header[name] = {"dtype": codes[a.dtype], "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    Path(path).write_bytes(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def read_safetensors(path):
    data = Path(path).read_bytes()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    return {k: (v, data[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]]) for k, v in header.items()}


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    """A checkpoint of several tensors: f32 weights, an int tensor, a vector."""
    rng = np.random.default_rng(28)
    p = tmp_path_factory.mktemp("ckpt") / "model.safetensors"
    write_safetensors(p, {
        "layers.0.attn.wq": rng.standard_normal((16, 256), dtype=np.float32),
        "layers.0.mlp.w1": rng.standard_normal((32, 128), dtype=np.float32),
        "embed": rng.standard_normal((64, 256), dtype=np.float32),
        "steps": np.arange(8 * 128, dtype=np.int32).reshape(8, 128),
    })
    return p


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    p = tmp_path_factory.mktemp("rules") / "rules.json"
    p.write_text(json.dumps({"rules": [
        {"match": r"attn\.wq$", "spec": 'P(None, "model")'},
        {"match": r"mlp\.w1$", "spec": 'P("data", "model")'},
        {"match": "^embed$", "spec": 'P("model")'}], "default": "P()"}))
    return p


def run_cli(cli, *args, ok=(0,)):
    p = subprocess.run([cli, *map(str, args)], capture_output=True, text=True)
    assert p.returncode in ok, p.stderr
    return p


def cli_json(cli, *args, ok=(0,)):
    return json.loads(run_cli(cli, *args, "--json", ok=ok).stdout)


def tree(d):
    d = Path(d)
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def summary_without_path(s):
    return {k: v for k, v in s.items() if k != "manifest_path"}


CASES = [  # (Python keywords, the CLI's flags)
    (dict(mesh="data=2,model=2", rules="RULES", to="tpu:v5e", dtype="s8"),  # guessed defaults
     ["--mesh", "data=2,model=2", "--rules", "RULES", "--to", "tpu:v5e", "--dtype", "s8", "--all"]),
    (dict(mesh="data=2,model=2", rules="RULES", to="tpu:v5e", dtype="bf16"),
     ["--mesh", "data=2,model=2", "--rules", "RULES", "--to", "tpu:v5e", "--dtype", "bf16", "--all"]),
    (dict(mesh="x=4", spec="P()", to="{1,0:T(8,128)}", devices=[3, 1, 0, 2]),
     ["--mesh", "x=4", "--spec", "P()", "--to", "{1,0:T(8,128)}", "--devices", "3,1,0,2", "--all"]),
    (dict(mesh="data=2,model=2", rules="RULES", to="tpu:v4", pad=7),
     ["--mesh", "data=2,model=2", "--rules", "RULES", "--to", "tpu:v4", "--pad", "7", "--all"]),
    (dict(mesh="data=2,model=2", rules="RULES", to="tpu:v5e", checksum="sha256"),
     ["--mesh", "data=2,model=2", "--rules", "RULES", "--to", "tpu:v5e", "--checksum", "sha256", "--all"]),
    (dict(mesh="model=4", spec='P(None, "model")', to="tpu:v5e", tensor="embed", devices="0,1,2,3"),
     ["--mesh", "model=4", "--spec", 'P(None, "model")', "--to", "tpu:v5e", "--tensor", "embed", "--devices", "0,1,2,3"]),
]


@pytest.mark.parametrize("kw,flags", CASES)
def test_shard_matches_cli(cli, ckpt, rules, tmp_path, kw, flags):
    kw = {k: (str(rules) if v == "RULES" else v) for k, v in kw.items()}
    flags = [str(rules) if f == "RULES" else f for f in flags]
    want = cli_json(cli, "convert", ckpt, tmp_path / "cli", *flags)
    got = tpulayout.shard(ckpt, tmp_path / "py", **kw)
    assert got["manifest_path"] == str(tmp_path / "py") + "/manifest.json"
    assert summary_without_path(got) == summary_without_path(want)
    assert [g["tensor"] for g in got["guessed"]] == (["embed"] if kw.get("dtype") == "s8" else [])
    assert tree(tmp_path / "py") == tree(tmp_path / "cli")
    assert tpulayout.verify(tmp_path / "py") == cli_json(cli, "verify", tmp_path / "cli")


def test_processes_and_merge(cli, ckpt, rules, tmp_path):
    for i in range(4):
        flags = ["--mesh", "data=4,model=2", "--rules", rules, "--to", "tpu:v5e", "--all", "--process", f"{i}/4"]
        want = cli_json(cli, "convert", ckpt, tmp_path / "cli", *flags)
        got = tpulayout.shard(ckpt, tmp_path / "py", mesh="data=4,model=2", rules=rules, to="tpu:v5e",
                              process=(i, 4))
        assert got["manifest_path"].endswith(f"/manifest.process-{i}-of-4.json")
        assert summary_without_path(got) == summary_without_path(want)
    assert tree(tmp_path / "py") == tree(tmp_path / "cli")
    merged = tpulayout.merge(tmp_path / "py")
    assert merged == cli_json(cli, "manifest", "merge", tmp_path / "cli")
    assert tree(tmp_path / "py") == tree(tmp_path / "cli")
    one = tpulayout.shard(ckpt, tmp_path / "one", mesh="data=4,model=2", rules=rules, to="tpu:v5e")
    assert merged == one["manifest"] == tpulayout.manifest(tmp_path / "py")


def test_verify_and_gather_match_cli(cli, ckpt, rules, tmp_path):
    out = tmp_path / "out"
    tpulayout.shard(ckpt, out, mesh="data=2,model=2", rules=rules, to="tpu:v5e", dtype="bf16")
    got = tpulayout.gather(out, tmp_path / "py.safetensors")
    assert got == cli_json(cli, "gather", out, tmp_path / "cli.safetensors")
    assert (tmp_path / "py.safetensors").read_bytes() == (tmp_path / "cli.safetensors").read_bytes()
    img = out / got["tensors"][0]["shards"][-1]["file"]
    data = bytearray(img.read_bytes())
    data[-1] ^= 0x40
    img.write_bytes(bytes(data))
    r = tpulayout.verify(out)
    assert r == cli_json(cli, "verify", out, ok=(1,))
    assert [p["file"] for p in r["problems"]] == [img.relative_to(out).as_posix()]


def test_sharded_reads_what_gather_writes(cli, ckpt, rules, tmp_path):
    out = tmp_path / "out"
    tpulayout.shard(ckpt, out, mesh="data=2,model=2", rules=rules, to="tpu:v5e", dtype="bf16")
    run_cli(cli, "gather", out, tmp_path / "g.safetensors")
    gathered = read_safetensors(tmp_path / "g.safetensors")
    with tpulayout.Sharded(out) as s:
        assert s.devices == [0, 1, 2, 3] and s.tensors == sorted(gathered)
        for name in s.tensors:
            a = s.array(name)
            info, raw = gathered[name]
            assert list(a.shape) == info["shape"] and a.tobytes() == raw, name
            t = next(t for t in s.manifest["tensors"] if t["name"] == name)
            for d in s.devices:  # each device's shard is its window of the global array
                shard = next(x for x in t["shards"] if d in x["devices"])
                window = a[tuple(slice(lo, hi) for lo, hi in shard["ranges"])]
                assert np.array_equal(s.shard(name, d), window)
        per = s.device_arrays(3)
        assert sorted(per) == s.tensors and per["embed"].shape == (32, 256)
        # bf16 images hold the source rounded to nearest even; s32 stays exact.
        src = read_safetensors(ckpt)
        assert s.array("steps").tobytes() == src["steps"][1]
        with pytest.raises(tpulayout.InputError, match="no device 9"):
            s.shard("embed", 9)
        with pytest.raises(tpulayout.InputError, match="no tensor 'nope'"):
            s.array("nope")
        img = out / next(t for t in s.manifest["tensors"] if t["name"] == "embed")["shards"][0]["file"]
    data = bytearray(img.read_bytes())
    data[0] ^= 1
    img.write_bytes(bytes(data))
    with pytest.raises(tpulayout.InputError, match="does not match its crc32c"):
        tpulayout.Sharded(out).array("embed")
    assert tpulayout.Sharded(out, check=False).array("embed").shape == (64, 256)


@pytest.mark.parametrize("checksum", ["crc32c", "sha256"])
def test_sharded_checks_either_checksum(ckpt, rules, tmp_path, checksum):
    out = tmp_path / "out"
    tpulayout.shard(ckpt, out, mesh="data=2,model=2", rules=rules, to="tpu:v5e", checksum=checksum)
    with tpulayout.Sharded(out) as s:
        assert s.manifest["checksum"] == checksum
        shard = s.manifest["tensors"][0]["shards"][0]
        assert set(shard) & {"crc32c", "sha256"} == {checksum}
        a = s.array(s.tensors[0])
    img = out / shard["file"]
    data = bytearray(img.read_bytes())
    data[-1] ^= 0x01
    img.write_bytes(bytes(data))
    with pytest.raises(tpulayout.InputError, match=f"does not match its {checksum}"):
        tpulayout.Sharded(out).array(s.tensors[0])
    assert tpulayout.Sharded(out, check=False).array(s.tensors[0]).shape == a.shape


def test_sharded_reads_old_sha256_outdirs(cli, tmp_path):
    """The output of a version that wrote only sha256 manifests still loads, verifies and
    merges, and reads as gather writes it."""
    old = ROOT / "testdata" / "sharding" / "v1-sha256"
    src = ROOT / "testdata" / "sharding" / "mesh2d_repl_f32.safetensors"
    assert tpulayout.verify(old / "whole", src)["problems"] == []
    run_cli(cli, "gather", old / "whole", tmp_path / "g.safetensors")
    gathered = read_safetensors(tmp_path / "g.safetensors")
    with tpulayout.Sharded(old / "whole") as s:
        assert s.manifest["checksum"] == "sha256"
        assert s.array("x").tobytes() == gathered["x"][1]
    import shutil
    shutil.copytree(old / "partial", tmp_path / "partial")
    assert tpulayout.merge(tmp_path / "partial") == json.loads((old / "whole" / "manifest.json").read_text())


def cli_error(cli, *args):
    """The CLI's one-line error without its "tpulayout VERB: " and "(usage: …)"."""
    p = run_cli(cli, *args, ok=(1, 2))
    line = p.stderr.strip()
    assert line.startswith("tpulayout ") and "\n" not in line, p.stderr
    msg = line.split(": ", 1)[1]
    if p.returncode == 2 and " (usage: tpulayout " in msg:
        msg = msg[:msg.rindex(" (usage: tpulayout ")]
    return msg


def test_errors_match_cli(cli, ckpt, rules, tmp_path):
    bad_rules = tmp_path / "bad.json"
    bad_rules.write_text('{"rules": [{"match": "^nothing$", "spec": "P()"}]}')
    full = tmp_path / "full"
    full.mkdir()
    (full / "x").write_text("")
    out = tmp_path / "new"
    base = dict(mesh="data=2,model=2", spec="P()", to="tpu:v5e")
    flags = {"mesh": "data=2,model=2", "spec": "P()", "to": "tpu:v5e"}
    cases = [
        (dict(mesh="data=2,model=0"), {"mesh": "data=2,model=0"}),
        (dict(mesh="data=2,data=2"), {"mesh": "data=2,data=2"}),
        (dict(spec='P("y")'), {"spec": 'P("y")'}),
        (dict(spec="P(("), {"spec": "P(("}),
        (dict(spec=None, rules=bad_rules), {"spec": None, "rules": bad_rules}),
        (dict(spec=None, rules=tmp_path / "none.json"), {"spec": None, "rules": tmp_path / "none.json"}),
        (dict(rules=rules), {"rules": rules}),
        (dict(to="tpu:v99"), {"to": "tpu:v99"}),
        (dict(to="{1,0:T(8,128)"), {"to": "{1,0:T(8,128)"}),
        (dict(to="{1,0:T(8,128)}", dtype="f99"), {"to": "{1,0:T(8,128)}", "dtype": "f99"}),
        (dict(to=""), {"to": ""}),
        (dict(devices=[0, 1, 2]), {"devices": "0,1,2"}),
        (dict(devices="0,x"), {"devices": "0,x"}),
        (dict(process=(4, 4)), {"process": "4/4"}),
        (dict(tensor="nope"), {"tensor": "nope"}),
    ]
    for kw, fl in cases:
        kw, fl = {**base, **kw}, {**flags, **fl}
        args = ["convert", ckpt, out]
        for k, v in fl.items():
            if v is not None:
                args += [f"--{k}", v]
        if "tensor" not in fl:
            args.append("--all")
        want = cli_error(cli, *args)
        with pytest.raises(tpulayout.InputError) as e:
            tpulayout.shard(ckpt, out, **kw)
        assert str(e.value) == want, (kw, args)
        assert not out.exists()
    i4 = tmp_path / "i4.safetensors"  # a dtype tpulayout has no element type for
    h = json.dumps({"w": {"dtype": "I4", "shape": [2, 2], "data_offsets": [0, 2]}}).encode()
    i4.write_bytes(struct.pack("<Q", len(h)) + h + b"\0\0")
    for ck, o in [(ROOT / "README.md", out), (tmp_path / "none.safetensors", out), (ckpt, full), (i4, out)]:
        want = cli_error(cli, "convert", ck, o, "--mesh", "x=2", "--spec", "P()", "--to", "tpu:v5e", "--all")
        with pytest.raises(tpulayout.InputError) as e:
            tpulayout.shard(ck, o, mesh="x=2", spec="P()", to="tpu:v5e")
        assert str(e.value) == want
    for verb, args, call in [
        ("manifest", ["merge", full], lambda: tpulayout.merge(full)),
        ("verify", [tmp_path / "none"], lambda: tpulayout.verify(tmp_path / "none")),
        ("gather", [tmp_path / "none", tmp_path / "g.safetensors"], lambda: tpulayout.gather(tmp_path / "none", tmp_path / "g.safetensors")),
        ("gather", [full, tmp_path / "g.bin"], lambda: tpulayout.gather(full, tmp_path / "g.bin")),
    ]:
        want = cli_error(cli, verb, *args)
        with pytest.raises(tpulayout.InputError) as e:
            call()
        assert str(e.value) == want, verb
    one = tmp_path / "one"
    tpulayout.shard(FIXTURE, one, mesh="x=2", spec="P()", to="tpu:v5e")
    want = cli_error(cli, "gather", one, FIXTURE)
    with pytest.raises(tpulayout.InputError) as e:
        tpulayout.gather(one, FIXTURE)
    assert str(e.value) == want and "the checkpoint the images were made from" in want


@pytest.mark.skipif(not os.environ.get("TPULAYOUT_TEST_S3") or not os.environ.get("TPULAYOUT_TEST_GCS"),
                    reason="needs the object-store servers: .ci/store.sh --exec python3 -m pytest …")
@pytest.mark.parametrize("scheme", ["s3", "gs"])
def test_bucket(cli, ckpt, rules, tmp_path, scheme):
    """Converting into a bucket prefix, as processes merged there, read back, verified
    and gathered from it, as the CLI does with the same URLs."""
    url = f"{scheme}://tpulayout/pyshard-{uuid.uuid4().hex[:8]}"
    kw = dict(mesh="data=2,model=2", rules=rules, to="tpu:v5e", dtype="bf16")
    for i in range(2):
        tpulayout.shard(ckpt, url + "/py", process=(i, 2), **kw)
        run_cli(cli, "convert", ckpt, url + "/cli", "--mesh", "data=2,model=2", "--rules", rules,
                "--to", "tpu:v5e", "--dtype", "bf16", "--all", "--process", f"{i}/2")
    merged = tpulayout.merge(url + "/py")
    assert merged == cli_json(cli, "manifest", "merge", url + "/cli")
    assert tpulayout.verify(url + "/py") == cli_json(cli, "verify", url + "/cli")
    got = tpulayout.gather(url + "/py", tmp_path / "py.safetensors")
    assert got == cli_json(cli, "gather", url + "/cli", tmp_path / "cli.safetensors")
    assert (tmp_path / "py.safetensors").read_bytes() == (tmp_path / "cli.safetensors").read_bytes()
    gathered = read_safetensors(tmp_path / "py.safetensors")
    with tpulayout.Sharded(url + "/py") as s:  # read by ranges: no local copy
        assert s.dir == "" and s.manifest == merged
        assert all(s.array(n).tobytes() == gathered[n][1] for n in s.tensors)
    want = cli_error(cli, "verify", url + "/none")
    with pytest.raises(tpulayout.InputError) as e:
        tpulayout.verify(url + "/none")
    assert str(e.value) == want


def test_stub_documents_every_export():
    """__init__.pyi defines every name the package exports, with a docstring for the
    sharded conversion's."""
    import re
    pyi = (Path(tpulayout.__file__).parent / "__init__.pyi").read_text()
    missing = [n for n in tpulayout.__all__ if not re.search(rf"^(def|class) {n}\b", pyi, re.M)]
    assert missing == []
    for n in ["shard", "merge", "manifest", "Sharded", "verify", "gather"]:
        m = re.search(rf"^(def|class) {n}\b.*?:\n\s+\"\"\"", pyi, re.M | re.S)
        assert m, n


def test_pad_the_images_do_not_hold(cli, tmp_path):
    """A pad the images' type does not hold is refused before anything is written, as
    the CLI's --pad and to_device's pad= are, with the CLI's message (its --pad named
    pad)."""
    for dtype, pad, msg in [("s8", 1.5, "pad 1.5 is not a whole number in s8's range -128 to 127"),
                            ("bf16", 0.1, "pad 0.1 is not exact in bf16, which would hold 0.10009765625"),
                            ("bf16", 1e39, "pad 1e+39 is outside bf16's range")]:
        out = tmp_path / f"{dtype}"
        with pytest.raises(tpulayout.InputError) as e:
            tpulayout.shard(FIXTURE, out, mesh="x=2", spec="P()", to="tpu:v5e", dtype=dtype, pad=pad)
        assert msg in str(e.value)
        assert not out.exists()
        want = cli_error(cli, "convert", FIXTURE, out, "--mesh", "x=2", "--spec", "P()", "--to", "tpu:v5e",
                         "--dtype", dtype, "--pad", repr(pad), "--all")
        assert str(e.value) == want.replace("--pad ", "pad ")
    tpulayout.shard(FIXTURE, tmp_path / "ok", mesh="x=2", spec="P()", to="tpu:v5e", dtype="s8", pad=-7)


def test_rules_as_objects_match_cli(cli, ckpt, rules, tmp_path):
    """rules= as the file's dict, or as a list of rules ({"match", "spec"} dicts or
    (match, spec) pairs), converts as the CLI does with the same rules in a file."""
    obj = json.loads(Path(rules).read_text())
    pairs = [(r["match"], r["spec"]) for r in obj["rules"]] + [("^steps$", "P()")]
    listed = tmp_path / "listed.json"
    listed.write_text(json.dumps({"rules": [{"match": m, "spec": s} for m, s in pairs]}))
    (tmp_path / "cli").mkdir()
    for given, path in [(obj, rules), (pairs, listed), ([{"match": m, "spec": s} for m, s in pairs], listed)]:
        out = tmp_path / f"py{uuid.uuid4().hex[:6]}"
        want = cli_json(cli, "convert", ckpt, tmp_path / "cli" / out.name, "--mesh", "data=2,model=2",
                        "--rules", path, "--to", "tpu:v5e", "--all")
        got = tpulayout.shard(ckpt, out, mesh="data=2,model=2", rules=given, to="tpu:v5e")
        assert summary_without_path(got) == summary_without_path(want)
        assert tree(out) == tree(tmp_path / "cli" / out.name)


def test_rules_object_errors_match_cli(cli, ckpt, tmp_path):
    """A rules object is checked as the file is: the CLI's message for the same rules
    in a file, without the file's name."""
    bad = [
        {"rules": [{"match": "^nothing$", "spec": "P()"}], "default": "P()"},
        {"rules": [{"match": "", "spec": "P()"}]},
        {"rules": [{"match": "x", "spec": "P(("}]},
        {"rules": [{"match": "(", "spec": "P()"}]},
        {"rules": [{"match": "x"}]},
        {"rules": [{"match": "x", "spec": "P()", "extra": 1}]},
        {"rules": [], "default": "P(("},
        {"rulez": []},
        {},
        [],
        [("^embed$", 'P("model")')],  # no default: the other tensors match nothing
    ]
    for k, given in enumerate(bad):
        path = tmp_path / f"rules{k}.json"
        path.write_text(json.dumps(given if isinstance(given, dict)
                                   else {"rules": [{"match": m, "spec": s} for m, s in given]}))
        want = cli_error(cli, "convert", ckpt, tmp_path / "out", "--mesh", "data=2,model=2",
                         "--rules", path, "--to", "tpu:v5e", "--all")
        want = want.replace(f"rules file {path}: ", "").replace(f"--rules {path}", "--rules")
        assert str(path) not in want
        with pytest.raises(tpulayout.InputError) as e:
            tpulayout.shard(ckpt, tmp_path / "out", mesh="data=2,model=2", rules=given, to="tpu:v5e")
        assert str(e.value) == want, given
        assert not (tmp_path / "out").exists()
    with pytest.raises(tpulayout.InputError, match="want a rules file's path"):
        tpulayout.shard(ckpt, tmp_path / "out", mesh="x=2", rules=3, to="tpu:v5e")
    with pytest.raises(tpulayout.InputError, match="not JSON serializable"):
        tpulayout.shard(ckpt, tmp_path / "out", mesh="x=2", rules=[("x", object())], to="tpu:v5e")


def test_hlo_target_matches_cli(cli, ckpt, tmp_path):
    """to="hlo:MODULE.txt:param=N" gives each shard the layout the compiled program
    gives that parameter, as the CLI's --to does, and the same images as that layout
    given alone."""
    module = tmp_path / "module.txt"
    module.write_text("HloModule m\n\nENTRY main {\n"
                      "  ROOT p0 = bf16[64,64]{1,0:T(8,128)(2,1)} parameter(0)\n}\n")
    to = f"hlo:{module}:param=0"
    kw = dict(mesh="model=4", spec='P(None, "model")', tensor="embed")
    want = cli_json(cli, "convert", ckpt, tmp_path / "cli", "--mesh", "model=4", "--spec", 'P(None, "model")',
                    "--tensor", "embed", "--to", to)
    got = tpulayout.shard(ckpt, tmp_path / "py", to=to, **kw)
    assert summary_without_path(got) == summary_without_path(want)
    assert got["tensors"][0]["layout"] == "bf16[64,64]{1,0:T(8,128)(2,1)}"
    assert tree(tmp_path / "py") == tree(tmp_path / "cli")
    alone = tpulayout.shard(ckpt, tmp_path / "alone", to="{1,0:T(8,128)(2,1)}", dtype="bf16", **kw)
    assert alone["manifest"]["tensors"] == got["manifest"]["tensors"]
    bad = f"hlo:{module}:param=1"
    want = cli_error(cli, "convert", ckpt, tmp_path / "bad", "--mesh", "model=4", "--spec", 'P(None, "model")',
                     "--tensor", "embed", "--to", bad)
    with pytest.raises(tpulayout.InputError) as e:
        tpulayout.shard(ckpt, tmp_path / "bad", to=bad, **kw)
    assert str(e.value) == want
