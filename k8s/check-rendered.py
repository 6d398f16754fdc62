"""A rendered overlay: an app overlay holds no stateful object, its edge follows the
limits (k8s/base/limits.env), and a site's values are filled in.

Run by k8s/check.sh on each rendered overlay:

    check-rendered.py <rendered.yaml> [--site]

A render with a Deployment is an app overlay (the portal), which `kubectl delete
-k` may remove at any time: it fails if it renders a database or a volume (a
CloudNativePG or Barman Cloud resource, a PersistentVolumeClaim, a StatefulSet
with volume claims), which belong to k8s/databases/ and a site's databases
kustomization, applied apart. A render without one is a databases kustomization
and has no edge to check.

Fails unless the limits base/limits.env sets are the binary's own defaults (read
from the Rust sources, so the manifests and a bare `portal` agree); the files and
gateway Deployments read them from the ConfigMap `portal-limits` and set none of
them otherwise; the video limit is the largest upload and the gateway's idle time
outlasts its calls; and every edge in the render follows the ConfigMap: each
Ingress's body limit is the largest upload and its timeouts the idle time, each
HTTPRoute rule's timeout the idle time (transfers: off). With --site, the render
is a site's: none of prod's stand-in values (example.org, 192.0.2.0/24) is left,
every image is named by digest, the gateway and every service read
PORTAL_TRUSTED_PROXIES (without it the audit log and the sign-in limits see the
ingress's or the gateway's address, not the person's), and the databases' rule to
the Kubernetes API server names no usual ClusterIP of the Service `kubernetes`.
Always: the README's configuration table names every PORTAL_* variable the binary
reads (clap's `env = "…"` in the Rust sources) and none it does not.

    check-rendered.py --refs <kustomization folder>…

checks a site's kustomizations instead: every `?ref=` they name (in a field, or
in a comment showing the remote form) is the same release.
"""

import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
LIMITS_ENV = ROOT / "k8s/base/limits.env"
SOURCES = [ROOT / "services", ROOT / "gateway/src"]
STAND_INS = ("example.org", "192.0.2.")
README = ROOT / "README.md"
# The ClusterIP the Service `kubernetes` gets in common distributions' default
# Service ranges (kubeadm, k3s/RKE2, OpenShift, managed clouds): the API server
# must be reached at its endpoints' addresses, never there (Calico and Cilium
# match policies after DNAT).
API_SERVER_CLUSTER_IPS = ("10.96.0.1/32", "10.43.0.1/32", "172.30.0.1/32", "10.0.0.1/32", "10.100.0.1/32")
SERVICES = ("auth", "education", "wiki", "files")

problems = []


def fail(message):
    problems.append(message)


def env_file(path):
    pairs = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            pairs[key] = value
    return pairs


def rust_sources():
    for folder in SOURCES:
        yield from folder.rglob("*.rs")


def binary_default(variable):
    """The clap default of the argument read from `variable`, as a string."""
    for path in rust_sources():
        text = path.read_text()
        at = text.find(f'env = "{variable}"')
        if at < 0:
            continue
        argument = text[at : text.find("pub ", at)]
        found = re.search(r"default_value_t = ([^,\n]+)", argument)
        if not found:
            return None
        expression = found.group(1).strip()
        if expression.isdigit():
            return expression
        # A Duration constant's seconds: `path::NAME.as_secs()`.
        named = re.fullmatch(r"(?:\w+::)*(\w+)\.as_secs\(\)", expression)
        if named:
            for other in rust_sources():
                constant = re.search(
                    rf"const {named.group(1)}: Duration = Duration::from_secs\((\d+)\)",
                    other.read_text(),
                )
                if constant:
                    return constant.group(1)
        return None
    return None


def check_defaults(configured):
    for variable, value in configured.items():
        default = binary_default(variable)
        if default is None:
            fail(f"base/limits.env: {variable}: no default found in the Rust sources")
        elif default != value:
            fail(f"base/limits.env: {variable}={value}, but the binary's default is {default}")


def containers(doc):
    """Every container of a workload, its init containers (the migration) too."""
    pod = doc["spec"]["template"]["spec"]
    return pod.get("initContainers", []) + pod["containers"]


# API groups whose every kind is a database's (CloudNativePG, its Barman Cloud plugin).
STATEFUL_GROUPS = ("postgresql.cnpg.io", "barmancloud.cnpg.io")


def stateful(doc):
    """Why deleting `doc` would delete data, or None."""
    group = doc["apiVersion"].rpartition("/")[0]
    if group in STATEFUL_GROUPS:
        return doc["kind"]
    if doc["kind"] == "PersistentVolumeClaim":
        return "PersistentVolumeClaim"
    if doc["kind"] == "StatefulSet" and doc["spec"].get("volumeClaimTemplates"):
        return "StatefulSet (with volumeClaimTemplates)"
    return None


def check_app_overlay(docs):
    for doc in docs:
        why = stateful(doc)
        if why:
            fail(
                f"an app overlay renders {why} {doc['metadata']['name']}: `kubectl delete -k` "
                "of the overlay would delete its data; it belongs to k8s/databases/ (or the "
                "site's databases kustomization), applied apart"
            )


def guaranteed(resources):
    """Requests equal to limits for CPU and memory: Guaranteed QoS."""
    requests, limits = resources.get("requests", {}), resources.get("limits", {})
    return all(key in limits and requests.get(key, limits[key]) == limits[key] for key in ("cpu", "memory"))


def check_databases(docs):
    """Each CloudNativePG Cluster as production needs it (k8s/README.md,
    «Databases: failover and the PostgreSQL version»), and the image it runs
    pinned by digest."""
    catalogs = {}
    for doc in docs:
        if doc["kind"] == "ImageCatalog":
            catalogs[doc["metadata"]["name"]] = {i["major"]: i["image"] for i in doc["spec"]["images"]}
            for image in catalogs[doc["metadata"]["name"]].values():
                if "@sha256:" not in image:
                    fail(f"ImageCatalog/{doc['metadata']['name']}: {image} is not by digest")
    for doc in docs:
        name = f"Cluster/{doc['metadata']['name']}"
        if doc["kind"] == "ObjectStore":
            sidecar = doc["spec"].get("instanceSidecarConfiguration", {}).get("resources", {})
            if not guaranteed(sidecar):
                fail(f"ObjectStore/{doc['metadata']['name']}: the sidecar's requests differ from its limits (the instances' QoS would not be Guaranteed)")
        if doc["kind"] != "Cluster":
            continue
        spec = doc["spec"]
        if spec.get("instances", 1) < 3:
            fail(f"{name}: {spec.get('instances', 1)} instances; 3 keep a standby to acknowledge writes while one is lost")
        synchronous = spec.get("postgresql", {}).get("synchronous", {})
        if synchronous.get("method") != "any" or synchronous.get("number", 0) < 1:
            fail(f"{name}: not quorum-synchronous (postgresql.synchronous method any, number ≥ 1): a failover may lose acknowledged writes")
        if synchronous.get("dataDurability", "required") != "required":
            fail(f"{name}: dataDurability {synchronous['dataDurability']!r} acknowledges writes no standby has")
        if spec.get("affinity", {}).get("podAntiAffinityType") != "required":
            fail(f"{name}: pod anti-affinity is not required: two instances may share a node")
        if "walStorage" not in spec:
            fail(f"{name}: no walStorage: WAL shares the data's volume")
        if not guaranteed(spec.get("resources", {})):
            fail(f"{name}: requests differ from limits: not Guaranteed QoS")
        reference = spec.get("imageCatalogRef")
        if reference:
            image = catalogs.get(reference["name"], {}).get(reference["major"])
            if image is None:
                fail(f"{name}: ImageCatalog {reference['name']} has no major {reference['major']} in this render")
        elif "@sha256:" not in spec.get("imageName", ""):
            fail(f"{name}: neither an ImageCatalog nor an imageName by digest: the operator's default major would run")


def check_render(docs, configured, site):
    by_kind = {}
    for doc in docs:
        by_kind.setdefault(doc["kind"], []).append(doc)
    deployments = {d["metadata"]["name"]: d for d in by_kind.get("Deployment", [])}

    # The ConfigMap the files Deployment reads (its name carries kustomize's hash).
    limits_name = None
    for name in ("files", "gateway"):
        if name not in deployments:
            fail(f"no {name} Deployment")
            continue
        container = deployments[name]["spec"]["template"]["spec"]["containers"][0]
        refs = [
            source["configMapRef"]["name"]
            for source in container.get("envFrom", [])
            if "configMapRef" in source
            and source["configMapRef"]["name"].startswith("portal-limits")
        ]
        if len(refs) != 1:
            fail(f"Deployment/{name} does not read the ConfigMap portal-limits")
            continue
        limits_name = limits_name or refs[0]
    for deployment in deployments.values():
        for container in containers(deployment):
            for variable in container.get("env", []):
                if variable["name"] in configured:
                    fail(
                        f"Deployment/{deployment['metadata']['name']} sets {variable['name']} "
                        "itself: the edge would not follow it; change portal-limits instead"
                    )
    maps = {m["metadata"]["name"]: m.get("data", {}) for m in by_kind.get("ConfigMap", [])}
    if limits_name not in maps:
        fail("the ConfigMap portal-limits is not in the render")
        return
    limits = maps[limits_name]
    try:
        document = int(limits["PORTAL_FILES_MAX_DOCUMENT_MIB"])
        video = int(limits["PORTAL_FILES_MAX_VIDEO_MIB"])
        call = int(limits["PORTAL_UPSTREAM_CALL_TIMEOUT"])
        idle = int(limits["PORTAL_HTTP_IDLE_TIMEOUT"])
    except (KeyError, ValueError) as error:
        fail(f"portal-limits: {error!r}")
        return
    if video < document:
        fail(
            f"portal-limits: the video limit ({video} MiB) is below the document limit "
            f"({document} MiB); the edge's body limit is the video's"
        )
    if idle <= call:
        fail(
            f"portal-limits: PORTAL_HTTP_IDLE_TIMEOUT ({idle} s) must exceed "
            f"PORTAL_UPSTREAM_CALL_TIMEOUT ({call} s): the edge waits that long for a call"
        )

    body, seconds = f"{video}m", str(idle)
    ingresses = by_kind.get("Ingress", [])
    routes = by_kind.get("HTTPRoute", [])
    if not ingresses and not routes:
        fail("no edge: neither an Ingress nor an HTTPRoute")
    for ingress in ingresses:
        name = ingress["metadata"]["name"]
        annotations = ingress["metadata"].get("annotations", {})
        wanted = {
            "nginx.ingress.kubernetes.io/proxy-body-size": body,
            "nginx.ingress.kubernetes.io/proxy-read-timeout": seconds,
            "nginx.ingress.kubernetes.io/proxy-send-timeout": seconds,
        }
        for key, value in wanted.items():
            if annotations.get(key) != value:
                fail(f"Ingress/{name}: {key} is {annotations.get(key)!r}, portal-limits says {value!r}")
        print(f"Ingress/{name}: bodies up to {body}, {seconds} s between reads: as portal-limits")
    for route in routes:
        name = route["metadata"]["name"]
        for index, rule in enumerate(route["spec"].get("rules", [])):
            timeout = rule.get("timeouts", {}).get("request")
            wanted = "0s" if rule.get("name") == "transfers" else f"{idle}s"
            if timeout != wanted:
                fail(
                    f"HTTPRoute/{name}: rule {rule.get('name', index)}: request timeout "
                    f"{timeout!r}, portal-limits says {wanted!r}"
                )
        print(f"HTTPRoute/{name}: calls time out after {idle}s, transfers never: as portal-limits")
    print(
        f"portal-limits: documents {document} MiB, videos {video} MiB, "
        f"calls {call} s, idle {idle} s"
    )

    check_site(docs, site)


def binary_variables():
    """Every PORTAL_* variable the binary reads: clap's `env = "…"`."""
    names = set()
    for path in rust_sources():
        names |= set(re.findall(r'\benv = "(PORTAL_\w+)"', path.read_text()))
    return names


def check_config_table():
    """The README's configuration table against the variables the binary reads."""
    named = set()
    for line in README.read_text().splitlines():
        if not line.startswith("| `PORTAL_"):
            continue
        first = line.split("|")[1]
        names = set(re.findall(r"PORTAL_\w+", first))
        if "(or `_FILE`)" in first:
            names |= {f"{name}_FILE" for name in names}
        named |= names
    read = binary_variables()
    for name in sorted(read - named):
        fail(f"README.md's configuration table does not name {name}, which the binary reads")
    for name in sorted({n for n in named if not n.endswith("_FILE")} - read):
        fail(f"README.md's configuration table names {name}, which the binary does not read")


def environment(container, maps):
    """A container's variables: its ConfigMaps' (envFrom), then its own `env`."""
    values = {}
    for source in container.get("envFrom", []):
        if "configMapRef" in source:
            values.update(maps.get(source["configMapRef"]["name"], {}))
    for variable in container.get("env", []):
        values[variable["name"]] = variable.get("value", "(from elsewhere)")
    return values


def check_trusted_proxies(docs):
    maps = {m["metadata"]["name"]: m.get("data", {}) for m in docs if m["kind"] == "ConfigMap"}
    for doc in docs:
        name = doc["metadata"]["name"]
        if doc["kind"] != "Deployment" or name not in ("gateway", *SERVICES):
            continue
        container = doc["spec"]["template"]["spec"]["containers"][0]
        if not environment(container, maps).get("PORTAL_TRUSTED_PROXIES", "").strip():
            fail(
                f"Deployment/{name}: no PORTAL_TRUSTED_PROXIES: the audit log and sign-in limits "
                "would record the ingress's (or gateway's) address for everyone; set the pod CIDR"
            )


def check_api_server(docs):
    for doc in docs:
        if doc["kind"] != "NetworkPolicy":
            continue
        for rule in doc["spec"].get("egress", []):
            ports = {p.get("port") for p in rule.get("ports", [])}
            for peer in rule.get("to", []):
                cidr = peer.get("ipBlock", {}).get("cidr")
                if cidr in API_SERVER_CLUSTER_IPS and ports & {443, 6443}:
                    fail(
                        f"NetworkPolicy/{doc['metadata']['name']}: {cidr} is the usual ClusterIP of the "
                        "Service `kubernetes`; name the API server's endpoints (kubectl get endpointslices "
                        "-n default -l kubernetes.io/service-name=kubernetes)"
                    )


def check_refs(folders):
    """One release across a site's kustomizations."""
    refs = {}
    for folder in folders:
        for name in ("kustomization.yaml", "kustomization.yml", "Kustomization"):
            path = Path(folder) / name
            if path.exists():
                for ref in re.findall(r"\?ref=([\w.\-/]+)", path.read_text()):
                    refs.setdefault(ref, []).append(str(path))
    if len(refs) > 1:
        fail(
            "a site names more than one release (?ref=): "
            + "; ".join(f"{ref} in {', '.join(sorted(set(paths)))}" for ref, paths in sorted(refs.items()))
            + ": upgrade every kustomization of the site in one commit"
        )
    elif refs:
        print(f"one release across the site: ?ref={next(iter(refs))}")


def check_site(docs, site):
    """A site's render: none of prod's stand-ins left, every image by digest, the
    trusted proxies set, the API server named by its endpoints."""
    if not site:
        return
    check_trusted_proxies(docs)
    check_api_server(docs)
    for doc in docs:
        text = yaml.safe_dump(doc)
        for stand_in in STAND_INS:
            if stand_in in text:
                fail(f"{doc['kind']}/{doc['metadata']['name']}: still holds prod's stand-in {stand_in!r}")
    for doc in docs:
        if doc["kind"] == "Deployment":
            for container in containers(doc):
                if "@sha256:" not in container["image"]:
                    fail(f"Deployment/{doc['metadata']['name']}: image {container['image']} is not by digest")


def main():
    if sys.argv[1] == "--refs":
        check_refs(sys.argv[2:])
        for problem in problems:
            print(f"check-rendered: {problem}", file=sys.stderr)
        sys.exit(1 if problems else 0)
    rendered, site = sys.argv[1], "--site" in sys.argv[2:]
    with open(rendered) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    configured = env_file(LIMITS_ENV)
    check_defaults(configured)
    check_config_table()
    if any(doc["kind"] == "Deployment" for doc in docs):
        check_app_overlay(docs)
        check_render(docs, configured, site)
    else:
        print("a databases kustomization: no edge, no limits to follow")
        check_databases(docs)
        check_site(docs, site)
    for problem in problems:
        print(f"check-rendered: {problem}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
