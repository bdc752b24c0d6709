"""tpulayout.explain, hlo and blockspec return what `tpulayout VERB --json` prints: the
same Go report, the same keys and values, on the CLI's own inputs."""

import json
import os
import subprocess
from pathlib import Path

import pytest

import tpulayout

ROOT = Path(__file__).resolve().parents[2]
HLO_DIR = ROOT / "testdata" / "hlo"


def cli_json(cli, *args, ok=(0,)):
    p = subprocess.run([cli, *args, "--json"], capture_output=True, text=True)
    assert p.returncode in ok, p.stderr
    return json.loads(p.stdout)


EXPLAIN = [
    ("f32[3,5]{1,0:T(2,4)}", "1,3", None),
    ("f32[3,5]{1,0:T(2,4)}", None, 14),
    ("s4[3,7]{0,1:T(2,8)L(64)}", None, 63),
    ("s4[3,7]{0,1:T(2,8)}", "2,6", None),
    ("bf16[20,300]{1,0:T(8,128)(2,1)}", "17,299", None),
    ("f32[2,3,4]{2,1,0:T(*,2,4)}", "1,2,3", None),
    ("f32[]", "()", None),
]


@pytest.mark.parametrize("layout,index,offset", EXPLAIN)
def test_explain_matches_cli(cli, layout, index, offset):
    if offset is None:
        want = cli_json(cli, "explain", layout, index)
        idx = [int(v) for v in index.strip("()").split(",") if v]
        got = tpulayout.explain(layout, idx)
        assert tpulayout.explain(layout, index) == got  # the CLI's text form
    else:
        want = cli_json(cli, "explain", layout, "--offset", str(offset))
        got = tpulayout.explain(layout, offset=offset)
    assert got == want


def test_explain_errors():
    with pytest.raises(tpulayout.InputError, match="out of range for dimension 1 of size 5"):
        tpulayout.explain("f32[3,5]", (0, 5))
    with pytest.raises(tpulayout.InputError, match="offsets run from 0 to 14"):
        tpulayout.explain("f32[3,5]", offset=15)
    with pytest.raises(TypeError):
        tpulayout.explain("f32[3,5]", (0, 1), offset=1)
    with pytest.raises(tpulayout.InputError, match="index"):
        tpulayout.explain("f32[3,5]", "1,x")
    with pytest.raises(tpulayout.LayoutError):
        tpulayout.explain("f32[3,5]{1,0:T(0,4)}", (0, 1))


HLO_FILES = sorted(HLO_DIR.glob("*.hlo"))[:12]


@pytest.mark.parametrize("path", HLO_FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("flags", [(), ("--all",), ("--to", "tpu:v5e", "--sort", "padding")])
def test_hlo_matches_cli(cli, path, flags):
    want = cli_json(cli, "hlo", str(path), *flags)
    kw = {"all": "--all" in flags}
    if "--to" in flags:
        kw.update(to="tpu:v5e", sort="padding")
    assert tpulayout.hlo(str(path), **kw) == want
    # The module's text gives the same report as its path.
    assert tpulayout.hlo(path.read_text(), **kw) == want


def test_hlo_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        tpulayout.hlo(str(tmp_path / "missing.hlo"))
    with pytest.raises(tpulayout.InputError, match="line 4, col 1"):
        tpulayout.hlo("HloModule m\nENTRY e {\n  p = f32[2 parameter(0)\n}\n")


def test_hlo_file_limit(tmp_path):
    """A path is read as the command line reads it: under its 256 MiB limit, refused
    before reading a larger file, and at the first byte of /dev/zero (which was read
    whole and never returned)."""
    big = tmp_path / "big.hlo"
    with open(big, "wb") as f:
        f.truncate(256 << 20 | 1)
    with pytest.raises(tpulayout.InputError, match=r"larger than the limit of 256\.00 MiB"):
        tpulayout.hlo(str(big))
    if os.path.exists("/dev/zero"):
        with pytest.raises(tpulayout.InputError, match="byte 0 is NUL"):
            tpulayout.hlo("/dev/zero")


BLOCKS = [
    ("bf16[4096,4096]", (256, 512), {}),
    ("bf16[4096,4096]", (256, 500), {}),
    ("f32[4096]", (1024,), {"operands": 1}),
    ("s8[100,300]", (100, 300), {"gen": "v4"}),
]


@pytest.mark.parametrize("array,block,kw", BLOCKS)
def test_blockspec_matches_cli(cli, array, block, kw):
    args = ["blockspec", "--array", array, "--block", ",".join(map(str, block))]
    if "operands" in kw:
        args += ["--operands", str(kw["operands"])]
    if "gen" in kw:
        args += ["--gen", kw["gen"]]
    want = cli_json(cli, *args, ok=(0, 1))  # an illegal block exits 1 after its report
    assert tpulayout.blockspec(array, block, **kw) == want


def test_blockspec_errors():
    with pytest.raises(tpulayout.InputError, match="not one a Pallas TPU operand has"):
        tpulayout.blockspec("bf16[4096,4096]{0,1}", (256, 512))
    with pytest.raises(tpulayout.InputError, match="operands must be 1 to 64"):
        tpulayout.blockspec("bf16[4096,4096]", (256, 512), operands=0)


@pytest.fixture()
def sharded(cli, tmp_path):
    """A sharded conversion made by the CLI."""
    out = tmp_path / "shards"
    subprocess.run([cli, "convert", str(ROOT / "testdata" / "sharding" / "mesh2d_both.safetensors"),
                    str(out), "--mesh", "data=2,model=2", "--spec", 'P("data","model")',
                    "--to", "tpu:v5e", "--all"], check=True, capture_output=True)
    return out


def test_verify_matches_cli(cli, sharded):
    r = tpulayout.verify(sharded)
    assert r["problems"] == []
    line = subprocess.run([cli, "verify", str(sharded)], capture_output=True, text=True,
                          check=True).stdout.splitlines()[0]
    assert line.startswith(f"{r['tensors']} tensor, {r['shards']} shard files, ")
    with open(sharded / "manifest.json") as f:
        assert r["manifest"] == json.load(f)


def test_verify_finds_a_changed_image(cli, sharded):
    img = sorted(p for p in sharded.rglob("*.bin"))[0]
    data = bytearray(img.read_bytes())
    data[0] ^= 1
    img.write_bytes(bytes(data))
    r = tpulayout.verify(sharded)
    assert [p["file"] for p in r["problems"]] == [img.relative_to(sharded).as_posix()], r["problems"]
    res = subprocess.run([cli, "verify", str(sharded)], capture_output=True, text=True)
    assert res.returncode == 1 and r["problems"][0]["msg"] in res.stdout


def test_gather_matches_cli(cli, sharded, tmp_path):
    m = tpulayout.gather(sharded, tmp_path / "py.safetensors")
    subprocess.run([cli, "gather", str(sharded), str(tmp_path / "cli.safetensors")], check=True,
                   capture_output=True)
    assert (tmp_path / "py.safetensors").read_bytes() == (tmp_path / "cli.safetensors").read_bytes()
    assert [t["name"] for t in m["tensors"]] == ["x"]
    with pytest.raises(tpulayout.InputError, match="safetensors"):
        tpulayout.gather(sharded, tmp_path / "out.bin")
