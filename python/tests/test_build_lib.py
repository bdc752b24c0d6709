"""build_lib.py's output: a summary line where `go build -v` names every package it
compiles, and the whole log when the build fails."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import build_lib  # noqa: E402


def fake_go(tmp_path, monkeypatch, packages, code):
    """A `go` on PATH that names packages on stderr as go build -v does, writes -o's
    file and exits with code."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "go"
    names = "\n".join(f"example.com/pkg{i}" for i in range(packages))
    script.write_text(f"""#!/bin/sh
cat >&2 <<'NAMES'
{names}
NAMES
while [ $# -gt 0 ]; do [ "$1" = -o ] && : > "$2"; shift; done
exit {code}
""")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")


def test_build_quiet(tmp_path, monkeypatch, capfd):
    fake_go(tmp_path, monkeypatch, 287, 0)
    out = build_lib.build_library(tmp_path / "lib")
    assert out.exists()
    err = capfd.readouterr().err
    assert "example.com/pkg" not in err
    assert len(err.splitlines()) <= 2, err
    assert "287 packages" in err


def test_build_failure_prints_log(tmp_path, monkeypatch, capfd):
    fake_go(tmp_path, monkeypatch, 5, 1)
    with pytest.raises(subprocess.CalledProcessError):
        build_lib.build_library(tmp_path / "lib")
    err = capfd.readouterr().err
    for i in range(5):
        assert f"example.com/pkg{i}\n" in err
