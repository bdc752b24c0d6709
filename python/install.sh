#!/usr/bin/env bash
# Installs the tpulayout Python package from this checkout into a virtual environment
# (default .venv at the checkout's root), with an interpreter that has what the build and
# the package need: numpy, setuptools, wheel and venv. It builds the Go library first,
# in the open, so that its progress shows, then installs without touching PyPI.
#
#   python/install.sh [VENV]          PYTHON=/path/to/python3 python/install.sh
#
# Nothing here needs root; when no interpreter qualifies it says what to install.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-$root/.venv}

need='import numpy, setuptools, wheel, venv, ensurepip'
missing() { # the modules of $need that interpreter $1 lacks
  "$1" - <<'PY' 2>/dev/null || echo "(it does not run)"
import importlib.util
print(" ".join(m for m in ("numpy", "setuptools", "wheel", "venv", "ensurepip") if importlib.util.find_spec(m) is None))
PY
}

candidates=()
[ -n "${PYTHON:-}" ] && candidates+=("$PYTHON")
candidates+=("$(command -v python3 || true)" /usr/bin/python3)
py=
for c in "${candidates[@]}"; do
  [ -n "$c" ] && [ -x "$c" ] || continue
  lack=$(missing "$c")
  if [ -z "$lack" ]; then py=$c; break; fi
  echo "install.sh: $c ($("$c" -V 2>&1)) lacks: $lack" >&2
done
if [ -z "$py" ]; then
  cat >&2 <<'MSG'
install.sh: no python3 here has numpy, setuptools, wheel and venv. Either
  - on Debian/Ubuntu, as root: apt-get install python3-numpy python3-venv python3-setuptools python3-wheel
    (then Debian's /usr/bin/python3 has them), or
  - in your own interpreter (pyenv, conda, …): python3 -m pip install numpy setuptools wheel
and run this again (PYTHON=/path/to/python3 picks one).
MSG
  exit 1
fi
if [ "$py" != "${candidates[0]}" ]; then
  echo "install.sh: using $py ($("$py" -V 2>&1)), which has them" >&2
fi

start=$SECONDS
"$py" "$root/python/build_lib.py"
[ -x "$venv/bin/python" ] || "$py" -m venv --system-site-packages "$venv"
echo "install.sh: installing into $venv" >&2
"$venv/bin/pip" install -q --no-index --no-build-isolation "$root/python"
echo "install.sh: done in $((SECONDS - start)) s; run $venv/bin/python, or the tests: $venv/bin/python -m pytest python/tests" >&2
