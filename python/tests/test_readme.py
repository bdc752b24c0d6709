"""The Python examples of the README and the guides, run as written (their shell
transcripts are a Go test, TestREADME; these are their Python ones).

Every ```python block of README.md, then of docs/*.md in name order, runs in order, in one
namespace, in a scratch directory holding the example checkpoint and its rules. Two
kinds of comment are checked, not just read: an expression line followed by a comment
line "# VALUE" must evaluate to something whose repr is VALUE, and a line ending in
"# raises NAME:" must raise NAME with the message the comment lines after it give. The
one input a block reads and no block makes, the "raw dump" kv_block.bin, is the device
image `img` of the blocks before it, written before the block that opens it.
"""

import os
import re

import pytest


ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def doc_files():
    docs = os.path.join(ROOT, "docs")
    return [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(docs, n) for n in os.listdir(docs) if n.endswith(".md"))


def python_blocks():
    """(file name, block) for every ```python block of the README and the guides."""
    out = []
    for path in doc_files():
        with open(path, encoding="utf-8") as f:
            text = f.read()
        name = os.path.relpath(path, ROOT)
        out += [(name, b) for b in re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M)]
    return out


def statements(block):
    """Splits a block into (source, expected) pairs: expected is None, ("repr", text) or
    ("raises", name, message)."""
    lines = block.splitlines()
    out, cur, i = [], [], 0
    while i < len(lines):
        line = lines[i]
        m = re.search(r"#\s*raises (\w+):\s*$", line)
        if m:
            msg = []
            i += 1
            while i < len(lines) and lines[i].startswith("# "):
                msg.append(lines[i][2:])
                i += 1
            out.append(("\n".join(cur), None))
            cur = []
            out.append((line[: m.start()].rstrip(), ("raises", m.group(1), " ".join(msg))))
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line and not line.startswith((" ", "#")) and re.match(r"# [(\['\d-]", nxt) and "=" not in line.split("#")[0].replace("==", ""):
            out.append(("\n".join(cur), None))
            cur = []
            out.append((line.split("  #")[0], ("repr", nxt[2:])))
            i += 2
            continue
        cur.append(line)
        i += 1
    out.append(("\n".join(cur), None))
    return [(src, want) for src, want in out if src.strip()]


def test_readme_python_examples(tmp_path, monkeypatch, cli):
    import subprocess
    import tpulayout

    # The sharded conversion's example reads the Quick start's example checkpoint.
    subprocess.run([cli, "example", str(tmp_path / "example")], check=True, capture_output=True)
    for name in ("model.safetensors", "rules.json"):
        os.symlink(tmp_path / "example" / name, tmp_path / name)

    blocks = python_blocks()
    assert len(blocks) >= 2, "README.md and docs/*.md have no ```python examples"
    monkeypatch.chdir(tmp_path)
    ns = {}
    checked = 0
    for n, (name, block) in enumerate(blocks):
        where = f"{name} block {n + 1}"
        if "kv_block.bin" in block and not (tmp_path / "kv_block.bin").exists():
            (tmp_path / "kv_block.bin").write_bytes(ns["img"].tobytes())
        for src, want in statements(block):
            if want is None:
                exec(compile(src, where, "exec"), ns)
            elif want[0] == "repr":
                got = eval(compile(src, where, "eval"), ns)
                assert repr(got) == want[1], f"{where}: {src}\n  shows {want[1]}\n  gives {got!r}"
                checked += 1
            else:
                exc = getattr(tpulayout, want[1])
                with pytest.raises(exc) as info:
                    exec(compile(src, where, "exec"), ns)
                assert " ".join(str(info.value).split()) == " ".join(want[2].split()), f"{where}: {src}\n  shows {want[2]}\n  raised {info.value}"
                checked += 1
    assert checked >= 2, "no output of a Python example was checked"
