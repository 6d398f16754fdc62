"""A rendered overlay's alert rules and dashboard, against the code and the runbook.

Run by k8s/check.sh on each rendered overlay:

    check-rules.py <folder>     (reads <folder>/rendered.yaml)

Fails, naming each problem, unless:
- every `portal_*` metric a rule or a dashboard query names is one the Rust code
  records, and every dashboard query names one;
- every alert has a `runbook_url` whose address ends in k8s/README.md and whose
  `#section` is a heading of k8s/README.md (what the alert means, what to check,
  what to do);
- every alert fires in some test of components/monitoring/rules-test.yaml, and
  every alert a test names exists;
- the latency alert leaves out every transfer: each path of the HTTPRoute's
  `transfers` rule and each route the gateway serves as a download (the REST
  side), and each streaming RPC of the protos (the gRPC side); and every such
  download route is in the HTTPRoute's `transfers` rule.
When the render has rules, writes them to <folder>/rules/rules.yaml for promtool,
each runbook_url's address written back as "RUNBOOKS" (the tests' form, the same
for every site).
"""

import json
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "k8s/README.md"
RULES_TEST = ROOT / "k8s/components/monitoring/rules-test.yaml"
ROUTES = ROOT / "k8s/components/gateway-api/routes.yaml"
LATENCY_ALERT = "PortalLatencyHigh"

problems = []


def recorded_metrics():
    recorded = set()
    sources = [*(ROOT / "gateway/src").rglob("*.rs"), *(ROOT / "services").glob("*/src/**/*.rs")]
    for source in sources:
        for kind, name in re.findall(r'metrics::(counter|gauge|histogram)!\(\s*"(portal_\w+)"', source.read_text()):
            recorded |= {name} if kind != "histogram" else {f"{name}_{part}" for part in ("bucket", "sum", "count")}
    return recorded


def slug(heading):
    """GitHub's and GitLab's anchor of a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def readme_anchors():
    return {slug(line.lstrip("#")) for line in README.read_text().splitlines() if line.startswith("#")}


def transfers():
    """The REST paths (with `{id}` after a prefix) and RPC paths that are transfers."""
    rest = set()
    for doc in yaml.safe_load_all(ROUTES.read_text()):
        if doc and doc["kind"] == "HTTPRoute":
            for rule in doc["spec"]["rules"]:
                if rule.get("name") == "transfers":
                    for match in rule["matches"]:
                        path = match["path"]
                        rest.add(path["value"] + ("/{id}" if path["type"] == "PathPrefix" else ""))
    downloads = set()
    for source in (ROOT / "gateway/src/rest").rglob("*.rs"):
        downloads |= set(re.findall(r'Endpoint::download\(\s*"([^"]+)"', source.read_text()))
    for route in sorted(downloads - rest):
        problems.append(f"{route} is a download (Endpoint::download) but not in the HTTPRoute's `transfers` rule")
    streams = set()
    for proto in (ROOT / "proto").rglob("*.proto"):
        text = proto.read_text()
        package = re.search(r"^package ([\w.]+);", text, re.M).group(1)
        for service, body in re.findall(r"service (\w+) \{(.*?)\n\}", text, re.S):
            for method, request, response in re.findall(r"rpc (\w+)\s*\(([^)]*)\)\s*returns\s*\(([^)]*)\)", body):
                if "stream " in f"{request} {response}":
                    streams.add(f"/{package}.{service}/{method}")
    return {p for p in rest | downloads if p.startswith("/api/")}, streams


def check_latency_exclusions(rule):
    expr = rule["expr"]
    route_out = re.search(r'route!~"([^"]+)"', expr)
    method_out = re.search(r"method!~`([^`]+)`", expr)
    rest, streams = transfers()
    if not route_out or not method_out:
        problems.append(f"{LATENCY_ALERT}: no route!~\"…\" or method!~`…` exclusion to check")
        return
    for path in sorted(rest):
        if not re.fullmatch(route_out.group(1), path):
            problems.append(f"{LATENCY_ALERT}: the transfer {path} is not left out (route!~)")
    for path in sorted(streams):
        if not re.fullmatch(method_out.group(1), path):
            problems.append(f"{LATENCY_ALERT}: the stream {path} is not left out (method!~)")


def main():
    folder = pathlib.Path(sys.argv[1])
    recorded = recorded_metrics()

    def unknown(expr):
        return sorted(set(re.findall(r"\bportal_\w+", expr)) - recorded)

    docs = [d for d in yaml.safe_load_all((folder / "rendered.yaml").read_text()) if d]
    anchors = readme_anchors()
    groups, alerts = [], []
    for doc in docs:
        if doc["kind"] == "PrometheusRule":
            groups += doc["spec"]["groups"]
            for rule in (r for g in doc["spec"]["groups"] for r in g["rules"]):
                name = rule.get("alert") or rule.get("record")
                if missing := unknown(rule["expr"]):
                    problems.append(f"rule {name}: {missing} not recorded by the code")
                if "alert" not in rule:
                    continue
                alerts.append(name)
                url = rule.get("annotations", {}).get("runbook_url")
                if not url:
                    problems.append(f"alert {name}: no runbook_url (a section of k8s/README.md saying what to check and do)")
                    continue
                address, _, section = url.partition("#")
                if not address.endswith("k8s/README.md") or section not in anchors:
                    problems.append(f"alert {name}: runbook_url {url} is not a section of k8s/README.md")
                else:
                    rule["annotations"]["runbook_url"] = f"RUNBOOKS#{section}"
                if name == LATENCY_ALERT:
                    check_latency_exclusions(rule)
        if doc["kind"] == "ConfigMap" and doc["metadata"].get("labels", {}).get("grafana_dashboard") == "1":
            for file, text in doc["data"].items():
                def panels(items):
                    for panel in items:
                        yield panel
                        yield from panels(panel.get("panels", []))
                for panel in panels(json.loads(text)["panels"]):
                    for target in panel.get("targets", []):
                        names = re.findall(r"\bportal_\w+", target["expr"])
                        if not names or unknown(target["expr"]):
                            problems.append(f"{file}, panel {panel['title']!r}: {target['expr']!r} names no metric the code records")
    if alerts:
        fired, named = set(), set()
        for test in yaml.safe_load(RULES_TEST.read_text())["tests"]:
            for case in test.get("alert_rule_test", []):
                named.add(case["alertname"])
                if case.get("exp_alerts"):
                    fired.add(case["alertname"])
        for name in alerts:
            if name not in fired:
                problems.append(f"alert {name}: no test in rules-test.yaml makes it fire")
        for name in sorted(named - set(alerts)):
            problems.append(f"rules-test.yaml tests {name}, which no rule defines")
    if groups:
        (folder / "rules").mkdir()
        (folder / "rules" / "rules.yaml").write_text(yaml.safe_dump({"groups": groups}, allow_unicode=True))
    for problem in problems:
        print(f"k8s-check: {folder.name}: {problem}", file=sys.stderr)
    if alerts and not problems:
        print(f"k8s-check: {folder.name}: {len(alerts)} alerts, each with its runbook section and a test that fires it")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
