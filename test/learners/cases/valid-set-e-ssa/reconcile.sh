#!/usr/bin/env bash
# reconcile.sh, written like most bash: `set -euo pipefail`, so the first
# command that fails ends the whole pass. Namespace and quota by server-side
# apply with --force-conflicts (a hand edit made by `kubectl patch` belongs
# to another field manager, and force takes it back); our finalizer added
# with a JSON patch that appends to the list, so the others stay.
set -euo pipefail

dir=$(cd "$(dirname "$0")" && pwd)
archive=${CNPA_ARCHIVE_DIR:-$dir/archive}
fin=platform.labhub.io/cleanup

for name in $(kubectl get teamspaces -o jsonpath='{.items[*].metadata.name}'); do
  ts=$(kubectl get teamspace "$name" -o json)
  uid=$(jq -r .metadata.uid <<<"$ts")
  has_fin=$(jq --arg f "$fin" '(.metadata.finalizers // []) | index($f) != null' <<<"$ts")

  if [[ $(jq -r '.metadata.deletionTimestamp // ""' <<<"$ts") != "" ]]; then
    if [[ $has_fin == true ]]; then
      mkdir -p "$archive"
      jq '{name: .metadata.name, uid: .metadata.uid, pods: .spec.pods}' <<<"$ts" >"$archive/$name.json"
      i=$(jq --arg f "$fin" '.metadata.finalizers | index($f)' <<<"$ts")
      kubectl patch teamspace "$name" --type=json \
        -p "[{\"op\":\"test\",\"path\":\"/metadata/finalizers/$i\",\"value\":\"$fin\"},{\"op\":\"remove\",\"path\":\"/metadata/finalizers/$i\"}]"
    fi
    continue
  fi

  if [[ $has_fin == false ]]; then
    if [[ $(jq '.metadata.finalizers // [] | length' <<<"$ts") == 0 ]]; then
      kubectl patch teamspace "$name" --type=json -p "[{\"op\":\"add\",\"path\":\"/metadata/finalizers\",\"value\":[\"$fin\"]}]"
    else
      kubectl patch teamspace "$name" --type=json -p "[{\"op\":\"add\",\"path\":\"/metadata/finalizers/-\",\"value\":\"$fin\"}]"
    fi
  fi

  kubectl apply --server-side --force-conflicts --field-manager=reconcile-sh -f - <<YAML
apiVersion: v1
kind: Namespace
metadata:
  name: team-$name
  labels:
    platform.labhub.io/teamspace: $name
  ownerReferences:
  - apiVersion: platform.labhub.io/v1alpha1
    kind: TeamSpace
    name: $name
    uid: $uid
---
apiVersion: v1
kind: ResourceQuota
metadata:
  name: team-quota
  namespace: team-$name
spec:
  hard:
    pods: "$(jq -r .spec.pods <<<"$ts")"
    requests.cpu: "$(jq -r '.spec.cpu // "1"' <<<"$ts")"
YAML

  gen=$(jq .metadata.generation <<<"$ts")
  if [[ $(jq '.status.observedGeneration // 0' <<<"$ts") != "$gen" || $(jq -r '.status.namespace // ""' <<<"$ts") != "team-$name" ]]; then
    kubectl patch teamspace "$name" --subresource=status --type=merge \
      -p "{\"status\":{\"observedGeneration\":$gen,\"namespace\":\"team-$name\"}}"
  fi
done
