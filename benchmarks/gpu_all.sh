#!/usr/bin/env bash
# Every GPU figure in one run (benchmarks/gpu_all.py). Extra arguments go to the script (e.g. --smoke, --only hh).
#
# With a package index: a venv with difflab, CUDA jax and the `bench` extra (Jaxley 0.14, dynamiqs 0.3.7).
# Offline (a machine that reaches no index but has CUDA jax, diffrax, equinox, xarray installed): put wheels of
# what is missing (jaxley, dynamiqs, netCDF4, ...; `pip download --no-deps`) in $WHEELS (default .whl); they are
# installed into /tmp/site without dependencies and difflab runs from src/.
set -euo pipefail
cd "$(dirname "$0")/.."
WHEELS="${WHEELS:-.whl}"
export PYTHONUNBUFFERED=1
if [ -d "$WHEELS" ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$WHEELS"/*.whl
  export PYTHONPATH="$PWD/src:/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
  PY=python3
else
  VENV="${VENV:-/tmp/difflab-gpu-venv}"
  if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --upgrade pip
    "$VENV/bin/pip" install --quiet -e ".[bench]" "jax[cuda13]>=0.10.2,<0.11"
  fi
  PY="$VENV/bin/python"
fi
"$PY" -c "import jax; print('devices:', jax.devices())"
exec "$PY" benchmarks/gpu_all.py "$@"
