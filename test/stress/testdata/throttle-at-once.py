#!/usr/bin/env python3
"""A learner's reconcile.sh in Python that talks to the API server itself
(urllib, the kubeconfig's server, CA and token or client certificate),
with a retry loop of its own: a request answered 429 (or 5xx) is sent
again at once. Valid for every step; under API Priority and Fairness'
429 Too Many Requests it storms the server with retries instead of
waiting Retry-After, and fails cnpa stress's throttle by name (backoff).
throttle-backoff.py is the same with the wait."""
import base64
import json
import os
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

FIN = "platform.labhub.io/cleanup"
LABEL = "platform.labhub.io/teamspace"
MANAGER = "teamspace-reconcile"
TS = "/apis/platform.labhub.io/v1alpha1/teamspaces"
ARCHIVE = os.environ.get("CNPA_ARCHIVE_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "archive")
HONOUR_RETRY_AFTER = False


def config():
    cfg = json.loads(subprocess.run(["kubectl", "config", "view", "--raw", "--minify", "-o", "json"],
                                    check=True, capture_output=True, text=True).stdout)
    cluster, user = cfg["clusters"][0]["cluster"], cfg["users"][0]["user"]
    tmp = tempfile.mkdtemp()
    ctx = ssl.create_default_context()
    if cluster.get("certificate-authority-data"):
        ca = os.path.join(tmp, "ca.crt")
        with open(ca, "wb") as f:
            f.write(base64.b64decode(cluster["certificate-authority-data"]))
        ctx.load_verify_locations(ca)
    elif cluster.get("certificate-authority"):
        ctx.load_verify_locations(cluster["certificate-authority"])
    headers = {}
    if user.get("token"):
        headers["Authorization"] = "Bearer " + user["token"]
    if user.get("client-certificate-data"):
        cert, key = os.path.join(tmp, "tls.crt"), os.path.join(tmp, "tls.key")
        for path, field in ((cert, "client-certificate-data"), (key, "client-key-data")):
            with open(path, "wb") as f:
                f.write(base64.b64decode(user[field]))
        ctx.load_cert_chain(cert, key)
    return cluster["server"].rstrip("/"), ctx, headers


SERVER, CTX, HEADERS = config()


def call(method, path, body=None, ctype="application/json"):
    """One request; 429 and 5xx are tried again. Returns (code, object)."""
    while True:
        req = urllib.request.Request(SERVER + path, method=method, headers=dict(HEADERS))
        if body is not None:
            req.data = json.dumps(body).encode()
            req.add_header("Content-Type", ctype)
        try:
            with urllib.request.urlopen(req, context=CTX, timeout=10) as resp:
                return resp.status, json.loads(resp.read() or b"{}")
        except urllib.error.HTTPError as e:
            if e.code == 429 or e.code >= 500:
                if HONOUR_RETRY_AFTER:
                    time.sleep(float(e.headers.get("Retry-After") or 1))
                continue
            return e.code, json.loads(e.read() or b"{}")


def must(method, path, body=None, ctype="application/json"):
    code, obj = call(method, path, body, ctype)
    if code >= 300:
        raise RuntimeError("%s %s: %d %s" % (method, path, code, obj.get("message", "")))
    return obj


def apply(path, obj):
    must("PATCH", path + "?fieldManager=" + MANAGER + "&force=true", obj, "application/apply-patch+yaml")


def merge(path, patch):
    must("PATCH", path, patch, "application/merge-patch+json")


def reconcile(ts):
    meta = ts["metadata"]
    name, uid, rv = meta["name"], meta["uid"], meta["resourceVersion"]
    fins = meta.get("finalizers") or []
    ns = "team-" + name
    if meta.get("deletionTimestamp"):
        if FIN in fins:
            os.makedirs(ARCHIVE, exist_ok=True)
            tmp = os.path.join(ARCHIVE, "." + name + ".json")
            with open(tmp, "w") as f:
                json.dump({"name": name, "uid": uid, "pods": ts["spec"]["pods"]}, f)
            os.replace(tmp, os.path.join(ARCHIVE, name + ".json"))
            merge(TS + "/" + name, {"metadata": {"resourceVersion": rv, "finalizers": [f for f in fins if f != FIN]}})
        return
    if FIN not in fins:
        merge(TS + "/" + name, {"metadata": {"resourceVersion": rv, "finalizers": fins + [FIN]}})
    code, existing = call("GET", "/api/v1/namespaces/" + ns)
    if code == 200 and uid not in [o.get("uid") for o in existing["metadata"].get("ownerReferences") or []]:
        raise RuntimeError(ns + ": exists, not created by TeamSpace " + name + "; not adopting it")
    apply("/api/v1/namespaces/" + ns, {
        "apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": ns, "labels": {LABEL: name}, "ownerReferences": [
            {"apiVersion": "platform.labhub.io/v1alpha1", "kind": "TeamSpace", "name": name, "uid": uid}]}})
    apply("/api/v1/namespaces/" + ns + "/resourcequotas/team-quota", {
        "apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "team-quota", "namespace": ns},
        "spec": {"hard": {"pods": str(ts["spec"]["pods"]), "requests.cpu": ts["spec"].get("cpu", "1")}}})
    status = ts.get("status") or {}
    if status.get("observedGeneration") != meta["generation"] or status.get("namespace") != ns:
        merge(TS + "/" + name + "/status", {"status": {"observedGeneration": meta["generation"], "namespace": ns}})


failed = 0
for ts in must("GET", TS)["items"]:
    try:
        reconcile(ts)
    except Exception as e:  # one TeamSpace's failure ends only its turn
        print("teamspace %s not reconciled: %s" % (ts["metadata"]["name"], e), file=sys.stderr)
        failed = 1
sys.exit(failed)
