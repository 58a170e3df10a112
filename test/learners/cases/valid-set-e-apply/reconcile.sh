#!/bin/bash
# reconcile.sh with `set -euo pipefail` and client-side `kubectl apply`:
# kubectl compares the manifest with its last-applied annotation and sends
# nothing when they agree. Finalizers by merge patch of the whole list,
# ours added to (or taken out of) what is there, so the others stay.
set -euo pipefail
cd "$(dirname "$0")"
ARCHIVE=${CNPA_ARCHIVE_DIR:-archive}
FINALIZER=platform.labhub.io/cleanup

kubectl get teamspaces -o json | jq -c '.items[]' | while read -r ts; do
  name=$(echo "$ts" | jq -r .metadata.name)

  if echo "$ts" | jq -e .metadata.deletionTimestamp >/dev/null; then
    if echo "$ts" | jq -e --arg f "$FINALIZER" '.metadata.finalizers | index($f)' >/dev/null; then
      mkdir -p "$ARCHIVE"
      echo "$ts" | jq '{name: .metadata.name, uid: .metadata.uid, pods: .spec.pods}' >"$ARCHIVE/$name.json"
      kubectl patch teamspace "$name" --type merge \
        -p "$(echo "$ts" | jq -c --arg f "$FINALIZER" '{metadata: {finalizers: (.metadata.finalizers - [$f])}}')"
    fi
    continue
  fi

  if ! echo "$ts" | jq -e --arg f "$FINALIZER" '.metadata.finalizers // [] | index($f)' >/dev/null; then
    kubectl patch teamspace "$name" --type merge \
      -p "$(echo "$ts" | jq -c --arg f "$FINALIZER" '{metadata: {finalizers: ((.metadata.finalizers // []) + [$f])}}')"
  fi

  echo "$ts" | jq '{apiVersion: "v1", kind: "List", items: [
    {apiVersion: "v1", kind: "Namespace",
     metadata: {name: ("team-" + .metadata.name), labels: {"platform.labhub.io/teamspace": .metadata.name},
       ownerReferences: [{apiVersion: .apiVersion, kind: .kind, name: .metadata.name, uid: .metadata.uid}]}},
    {apiVersion: "v1", kind: "ResourceQuota",
     metadata: {name: "team-quota", namespace: ("team-" + .metadata.name)},
     spec: {hard: {pods: (.spec.pods | tostring), "requests.cpu": (.spec.cpu // "1")}}}]}' | kubectl apply -f -

  if ! echo "$ts" | jq -e '.status.observedGeneration == .metadata.generation and .status.namespace == "team-" + .metadata.name' >/dev/null; then
    kubectl patch teamspace "$name" --subresource status --type merge \
      -p "$(echo "$ts" | jq -c '{status: {observedGeneration: .metadata.generation, namespace: ("team-" + .metadata.name)}}')"
  fi
done
