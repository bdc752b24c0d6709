import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

# The tests import tpulayout as installed (pip install --no-build-isolation ./python);
# without an installed one, the package of this checkout, with its library built by
# `python3 python/build_lib.py`.
sys.path.insert(0, os.path.dirname(__file__))
if importlib.util.find_spec("tpulayout") is None:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


@pytest.fixture(scope="session")
def cli(tmp_path_factory):
    """The tpulayout command: $TPULAYOUT_CLI, or built once from this checkout."""
    exe = os.environ.get("TPULAYOUT_CLI")
    if exe:
        return exe
    go = shutil.which("go") or "/usr/local/go/bin/go"
    if not os.path.exists(go):
        pytest.skip("the Go toolchain is needed to build the CLI")
    exe = str(tmp_path_factory.mktemp("cli") / "tpulayout")
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    subprocess.run([go, "build", "-o", exe, "./cmd/tpulayout"], cwd=root, check=True)
    return exe
