"""Builds the Go library (python/capi, cgo, -buildmode=c-shared) into the package.

Needs the Go toolchain and a C compiler; the repository checkout must be the parent of
this directory. `pip install --no-build-isolation ./python` runs it."""

import os
import subprocess
import sys
from pathlib import Path

from setuptools import setup
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
