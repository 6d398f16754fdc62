#!/usr/bin/env bash
# `make k8s-check`: the manifests, checked offline. Each overlay is rendered with
# `kubectl kustomize` (the venv's pinned kubectl), checked to hold no stateful
# object if it is an app overlay (databases and volumes are k8s/databases/'s),
# validated against the schemas
# of a pinned Kubernetes release and custom resources against their CRDs' schemas
# (strict: an unknown or misspelt field fails), its edge compared with the limits
# it must follow (check-rendered.py), then scanned by checkov, which must report no
# failed check beyond the justified skips below. The alert rules go through
# promtool (their syntax, and rules-test.yaml's cases), and every metric a rule or
# dashboard names must be one the code records.
#   bash k8s/check.sh [overlay…]   a site's own overlays instead (paths, checked as
#                                  one site: its portal, its databases)
set -euo pipefail
sites=()
for site in "$@"; do sites+=("$(realpath "$site")"); done
cd "$(dirname "$0")/.."

# The oldest Kubernetes the manifests promise to work on: native gRPC probes
# (1.27) and preStop `sleep` (on by default since 1.30) are used.
KUBERNETES_VERSION=1.33.0
# App overlays and the databases' kustomizations, applied apart (k8s/README.md).
OVERLAYS=(k8s/overlays/dev k8s/overlays/prod k8s/databases/dev k8s/databases/prod)
# Sites' overlays (prod with a site's values), checked as sites
# (check-rendered.py --site); those named on the command line instead, if any.
SITES=(k8s/examples/site k8s/examples/site-gateway-api k8s/examples/site-databases)

# Custom resources whose schema no package here publishes (k8s/custom-resources.mjs
# validates every kind tools/crd-schemas has); their operators validate them when
# applied. Written as "apiVersion kind".
SKIPPED_KINDS=(
  "postgresql.cnpg.io/v1 Cluster"
  "postgresql.cnpg.io/v1 ScheduledBackup"
  "postgresql.cnpg.io/v1 ImageCatalog"
  "barmancloud.cnpg.io/v1 ObjectStore"
)

# checkov checks skipped, per overlay, each with its reason; prod skips none.
# dev only — CKV_K8S_15 (pull policy Always) and CKV_K8S_43 (image by digest):
#   the dev image is loaded into the node by hand (`kind load`), there is no
#   registry to pull from or digest to name.
# dev's database only — CKV_K8S_40 (UID ≥ 10000): the postgres image's own user
#   is 999 and owns its data directory; and the two above, as dev's.
SKIP_CHECKS_dev="CKV_K8S_15,CKV_K8S_43"
SKIP_CHECKS_databases_dev="CKV_K8S_15,CKV_K8S_43,CKV_K8S_40"
SKIP_CHECKS_prod=""
SKIP_CHECKS_databases_prod=""
# A site's overlay is prod with the site's values (k8s/examples/).
SKIP_CHECKS_site="$SKIP_CHECKS_prod"

command -v promtool >/dev/null || {
  echo "k8s-check: promtool is missing: install Debian's 'prometheus' package (apt-get install --no-install-recommends prometheus)" >&2
  exit 1
}
bash tools/venv.sh
bash tools/crd-schemas.sh
bin=.tools/venv/bin

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# First, proof that the checkers still refuse: a pod with a misspelt field and a
# privileged container must fail both, or a green run below would mean nothing.
mkdir -p "$work/canary"
cat > "$work/canary/pod.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: canary
  namespace: canary
spec:
  containers:
    - name: canary
      image: registry.example.org/canary:1
      securityContext:
        privileged: true
      imagePullPolicey: Always
YAML
if "$bin/kubernetes-validate" --strict --quiet -k "$KUBERNETES_VERSION" "$work/canary/pod.yaml" >/dev/null 2>&1; then
  echo "k8s-check: kubernetes-validate accepted a misspelt field: strict validation is not working" >&2
  exit 1
fi
if "$bin/checkov" --directory "$work/canary" --framework kubernetes --skip-download --quiet --compact >/dev/null 2>&1; then
  echo "k8s-check: checkov passed a privileged container: the scan is not working" >&2
  exit 1
fi
# A route with a misspelt field must fail the custom resources' validation.
cat > "$work/canary/route.json" <<'JSON'
[{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute", "metadata": {"name": "canary"},
  "spec": {"parentRefs": [{"name": "canary"}], "rules": [{"timeoutz": {"request": "1s"}}]}}]
JSON
if node k8s/custom-resources.mjs "$work/canary/route.json" "$work/canary/others.json" >/dev/null 2>&1; then
  echo "k8s-check: custom-resources.mjs accepted a misspelt field: CRD validation is not working" >&2
  exit 1
fi
# A kind skipped although a schema for it is here would go unchecked.
node k8s/custom-resources.mjs --skipped "${SKIPPED_KINDS[@]}" || exit 1
# A site that raises the video limit but leaves out edge-limits/ must fail the
# limits check (its edge would still stop at prod's), and prod with an image by
# tag, taken for a site, the site check (prod's stand-in hosts and addresses).
mkdir -p "$work/canary/limits"
cat > "$work/canary/limits/kustomization.yaml" <<YAML
resources:
  - $(realpath --relative-to="$work/canary/limits" k8s/overlays/prod)
configMapGenerator:
  - name: portal-limits
    behavior: merge
    literals:
      - PORTAL_FILES_MAX_VIDEO_MIB=2048
patches:
  - target:
      kind: Deployment
      name: gateway
    patch: |-
      - op: replace
        path: /spec/template/spec/containers/0/image
        value: registry.example.org/portal:canary
YAML
"$bin/kubectl" kustomize "$work/canary/limits" > "$work/canary/limits/rendered.yaml"
report="$("$bin/python" k8s/check-rendered.py "$work/canary/limits/rendered.yaml" --site 2>&1 || true)"
for refusal in "proxy-body-size is '500m', portal-limits says '2048m'" "stand-in 'example.org'" "is not by digest" "Deployment/gateway: no PORTAL_TRUSTED_PROXIES"; do
  if [[ $report != *"$refusal"* ]]; then
    echo "k8s-check: check-rendered.py did not refuse the canary ($refusal): the comparison is not working" >&2
    exit 1
  fi
done

# A site whose databases reach the API server at the Service's ClusterIP, and
# one whose kustomizations name two releases, must fail.
mkdir -p "$work/canary/api-server" "$work/canary/refs"
cat > "$work/canary/api-server/kustomization.yaml" <<YAML
resources:
  - $(realpath --relative-to="$work/canary/api-server" k8s/examples/site-databases)
patches:
  - target:
      kind: NetworkPolicy
      name: auth-database
    patch: |-
      - op: replace
        path: /spec/egress/1/to
        value: [{ipBlock: {cidr: 10.43.0.1/32}}]
YAML
"$bin/kubectl" kustomize "$work/canary/api-server" > "$work/canary/api-server/rendered.yaml"
report="$("$bin/python" k8s/check-rendered.py "$work/canary/api-server/rendered.yaml" --site 2>&1 || true)"
if [[ $report != *"10.43.0.1/32 is the usual ClusterIP"* ]]; then
  echo "k8s-check: check-rendered.py accepted the API server's ClusterIP in a site: the check is not working" >&2
  exit 1
fi
cat > "$work/canary/refs/kustomization.yaml" <<'YAML'
resources:
  - https://git.hospital.example/portal//k8s/overlays/prod?ref=v0.3.0
transformers:
  - https://git.hospital.example/portal//k8s/edge-limits?ref=v0.2.0
YAML
report="$("$bin/python" k8s/check-rendered.py --refs "$work/canary/refs" 2>&1 || true)"
if [[ $report != *"more than one release"* ]]; then
  echo "k8s-check: check-rendered.py accepted a site naming two releases: the check is not working" >&2
  exit 1
fi

# An app overlay that renders a database or a volume must fail: deleting it
# would delete them. The fixtures under k8s/tests/ are such overlays.
for fixture in k8s/tests/app-overlay-with-databases k8s/tests/app-overlay-with-volume; do
  "$bin/kubectl" kustomize "$fixture" > "$work/canary/stateful.yaml"
  report="$("$bin/python" k8s/check-rendered.py "$work/canary/stateful.yaml" 2>&1 || true)"
  for refusal in $(cat "$fixture/expected-refusals"); do
    if [[ $report != *"app overlay renders $refusal"* ]]; then
      echo "k8s-check: check-rendered.py did not refuse $fixture ($refusal): the stateful-object check is not working" >&2
      exit 1
    fi
  done
done

# An alert without a runbook must fail check-rules.py.
mkdir -p "$work/canary/rules"
cat > "$work/canary/rules/rendered.yaml" <<'YAML'
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: canary
spec:
  groups:
    - name: canary
      rules:
        - alert: PortalErrorRatioHigh
          expr: vector(1)
          annotations:
            summary: no runbook
YAML
report="$("$bin/python" k8s/check-rules.py "$work/canary/rules" 2>&1 || true)"
if [[ $report != *"PortalErrorRatioHigh: no runbook_url"* ]]; then
  echo "k8s-check: check-rules.py accepted an alert without runbook_url: the runbook check is not working" >&2
  exit 1
fi

# A runbook command with a misspelt flag, and one deleting by selector, must fail
# check-runbooks.py.
mkdir -p "$work/canary/runbook"
cat > "$work/canary/runbook/README.md" <<'MD'
```sh
kubectl -n portal scale deployment files --replica=0
kubectl -n portal delete pvc -l cnpg.io/cluster=files-db
```
MD
report="$("$bin/python" k8s/check-runbooks.py "$work/canary/runbook" "$bin/kubectl" "$work/canary/runbook/README.md" 2>&1 || true)"
for refusal in "unknown flag: --replica" "deletes by selector"; do
  if [[ $report != *"$refusal"* ]]; then
    echo "k8s-check: check-runbooks.py did not refuse a bad runbook command ($refusal): the runbook check is not working" >&2
    exit 1
  fi
done

# The namespace, applied on its own before any overlay.
"$bin/kubectl" kustomize k8s/namespace > "$work/namespace.yaml"
"$bin/kubernetes-validate" --strict --quiet -k "$KUBERNETES_VERSION" "$work/namespace.yaml"
echo "k8s-check: namespace: valid for Kubernetes $KUBERNETES_VERSION (strict)"

paths=()
((${#sites[@]} > 0)) || paths=("${OVERLAYS[@]}")
((${#sites[@]} > 0)) || sites=("${SITES[@]}")
for path in "${paths[@]}" "${sites[@]}"; do
  overlay="$(basename "$path")"
  [[ $path != k8s/databases/* ]] || overlay="databases-$overlay"
  site=""
  [[ $path == k8s/overlays/* || $path == k8s/databases/* ]] || site="--site"
  mkdir -p "$work/$overlay"
  "$bin/kubectl" kustomize "$path" > "$work/$overlay/rendered.yaml"
  # The namespace is k8s/namespace's alone: `kubectl delete -k` of an overlay
  # must never take it, and the databases in it, along.
  if grep -qx 'kind: Namespace' "$work/$overlay/rendered.yaml"; then
    echo "k8s-check: $overlay renders a Namespace; it belongs to k8s/namespace only" >&2
    exit 1
  fi
  "$bin/python" k8s/check-rendered.py "$work/$overlay/rendered.yaml" $site || {
    echo "k8s-check: $path: a stateful object in an app overlay, its edge not following portal-limits, or a site value missing (check-rendered.py)" >&2
    exit 1
  }

  # Custom resources against their CRDs' schemas; of the rest, split off the
  # custom resources with no schema, naming each one skipped.
  "$bin/python" -c 'import json, sys, yaml; json.dump([d for d in yaml.safe_load_all(open(sys.argv[1])) if d], open(sys.argv[2], "w"))' \
    "$work/$overlay/rendered.yaml" "$work/$overlay/docs.json"
  node k8s/custom-resources.mjs "$work/$overlay/docs.json" "$work/$overlay/others.json" || {
    echo "k8s-check: $overlay: custom resources do not match their CRDs' schemas" >&2
    exit 1
  }
  "$bin/python" - "$work/$overlay" "${SKIPPED_KINDS[@]}" <<'PY'
import json, sys, yaml
folder, skipped = sys.argv[1], set(sys.argv[2:])
with open(f"{folder}/others.json") as f:
    docs = json.load(f)
kept = []
for doc in docs:
    kind = f"{doc['apiVersion']} {doc['kind']}"
    if kind in skipped:
        print(f"k8s-check: {folder.rsplit('/', 1)[1]}: {doc['kind']}/{doc['metadata']['name']} ({doc['apiVersion']}): no schema offline, not validated")
    else:
        kept.append(doc)
with open(f"{folder}/validated.yaml", "w") as f:
    yaml.safe_dump_all(kept, f)
PY

  # kubernetes-validate only warns on a kind it has no schema for: any warning fails here.
  report="$("$bin/kubernetes-validate" --strict --quiet -k "$KUBERNETES_VERSION" "$work/$overlay/validated.yaml" 2>&1)" || {
    echo "$report" >&2
    echo "k8s-check: $overlay: kubernetes-validate failed" >&2
    exit 1
  }
  if [[ -n "$report" ]]; then
    echo "$report" >&2
    echo "k8s-check: $overlay: kubernetes-validate reported problems" >&2
    exit 1
  fi
  echo "k8s-check: $overlay: valid for Kubernetes $KUBERNETES_VERSION (strict)"

  # The metrics the rules and the dashboard name against the code's, every
  # alert's runbook section and test, the latency alert's transfers
  # (check-rules.py); the PrometheusRule's groups as a rule file for promtool.
  "$bin/python" k8s/check-rules.py "$work/$overlay"
  if [[ -d "$work/$overlay/rules" ]]; then
    cp k8s/components/monitoring/rules-test.yaml "$work/$overlay/rules/"
    promtool check rules "$work/$overlay/rules/rules.yaml" >/dev/null \
      && promtool test rules "$work/$overlay/rules/rules-test.yaml" || {
      echo "k8s-check: $overlay: promtool refused the PrometheusRule" >&2
      exit 1
    }
    echo "k8s-check: $overlay: alert rules pass promtool check and test"
    rm -r "$work/$overlay/rules"
  fi

  kind="${site:+site}"
  skips="SKIP_CHECKS_${kind:-${overlay//-/_}}"
  skip_list="${!skips}"
  rm "$work/$overlay/validated.yaml" "$work/$overlay/docs.json" "$work/$overlay/others.json"
  "$bin/checkov" --directory "$work/$overlay" --framework kubernetes --skip-download \
    --quiet --compact ${skip_list:+--skip-check "$skip_list"} || {
    echo "k8s-check: $overlay: checkov found failed checks" >&2
    exit 1
  }
  echo "k8s-check: $overlay: checkov passed (skipped: ${skip_list:-none})"
done
# k8s/README.md's runbooks: their files added to the example site and checked,
# their kubectl commands run against no API server, no delete of what they do
# not name (check-runbooks.py). Only for the examples (the runbooks name them).
if ((${#paths[@]} > 0)); then
  mkdir -p "$work/runbooks"
  "$bin/python" k8s/check-runbooks.py "$work/runbooks" "$bin/kubectl" || {
    echo "k8s-check: a runbook in k8s/README.md does not check" >&2
    exit 1
  }
fi

# The sites' kustomizations (the examples, or all those named) are one site: one release.
"$bin/python" k8s/check-rendered.py --refs "${sites[@]}" || {
  echo "k8s-check: the site's kustomizations name more than one release" >&2
  exit 1
}
echo "k8s-check: all overlays passed"
