import importlib.util
import os
import sys

# The tests import tpulayout as installed (pip install --no-build-isolation ./python);
# without an installed one, the package of this checkout, with its library built by
# `python3 python/build_lib.py`.
sys.path.insert(0, os.path.dirname(__file__))
if importlib.util.find_spec("tpulayout") is None:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
