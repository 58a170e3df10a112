#!/usr/bin/env bash
# A learner's server-side-apply pass, valid for every step, that takes
# an archive record already there for a TeamSpace done with: it skips a
# deleted TeamSpace whose archive/<name>.json exists. When the
# finalizer's removal is refused (403, its RBAC revoked while the
# TeamSpace was deleted), the record is there but the finalizer is not
# removed, and no later pass removes it: the TeamSpace stays Terminating
# after the RBAC is back. It fails cnpa stress's forbidden by name
# (converged). blackhole-timeout.sh with that one shortcut.
set -uo pipefail

FIN=platform.labhub.io/cleanup
ARCHIVE=${CNPA_ARCHIVE_DIR:-$(cd "$(dirname "$0")" && pwd)/archive}
MANAGER=teamspace-reconcile

# kubectl's default --request-timeout is 0: wait forever.
kubectl() { command kubectl --request-timeout=10s "$@"; }

apply() { kubectl apply --server-side --force-conflicts --field-manager="$MANAGER" -f - >/dev/null; }

one() {
  local ts=$1 name uid ns existing
  name=$(jq -r '.metadata.name' <<<"$ts")
  uid=$(jq -r '.metadata.uid' <<<"$ts")
  ns="team-$name"

  if jq -e '.metadata.deletionTimestamp' <<<"$ts" >/dev/null; then
    if jq -e --arg f "$FIN" '.metadata.finalizers // [] | any(. == $f)' <<<"$ts" >/dev/null; then
      # Archived already: done with it.
      if [ -f "$ARCHIVE/$name.json" ]; then return 0; fi
      mkdir -p "$ARCHIVE" &&
        jq '{name: .metadata.name, uid: .metadata.uid, pods: .spec.pods}' <<<"$ts" >"$ARCHIVE/.$name.json" &&
        mv "$ARCHIVE/.$name.json" "$ARCHIVE/$name.json" || return 1
      kubectl patch teamspace "$name" --type=merge -p "$(jq -c --arg f "$FIN" \
        '{metadata: {resourceVersion: .metadata.resourceVersion, finalizers: (.metadata.finalizers - [$f])}}' <<<"$ts")" >/dev/null || return 1
    fi
    return 0
  fi

  if ! jq -e --arg f "$FIN" '.metadata.finalizers // [] | any(. == $f)' <<<"$ts" >/dev/null; then
    kubectl patch teamspace "$name" --type=merge -p "$(jq -c --arg f "$FIN" \
      '{metadata: {resourceVersion: .metadata.resourceVersion, finalizers: ((.metadata.finalizers // []) + [$f])}}' <<<"$ts")" >/dev/null || return 1
  fi

  # A namespace of that name that this TeamSpace does not own is someone
  # else's: apply would adopt it, so stop here.
  if existing=$(kubectl get ns "$ns" -o json 2>/dev/null) &&
     ! jq -e --arg uid "$uid" '[.metadata.ownerReferences[]?.uid] | index($uid) != null' <<<"$existing" >/dev/null; then
    echo "$ns: exists, not created by TeamSpace $name; not adopting it" >&2
    return 1
  fi

  jq -n --arg name "$name" --arg uid "$uid" --arg ns "$ns" '{
    apiVersion: "v1", kind: "Namespace",
    metadata: {name: $ns,
      labels: {"platform.labhub.io/teamspace": $name},
      ownerReferences: [{apiVersion: "platform.labhub.io/v1alpha1", kind: "TeamSpace", name: $name, uid: $uid}]}}' | apply || return 1

  jq --arg ns "$ns" '{
    apiVersion: "v1", kind: "ResourceQuota",
    metadata: {name: "team-quota", namespace: $ns},
    spec: {hard: {pods: (.spec.pods | tostring), "requests.cpu": (.spec.cpu // "1")}}}' <<<"$ts" | apply || return 1

  if ! jq -e --arg ns "$ns" '.status.observedGeneration == .metadata.generation and .status.namespace == $ns' <<<"$ts" >/dev/null; then
    kubectl patch teamspace "$name" --subresource=status --type=merge -p "$(jq -c --arg ns "$ns" \
      '{status: {observedGeneration: .metadata.generation, namespace: $ns}}' <<<"$ts")" >/dev/null || return 1
  fi
}

all=$(kubectl get teamspaces.platform.labhub.io -o json) || exit 1
failed=0
while IFS= read -r ts <&3; do
  one "$ts" || { echo "teamspace $(jq -r .metadata.name <<<"$ts") not reconciled" >&2; failed=1; }
done 3< <(jq -c '.items[]' <<<"$all")
exit "$failed"
