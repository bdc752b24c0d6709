"""Builds the Go library (python/capi, cgo, -buildmode=c-shared) into the package.

Needs the Go toolchain and a C compiler; the repository checkout must be the parent of
this directory. `pip install --no-build-isolation ./python` runs it."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

# pip runs this file with the interpreter of the environment it installs into. Without
# wheel, pip fails late with "invalid command 'bdist_wheel'"; without numpy, the package
# cannot import. Say so first, and which interpreter to use.
_missing = [m for m in ("wheel", "numpy") if importlib.util.find_spec(m) is None]
if _missing:
    sys.exit(f"tpulayout: {sys.executable} (Python {sys.version.split()[0]}) lacks {' and '.join(_missing)}, "
             "which building and using tpulayout need. Use an interpreter that has them, such as "
             "Debian's /usr/bin/python3 with python3-numpy and python3-wheel (python/install.sh finds "
             "one), or pip install them into this one.")

from setuptools import setup  # noqa: E402
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from build_lib import build_library  # noqa: E402


class BuildGo(build_py):
    def run(self):
        super().run()
        build_library(Path(self.build_lib) / "tpulayout")


class BinaryDistribution(Distribution):
    def has_ext_modules(self):  # the wheel holds a shared library: platform-specific
        return True


setup(cmdclass={"build_py": BuildGo}, distclass=BinaryDistribution)
