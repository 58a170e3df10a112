#!/usr/bin/env python3
"""reconcile.sh in Python, with kubectl and no jq: one pass over every
TeamSpace. Like `set -e`, the first failure ends the pass (an exception).
Finalizers by merge patch of the whole list, with the resourceVersion as a
precondition, ours added or taken out and the others kept."""
import json
import os
import subprocess
import sys

FINALIZER = "platform.labhub.io/cleanup"
LABEL = "platform.labhub.io/teamspace"
HERE = os.path.dirname(os.path.abspath(__file__))
ARCHIVE = os.environ.get("CNPA_ARCHIVE_DIR") or os.path.join(HERE, "archive")


def kubectl(*args, stdin=None):
    return subprocess.run(["kubectl", *args], input=stdin, capture_output=True, text=True)


def must(*args, stdin=None):
    r = kubectl(*args, stdin=stdin)
    if r.returncode != 0:
        raise SystemExit("error: kubectl %s: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout


def get(*args):
    r = kubectl("get", *args, "-o", "json")
    if r.returncode != 0:
        if "NotFound" in r.stderr:
            return None
        raise SystemExit("error: kubectl get %s: %s" % (" ".join(args), r.stderr.strip()))
    return json.loads(r.stdout)


def set_finalizers(ts, finalizers):
    patch = {"metadata": {"resourceVersion": ts["metadata"]["resourceVersion"], "finalizers": finalizers}}
    must("patch", "teamspace", ts["metadata"]["name"], "--type=merge", "-p", json.dumps(patch))


def reconcile(ts):
    meta = ts["metadata"]
    name, uid = meta["name"], meta["uid"]
    finalizers = meta.get("finalizers") or []
    ns = "team-" + name

    if meta.get("deletionTimestamp"):
        if FINALIZER in finalizers:
            os.makedirs(ARCHIVE, exist_ok=True)
            record = {"name": name, "uid": uid, "pods": ts["spec"]["pods"]}
            tmp = os.path.join(ARCHIVE, "." + name + ".json")
            with open(tmp, "w") as f:
                json.dump(record, f)
            os.replace(tmp, os.path.join(ARCHIVE, name + ".json"))
            set_finalizers(ts, [f for f in finalizers if f != FINALIZER])
        return

    if FINALIZER not in finalizers:
        set_finalizers(ts, finalizers + [FINALIZER])

    namespace = get("namespace", ns)
    if namespace is None:
        must("create", "-f", "-", stdin=json.dumps({
            "apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": ns, "labels": {LABEL: name},
                         "ownerReferences": [{"apiVersion": ts["apiVersion"], "kind": "TeamSpace", "name": name, "uid": uid}]}}))
    elif not any(r.get("uid") == uid for r in namespace["metadata"].get("ownerReferences") or []):
        raise SystemExit("error: namespace %s exists and TeamSpace %s does not own it: not taking it over" % (ns, name))
    elif (namespace["metadata"].get("labels") or {}).get(LABEL) != name:
        must("label", "namespace", ns, "%s=%s" % (LABEL, name), "--overwrite")

    pods, cpu = str(ts["spec"]["pods"]), ts["spec"].get("cpu", "1")
    quota = get("resourcequota", "team-quota", "-n", ns)
    if quota is None:
        must("create", "quota", "team-quota", "-n", ns, "--hard=pods=%s,requests.cpu=%s" % (pods, cpu))
    else:
        hard = quota["spec"].get("hard") or {}
        if hard.get("pods") != pods or hard.get("requests.cpu") != cpu:
            must("patch", "resourcequota", "team-quota", "-n", ns, "--type=merge",
                 "-p", json.dumps({"spec": {"hard": {"pods": pods, "requests.cpu": cpu}}}))

    status = ts.get("status") or {}
    if status.get("observedGeneration") != meta["generation"] or status.get("namespace") != ns:
        must("patch", "teamspace", name, "--subresource=status", "--type=merge",
             "-p", json.dumps({"status": {"observedGeneration": meta["generation"], "namespace": ns}}))


for item in json.loads(must("get", "teamspaces", "-o", "json"))["items"]:
    reconcile(item)
