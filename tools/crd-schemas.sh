#!/usr/bin/env bash
# Makes .tools/crd-schemas hold exactly the npm packages pinned by
# tools/crd-schemas/package-lock.json: the custom resources' schemas k8s/check.sh
# validates against (kubernetes-models' packages, each generated from one release
# of its project's CRDs) and TypeScript. Reused as is while the lock is unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."

source tools/installed.sh
dir=.tools/crd-schemas
pins=(tools/crd-schemas/package.json tools/crd-schemas/package-lock.json)
installed_from "$dir" "${pins[@]}" && exit 0

command -v npm >/dev/null || { echo "tools/crd-schemas.sh: npm (Node.js ≥ 20) is needed for the custom resources' schemas" >&2; exit 1; }
echo "tools/crd-schemas.sh: installing the custom resources' schemas into $dir (once)"
cp "${pins[@]}" "$dir/"
# The packages ask for Node 22 in `engines` but need nothing Node 20 lacks
# (k8s/check.sh's canary proves their validators still refuse).
npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error --engine-strict=false
mark_installed "$dir" "${pins[@]}"
