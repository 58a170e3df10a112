#!/usr/bin/env bash
# reconcile.sh: compare desired with actual for every TeamSpace and close
# the gap. Namespace and quota go through `kubectl apply` (client-side: it
# sends nothing when the live object already matches); the finalizer list
# is edited with JSON patch operations on single entries, each guarded by
# a `test` op, so other controllers' finalizers are never rewritten.
set -o pipefail

FIN=platform.labhub.io/cleanup
here=$(cd "$(dirname "$0")" && pwd)
archive=${CNPA_ARCHIVE_DIR:-$here/archive}

list=$(mktemp) || exit 1
trap 'rm -f "$list"' EXIT
kubectl get teamspaces -o json > "$list" || exit 1
n=$(jq '.items | length' "$list")
status=0

for ((i = 0; i < n; i++)); do
  ts=$(jq -c ".items[$i]" "$list")
  name=$(jq -r .metadata.name <<<"$ts")
  uid=$(jq -r .metadata.uid <<<"$ts")
  rv=$(jq -r .metadata.resourceVersion <<<"$ts")
  idx=$(jq --arg f "$FIN" '(.metadata.finalizers // []) | index($f) // -1' <<<"$ts")

  if [ "$(jq -r '.metadata.deletionTimestamp // ""' <<<"$ts")" != "" ]; then
    [ "$idx" -ge 0 ] || continue
    mkdir -p "$archive"
    if ! jq '{name: .metadata.name, uid: .metadata.uid, pods: .spec.pods}' <<<"$ts" > "$archive/$name.json.new" ||
       ! mv "$archive/$name.json.new" "$archive/$name.json"; then
      echo "$name: cannot write the archive record; keeping the finalizer" >&2
      status=1; continue
    fi
    kubectl patch teamspace "$name" --type=json -p "[
      {\"op\":\"test\",\"path\":\"/metadata/finalizers/$idx\",\"value\":\"$FIN\"},
      {\"op\":\"remove\",\"path\":\"/metadata/finalizers/$idx\"}]" || status=1
    continue
  fi

  if [ "$idx" -lt 0 ]; then
    if [ "$(jq '.metadata.finalizers // [] | length' <<<"$ts")" = 0 ]; then
      op="{\"op\":\"add\",\"path\":\"/metadata/finalizers\",\"value\":[\"$FIN\"]}"
    else
      op="{\"op\":\"add\",\"path\":\"/metadata/finalizers/-\",\"value\":\"$FIN\"}"
    fi
    kubectl patch teamspace "$name" --type=json -p "[
      {\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"$rv\"}, $op]" || { status=1; continue; }
  fi

  ns=team-$name
  if cur=$(kubectl get namespace "$ns" -o json 2>/dev/null); then
    if [ "$(jq -r --arg uid "$uid" '[.metadata.ownerReferences[]? | select(.uid == $uid)] | length' <<<"$cur")" = 0 ]; then
      echo "$name: namespace $ns belongs to someone else; not touching it" >&2
      status=1; continue
    fi
  fi

  cpu=$(jq -r '.spec.cpu // "1"' <<<"$ts")
  pods=$(jq -r .spec.pods <<<"$ts")
  cat <<YAML | kubectl apply -f - | grep -v unchanged
apiVersion: v1
kind: Namespace
metadata:
  name: $ns
  labels:
    platform.labhub.io/teamspace: "$name"
  ownerReferences:
  - apiVersion: platform.labhub.io/v1alpha1
    kind: TeamSpace
    name: "$name"
    uid: "$uid"
---
apiVersion: v1
kind: ResourceQuota
metadata:
  name: team-quota
  namespace: $ns
spec:
  hard:
    pods: "$pods"
    requests.cpu: "$cpu"
YAML
  [ "${PIPESTATUS[1]}" = 0 ] || { status=1; continue; }

  gen=$(jq .metadata.generation <<<"$ts")
  if [ "$(jq '.status.observedGeneration' <<<"$ts")" != "$gen" ] || [ "$(jq -r '.status.namespace' <<<"$ts")" != "$ns" ]; then
    kubectl patch teamspace "$name" --subresource=status --type=json \
      -p "[{\"op\":\"add\",\"path\":\"/status\",\"value\":{\"observedGeneration\":$gen,\"namespace\":\"$ns\"}}]" || status=1
  fi
done
exit $status
