"""k8s/README.md's runbooks as code: what they tell an operator to type, run here.

Run by k8s/check.sh (`make k8s-check`):

    check-runbooks.py <work folder> <kubectl> [<a README instead of k8s/README.md>]

No Kubernetes runs here, so:
- every file the runbooks give (a YAML block whose first line is
  `# <the site's databases>/<file>, under resources:` or `… patches:`, or the
  same with `<the site's overlay>`) is added, as it says, to a copy of the
  example site (k8s/examples/site-databases, k8s/examples/site), and the copies
  are rendered and checked as a site (check-rendered.py --site), then held to what
  the runbook means: the restored cluster reads the history of the one it
  replaces and writes a new one, is labelled as its service's database, has its
  own nightly backup; the service mounts the new cluster's Secrets; the retired
  cluster is gone from the render;
- every `kubectl` command (each line of a ```sh block, and each inline `kubectl …`
  span) is run against an API server that is not there, with the placeholders
  filled in (`<the site's overlay>` is the copy above): kubectl parses its flags,
  and renders `-k` kustomizations, before it connects, so a misspelt flag, a
  missing argument or a kustomization that does not build fails here, while
  "cannot connect" is as far as a good command can go; `kubectl cnpg …` needs the
  CloudNativePG plugin, absent here: counted, not run;
- no command deletes what it does not name: a `kubectl delete` names its kind and
  objects (no --all, -l, --selector, -A, namespaces) or is `delete -k` of an app
  overlay (which renders no stateful object: check-rendered.py), `kubectl cnpg
  destroy` names the instance, `aws s3api delete-object` a --version-id.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "k8s/README.md"
SITE = ROOT / "k8s/examples/site"
SITE_DATABASES = ROOT / "k8s/examples/site-databases"
# What the placeholders stand for when a command is run here.
PLACEHOLDERS = {
    "<the site's overlay>": None,  # the runbook's copy of the example site
    "<the site's databases>": None,
    "<overlay>": "prod",
    "<part>": "auth",
    "<job>": "auth",
    "<deployment>": "wiki",
    "<service>": "files",
    "<cluster>": "files-db",
    "<pod>": "files-db-2",
    "<container>": "postgres",
    "<instance number>": "2",
    "<instance>": "files-db-2",
    "<pid>": "4242",
    "<key>": "document/0f3a",
    "<the marker's id>": "3HL4kqtJlcpXroDTDmJ",
    "<kind>": "configmap",
    "<name>": "portal-leftover",
}
CONNECT_FAILURES = (
    "connection refused",
    "unable to connect to the server",
    "couldn't get current server api group list",
    "no route to host",
    "dial tcp",
    "i/o timeout",
    "context deadline exceeded",
    "was refused",
)
# An inline span that ends with one of these (or with a flag) mentions a command
# in prose ("`kubectl apply -k` never overwrites …"); it is not one to type.
VERBS = {"apply", "scale", "kustomize", "get", "delete", "logs", "describe", "create", "wait", "rollout", "edit", "undo", "kubectl"}
STATEFUL_KINDS = ("cluster", "clusters", "pvc", "persistentvolumeclaim", "persistentvolumeclaims", "objectstore", "scheduledbackup")

problems = []


def fail(message):
    problems.append(message)


def blocks(text, language):
    return re.findall(rf"^ *```{language}\n(.*?)^ *```", text, re.S | re.M)


def copy_site(source, target):
    """A copy of an example kustomization, its bases pointing back into k8s/."""
    shutil.copytree(source, target)
    path = target / "kustomization.yaml"
    kustomization = yaml.safe_load(path.read_text())
    for field in ("resources", "components", "transformers"):
        entries = kustomization.get(field, [])
        for index, entry in enumerate(entries):
            original = (source / entry).resolve()
            if isinstance(entry, str) and original.is_dir() and source.resolve() not in original.parents:
                entries[index] = os.path.relpath(original, target)
    path.write_text(yaml.safe_dump(kustomization, allow_unicode=True, sort_keys=False))
    return kustomization


def add_runbook_files(text, sites):
    """The runbook's files, added to the copies as each one's first line says."""
    added = {name: [] for name in sites}
    for block in blocks(text, "yaml"):
        block = re.sub(r"^   ", "", block, flags=re.M)
        first = block.splitlines()[0]
        found = re.match(r"# (<the site's (?:overlay|databases)>)/([\w.-]+), under (resources|patches):", first)
        if not found:
            continue
        placeholder, file, field = found.groups()
        folder = sites[placeholder]
        (folder / file).write_text(block)
        path = folder / "kustomization.yaml"
        kustomization = yaml.safe_load(path.read_text())
        kustomization.setdefault(field, []).append(file if field == "resources" else {"path": file})
        path.write_text(yaml.safe_dump(kustomization, allow_unicode=True, sort_keys=False))
        added[placeholder].append(file)
    return added


def render(kubectl, folder):
    result = subprocess.run([kubectl, "kustomize", str(folder)], capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"{folder.name}: does not render with the runbook's files: {result.stderr.strip()}")
        return []
    (folder / "rendered.yaml").write_text(result.stdout)
    checked = subprocess.run(
        [sys.executable, str(ROOT / "k8s/check-rendered.py"), str(folder / "rendered.yaml"), "--site"],
        capture_output=True, text=True,
    )
    if checked.returncode != 0:
        fail(f"{folder.name} with the runbook's files: {checked.stderr.strip()}")
    return [d for d in yaml.safe_load_all(result.stdout) if d]


def check_restore(databases, overlay, retired):
    clusters = {d["metadata"]["name"]: d for d in databases if d["kind"] == "Cluster"}
    backups = {d["metadata"]["name"]: d for d in databases if d["kind"] == "ScheduledBackup"}
    restored = [c for c in clusters.values() if "recovery" in c["spec"].get("bootstrap", {})]
    if not restored:
        fail("the runbook's files make no cluster bootstrapped by recovery")
    mounted = {}
    for doc in overlay:
        if doc["kind"] == "Deployment":
            for volume in doc["spec"]["template"]["spec"].get("volumes", []):
                if "secret" in volume:
                    mounted[(doc["metadata"]["name"], volume["name"])] = volume["secret"]["secretName"]
    for cluster in restored:
        name, spec = cluster["metadata"]["name"], cluster["spec"]
        recovery = spec["bootstrap"]["recovery"]
        sources = {e["name"]: e for e in spec.get("externalClusters", [])}
        source = sources.get(recovery.get("source"), {}).get("plugin", {}).get("parameters", {})
        writes = spec["plugins"][0]["parameters"]
        service = spec.get("inheritedMetadata", {}).get("labels", {}).get("portal-database")
        old = f"{service}-db"
        if old not in clusters and old not in retired:
            fail(f"Cluster/{name}: labelled portal-database: {service!r}, but there is no Cluster {old}")
            continue
        if old in clusters:
            old_writes = clusters[old]["spec"]["plugins"][0]["parameters"]
            if source != old_writes:
                fail(f"Cluster/{name}: restores from {source}, but {old} writes {old_writes}")
        if writes.get("serverName") in {c["spec"]["plugins"][0]["parameters"]["serverName"] for n, c in clusters.items() if n != name}:
            fail(f"Cluster/{name}: writes into another cluster's history ({writes.get('serverName')})")
        if writes.get("serverName") == source.get("serverName"):
            fail(f"Cluster/{name}: writes into the history it restores from")
        if not any(b["spec"]["cluster"]["name"] == name for b in backups.values()):
            fail(f"Cluster/{name}: no ScheduledBackup backs it up")
        for volume, secret in (("db", f"{name}-app"), ("db-ca", f"{name}-ca")):
            if mounted.get((service, volume)) != secret:
                fail(f"Deployment/{service}: volume {volume} mounts {mounted.get((service, volume))}, not {secret}")
        print(f"check-runbooks: Cluster/{name} restores {old}'s history ({source.get('serverName')}) into its own "
              f"({writes.get('serverName')}); Deployment/{service} mounts {name}-app and {name}-ca")
    for name in retired:
        if name in clusters:
            fail(f"Cluster/{name}: still rendered after the runbook retires it")


def commands(text):
    """Every kubectl (and aws … delete) command the README gives, with where."""
    found = []
    for block in blocks(text, "sh"):
        lines = block.replace("\\\n", " ").splitlines()
        for line in lines:
            line = line.strip()
            if re.search(r"\b(kubectl|aws)\b", line) and not line.startswith("#"):
                found.append(line.split("  #")[0].strip())
    prose = re.sub(r"^ *```.*?^ *```", "", text, flags=re.S | re.M)
    for span in re.findall(r"`((?:kubectl|aws) [^`]+)`", prose.replace("\n", " ")):
        span = re.sub(r"\s+", " ", span).strip()
        last = span.split()[-1]
        if last in VERBS or last.startswith("-"):
            continue
        found.append(span)
    return found


def check_deletes(command, overlays_ok):
    for part in re.split(r"\||&&|;|\$\(", command):
        words = part.split()
        if "delete" not in words and "destroy" not in words and "delete-object" not in words:
            continue
        if words[:1] == ["aws"]:
            if "delete-object" in words and "--version-id" not in part:
                fail(f"`{command}`: deletes an object's current version; name the one version (--version-id)")
            continue
        if "destroy" in words:
            after = words[words.index("destroy") + 1:]
            plain = [w for w in after if not w.startswith("-")]
            if len(plain) < 2:
                fail(f"`{command}`: destroys an instance it does not name (cluster and instance number)")
            continue
        after = [w for w in words[words.index("delete") + 1:]]
        flags = [w for w in after if w.startswith("-")]
        if any(f in flags or f.split("=")[0] in flags for f in ("--all", "-l", "--selector", "-A", "--all-namespaces", "-f", "--filename")) \
                or any(f.startswith(("--selector", "-l=")) for f in flags):
            fail(f"`{command}`: deletes by selector, file or --all, not by name")
            continue
        if "-k" in after:
            target = after[after.index("-k") + 1]
            if target not in overlays_ok:
                fail(f"`{command}`: `delete -k` of {target}, which is not an app overlay checked to hold no state")
            continue
        plain = [w for w in after if not w.startswith("-")]
        if len(plain) < 2 or "/" in plain[0] and len(plain) < 1:
            fail(f"`{command}`: deletes without naming kind and object")
        elif plain[0] in ("namespace", "namespaces", "ns"):
            fail(f"`{command}`: deletes a namespace, and every database in it")


def main():
    work, kubectl = Path(sys.argv[1]), sys.argv[2]
    text = (Path(sys.argv[3]) if len(sys.argv) > 3 else README).read_text()

    # The runbook's files in copies of the example site.
    site, databases = work / "site", work / "site-databases"
    copy_site(SITE, site)
    copy_site(SITE_DATABASES, databases)
    PLACEHOLDERS["<the site's overlay>"] = str(site)
    PLACEHOLDERS["<the site's databases>"] = str(databases)
    added = add_runbook_files(text, {"<the site's overlay>": site, "<the site's databases>": databases})
    print(f"check-runbooks: the runbooks' files added to the site: {added}")
    retired = []
    for file in added["<the site's databases>"]:
        for doc in yaml.safe_load_all((databases / file).read_text()):
            if doc and doc.get("$patch") == "delete" and doc["kind"] == "Cluster":
                retired.append(doc["metadata"]["name"])
    # First without the retirement (the restore's steps 4–8), then with it.
    retiring = [f for f in added["<the site's databases>"] if f.startswith("retire-")]
    kustomization = yaml.safe_load((databases / "kustomization.yaml").read_text())
    later = [p for p in kustomization.get("patches", []) if isinstance(p, dict) and p.get("path") in retiring]
    kustomization["patches"] = [p for p in kustomization.get("patches", []) if p not in later]
    (databases / "kustomization.yaml").write_text(yaml.safe_dump(kustomization, sort_keys=False))
    before = render(kubectl, databases)
    overlay = render(kubectl, site)
    check_restore(before, overlay, [])
    kustomization["patches"] += later
    (databases / "kustomization.yaml").write_text(yaml.safe_dump(kustomization, sort_keys=False))
    after = render(kubectl, databases)
    check_restore(after, overlay, retired)

    # The commands, against an API server that is not there.
    config = work / "kubeconfig"
    config.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "nowhere",
        "clusters": [{"name": "nowhere", "cluster": {"server": "https://127.0.0.1:9"}}],
        "contexts": [{"name": "nowhere", "context": {"cluster": "nowhere", "user": "nobody"}}],
        "users": [{"name": "nobody", "user": {"token": "none"}}],
    }))
    scratch = work / "commands"
    scratch.mkdir()
    bin_dir = work / "bin"
    bin_dir.mkdir()
    (bin_dir / "kubectl").symlink_to(Path(kubectl).resolve())
    env = {**os.environ, "KUBECONFIG": str(config), "PATH": f"{bin_dir}:{os.environ['PATH']}", "replicas": "2"}
    overlays_ok = {"k8s/overlays/dev", "k8s/overlays/prod", "k8s/overlays/<overlay>", "<the site's overlay>"}
    ran = skipped = 0
    for command in commands(text):
        check_deletes(command, overlays_ok)
        if not command.startswith(("kubectl", "replicas=$(kubectl", "for ")) and "kubectl" not in command:
            continue
        if "kubectl cnpg" in command:
            skipped += 1
            continue
        filled = command
        for placeholder, value in PLACEHOLDERS.items():
            filled = filled.replace(placeholder, value)
        if "<" in filled and ">" in filled and re.search(r"<[a-z' ]+>", filled):
            fail(f"`{command}`: a placeholder check-runbooks.py does not know: {re.findall(r'<[^>]+>', filled)}")
            continue
        # Files a command reads (--from-file), as empty stand-ins.
        for name in re.findall(r"--from-file=(?:[\w.-]+=)?([\w./-]+)", filled):
            (scratch / name).write_text("stand-in\n")
        result = subprocess.run(["bash", "-c", f"( {filled} ) < /dev/null"], cwd=scratch if "k8s/" not in filled else ROOT,
                                env=env, capture_output=True, text=True, timeout=60)
        said = (result.stderr + result.stdout).lower()
        if result.returncode != 0 and not any(failure in said for failure in CONNECT_FAILURES):
            fail(f"`{command}`: {result.stderr.strip() or result.stdout.strip()}")
        ran += 1
    print(f"check-runbooks: {ran} kubectl commands of k8s/README.md parsed and rendered as far as a missing "
          f"API server lets them; {skipped} `kubectl cnpg` ones not run (no CloudNativePG plugin here)")
    for problem in problems:
        print(f"check-runbooks: {problem}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
