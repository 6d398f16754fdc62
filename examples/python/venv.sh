#!/usr/bin/env bash
# Makes .tools/examples-venv hold exactly examples/python/requirements.txt (PyPI).
# A venv already built from the same file is reused as is. Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/../.."

source tools/installed.sh
venv=.tools/examples-venv
if installed_from "$venv" examples/python/requirements.txt; then
  echo "$venv/bin/python"
  exit 0
fi

command -v python3 >/dev/null || { echo "examples/python/venv.sh: python3 (≥ 3.9) is needed" >&2; exit 1; }
echo "examples/python/venv.sh: installing the Python example's packages into $venv (once)" >&2
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r examples/python/requirements.txt >&2
mark_installed "$venv" examples/python/requirements.txt
echo "$venv/bin/python"
