import os
import sys

# Tests run against the package in this checkout (python/), with the library built
# next to it (python/build.sh), unless tpulayout is installed.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
