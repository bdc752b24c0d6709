"""Builds libtpulayout (the Go library with its C ABI, python/capi) next to the package:
`python3 python/build_lib.py` for use from the checkout, or called by setup.py."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def libname() -> str:
    if sys.platform == "darwin":
        return "libtpulayout.dylib"
    if sys.platform == "win32":
        return "tpulayout.dll"
    return "libtpulayout.so"


def go() -> str:
    for cand in (shutil.which("go"), "/usr/local/go/bin/go"):
        if cand and os.path.exists(cand):
            return cand
    sys.exit("tpulayout: the Go toolchain (go) is needed to build the library: https://go.dev/dl/")


def build_library(dest: Path) -> Path:
    dest = Path(dest).resolve()
    dest.mkdir(parents=True, exist_ok=True)
    out = dest / libname()
    env = dict(os.environ, CGO_ENABLED="1")
    print(f"build_lib.py: building {out.name} with go build -buildmode=c-shared "
          "(the first build compiles the standard library for cgo: a few minutes on 2 cores; "
          "later ones take seconds)", file=sys.stderr, flush=True)
    run_go_build([go(), "build", "-v", "-trimpath", "-buildmode=c-shared", "-o", str(out), "./python/capi"],
                 env, out.name)
    header = out.with_suffix(".h")
    if header.exists():
        header.unlink()
    return out


def run_go_build(args, env, name: str) -> None:
    """Runs go build -v, which names each package as it compiles, keeping its output:
    on a terminal one line counts the packages (a silent wait of minutes looks like a
    hang); then a summary line, or on failure the whole log and CalledProcessError."""
    start = time.monotonic()
    tty = sys.stderr.isatty()
    log = []
    with subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace") as p:
        for line in p.stdout:
            log.append(line)
            if tty:
                print(f"\rbuild_lib.py: {len(log)} packages compiled", end="", file=sys.stderr, flush=True)
    if tty and log:
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    if p.returncode != 0:
        sys.stderr.write("".join(log))
        print(f"build_lib.py: go build failed (exit status {p.returncode}); its output is above",
              file=sys.stderr, flush=True)
        raise subprocess.CalledProcessError(p.returncode, args)
    print(f"build_lib.py: built {name} ({len(log)} packages compiled) in {time.monotonic() - start:.0f} s",
          file=sys.stderr, flush=True)


if __name__ == "__main__":
    try:
        print(build_library(HERE / "tpulayout"))
    except subprocess.CalledProcessError as e:
        sys.exit(e.returncode)  # the log and what failed are printed already
