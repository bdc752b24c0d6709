"""tpulayout.cute, whereis, equal, copymap, blocks and padding against
`tpulayout VERB --json` on the cases of docs/algebra.md (its console blocks and its
table), and refusals with the CLI's message."""

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

import tpulayout

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "algebra.md"
VERBS = ("cute", "whereis", "equal", "copymap", "blocks", "padding")


def doc_commands():
    """The `$ tpulayout VERB …` lines of the page's console blocks, as argument lists,
    and `tpulayout cute` of each layout in its table."""
    text = DOC.read_text()
    cmds = []
    for line in text.splitlines():
        if line.startswith("$ tpulayout "):
            args = shlex.split(line[len("$ tpulayout "):])
            if args[0] in VERBS:
                cmds.append(args)
    for m in re.finditer(r"^\| `([^`]+)` \|", text, re.M):
        cmds.append(["cute", m.group(1)])
        if not m.group(1).startswith(("f32", "s32", "u32")):
            cmds.append(["cute", m.group(1), "--words"])  # packed types only
        cmds.append(["padding", m.group(1)])
    return cmds


def python_call(args):
    """The Python call that asks what `tpulayout ARGS --json` prints."""
    verb, rest = args[0], list(args[1:])
    flags = {}
    pos = []
    while rest:
        a = rest.pop(0)
        if a == "--words":
            flags["words"] = True
        elif a.startswith("--"):
            flags[a[2:]] = rest.pop(0)
        else:
            pos.append(a)
    if verb == "whereis":
        return tpulayout.whereis(pos[0], **{k: int(v) for k, v in flags.items()})
    if verb == "blocks":
        return tpulayout.blocks(pos[0], [int(b) for b in flags["block"].split(",")])
    return getattr(tpulayout, verb)(*pos, **flags)


def cli_json(cli, args):
    p = subprocess.run([cli, *args, "--json"], capture_output=True, text=True)
    assert p.returncode in (0, 1), (args, p.stderr)
    return json.loads(p.stdout)


def test_doc_cases_same_as_cli(cli):
    cmds = doc_commands()
    seen = {a[0] for a in cmds}
    assert seen == set(VERBS), seen
    assert len(cmds) >= 20
    for args in cmds:
        assert python_call(args) == cli_json(cli, args), args


def test_answers():
    # A few of the page's answers, read from the dicts.
    r = tpulayout.cute("f32[16,256]{1,0:T(8,128)}")
    assert (r["one"], r["size"], r["alloc_bytes"], r["chain"] is None or len(r["chain"]) > 0) == \
        ("((8,2),(128,2)):((128,2048),(1,1024))", 4096, 16384, True)
    c = tpulayout.cute("f32[16,256]{1,0:T(8,128)(3,1)}")
    assert "one" not in c and c["reason"] == "tile 3 does not divide radix 8" and c["alloc"] == 4608
    assert tpulayout.cute("bf16[16,256]{1,0:T(8,128)(2,1)}", words=True)["words"] == "((4,2),(128,2)):((128,1024),(1,512))"
    assert tpulayout.whereis("f32[16,256]{1,0:T(8,128)}", byte=6660)["elements"] == \
        [{"element": 1665, "padding": False, "index": [5, 129]}]
    assert tpulayout.whereis("f32[8,256]{0,1:T(8,128)}", element=200)["elements"] == \
        [{"element": 200, "padding": True}]
    e = tpulayout.equal("f32[2,3,4]{2,1,0:T(8,128)}", tpulayout.parse("f32[2,3,4]{2,1,0}"))
    assert (e["equal"], e["index"], e["offset_a"], e["offset_b"]) == (False, [0, 1, 0], 128, 4)
    m = tpulayout.copymap("f32[24,128]{1,0}", "f32[24,128]{1,0:T(8,128)}")
    assert (m["copy_map"], m["vector"], m["bitcast"], m["class"]) == ("3072:1", 3072, True, "bitcast")
    b = tpulayout.blocks("f32[16,256]{1,0:T(8,128)}", (16, 128))
    assert (b["blocks"], b["runs"], b["run_elements"]) == (2, 2, 1024)
    assert tpulayout.blocks("f32[16,256]{1,0:T(8,128)}", [12, 128])["misaligned"] == \
        "block 12 not aligned to tile 8 (dim 0)"
    assert tpulayout.blocks("f32[256]{0:T(128)}", 128)["blocks"] == 2
    p = tpulayout.padding("f32[8,256]{0,1:T(8,128)}")
    assert (p["padding"], p["complement"]) == (30720, "16:8")


def cli_refusal(cli, args):
    """The CLI's message for args (exit 2), without the verb's prefix and usage line."""
    p = subprocess.run([cli, *args, "--json"], capture_output=True, text=True)
    assert p.returncode == 2 and p.stdout == "", (args, p.stdout, p.stderr)
    msg = p.stderr.strip().removeprefix(f"tpulayout {args[0]}: ")
    return re.sub(r" \(usage: .*\)$", "", msg)


def test_refusals_same_as_cli(cli):
    for args in [
        ["whereis", "f32[8,256]{0,1:T(8,128)}", "--element", "32768"],
        ["whereis", "f32[8,256]{0,1:T(8,128)}", "--byte", "131072"],
        ["equal", "f32[4]", "f32[5]"],
        ["equal", "f32[4]", "bf16[4]"],
        ["copymap", "f32[20,256]{1,0:T(8,128)}", "f32[20,256]{1,0}"],
        ["blocks", "f32[16,256]{1,0:T(8,128)}", "--block", "16"],
        ["blocks", "f32[20,256]{1,0:T(8,128)}", "--block", "4,256"],
        ["cute", "f32[16,256]{1,0:T(8,128)}", "--words"],
    ]:
        msg = cli_refusal(cli, args)
        with pytest.raises(tpulayout.InputError) as e:
            python_call(args)
        assert str(e.value) == msg, args


def test_refusals():
    with pytest.raises(tpulayout.LayoutError) as e:
        tpulayout.cute("f32[16,256]{1,0:T(8,128")
    assert e.value.position >= 0
    with pytest.raises(tpulayout.LayoutError):
        tpulayout.equal("f32[4]", "f33[4]")
    with pytest.raises(TypeError, match="one of byte=N and element=N"):
        tpulayout.whereis("f32[4]")
    with pytest.raises(TypeError, match="one of byte=N and element=N"):
        tpulayout.whereis("f32[4]", byte=0, element=0)
    with pytest.raises(tpulayout.InputError, match="not a non-negative number"):
        tpulayout.whereis("f32[4]", element=-1)
    for bad in ([0, 128], [-8, 128]):
        with pytest.raises(tpulayout.InputError, match="want a positive size"):
            tpulayout.blocks("f32[16,256]{1,0:T(8,128)}", bad)
    with pytest.raises(tpulayout.InputError, match="block"):
        tpulayout.blocks("f32[16,256]", ["x", 1])
