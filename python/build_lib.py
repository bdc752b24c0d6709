"""Builds libtpulayout (the Go library with its C ABI, python/capi) next to the package:
`python3 python/build_lib.py` for use from the checkout, or called by setup.py."""

import os
import shutil
import subprocess
import sys
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
    # -v names each package as it compiles: the first build compiles the standard library
    # for cgo too (minutes on 2 cores), and a silent wait that long looks like a hang.
    print(f"build_lib.py: building {out.name} with go build -buildmode=c-shared "
          "(the first build compiles the standard library for cgo: a few minutes on 2 cores; "
          "later ones take seconds); packages as they compile:", file=sys.stderr, flush=True)
    subprocess.run([go(), "build", "-v", "-trimpath", "-buildmode=c-shared", "-o", str(out), "./python/capi"],
                   cwd=ROOT, env=env, check=True)
    header = out.with_suffix(".h")
    if header.exists():
        header.unlink()
    return out


if __name__ == "__main__":
    print(build_library(HERE / "tpulayout"))
