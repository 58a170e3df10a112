#!/usr/bin/env bash
# A learner's watching controller, valid for every step once it runs as
# the service: it lists every TeamSpace once, then follows a watch of
# them (kubectl get --raw with watch=1), and when the watch ends it
# resumes from the last resourceVersion it saw, never listing again. An
# API server whose watch cache started again answers that watch 410
# Gone (too old resource version) for good, so it hears of no change
# again: it fails cnpa stress's gone by name (converged). reconcile.sh
# that never returns: the service's loop runs it once.
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

TS=/apis/platform.labhub.io/v1alpha1/teamspaces

# list_all reconciles every TeamSpace and prints the list's resourceVersion.
list_all() {
  local all ts
  all=$(kubectl get --raw "$TS") || return 1
  while IFS= read -r ts <&3; do
    one "$ts" || echo "teamspace $(jq -r .metadata.name <<<"$ts") not reconciled" >&2
  done 3< <(jq -c '.items[]' <<<"$all")
  jq -r .metadata.resourceVersion <<<"$all"
}

rvfile=$(mktemp)
trap 'rm -f "$rvfile"' EXIT
until list_all >"$rvfile"; do sleep 1; done
while true; do
  # Resume the watch where the last one ended.
  command kubectl get --raw "$TS?watch=1&resourceVersion=$(cat "$rvfile")" |
    while IFS= read -r ev; do
      [ "$(jq -r .type <<<"$ev")" = ERROR ] && { echo "watch: $(jq -r .object.message <<<"$ev")" >&2; continue; }
      obj=$(jq -c .object <<<"$ev")
      jq -r .metadata.resourceVersion <<<"$obj" >"$rvfile"
      [ "$(jq -r .type <<<"$ev")" = DELETED ] && continue
      one "$obj" || echo "teamspace $(jq -r .metadata.name <<<"$obj") not reconciled" >&2
    done
  sleep 1
done
