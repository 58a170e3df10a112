#!/usr/bin/env bash
# valid-create-patch that recreates the quota (delete, then create) instead
# of patching it when it differs. Converges and writes nothing when nothing
# changed, so the lab's 8 steps pass; cnpa stress's kept finds it.
# One reconcile pass over every TeamSpace (LAB.md steps 3 and 6), written
# create-then-patch: create what is missing, patch only what differs, so a
# second pass writes nothing. kubectl and jq only.
set -uo pipefail

FINALIZER=platform.labhub.io/cleanup
LABEL=platform.labhub.io/teamspace
ARCHIVE_DIR=${CNPA_ARCHIVE_DIR:-$(dirname "$0")/archive}

# has_finalizer TS_JSON: is ours in the list?
has_finalizer() { jq -e --arg f "$FINALIZER" '(.metadata.finalizers // []) | index($f) != null' <<<"$1" >/dev/null; }

reconcile() {
  local ts=$1 name uid gen pods cpu ns nsjson q patch
  name=$(jq -r .metadata.name <<<"$ts")
  uid=$(jq -r .metadata.uid <<<"$ts")
  ns=team-$name

  # Being deleted: archive first, then let go of our finalizer only.
  if [ -n "$(jq -r '.metadata.deletionTimestamp // empty' <<<"$ts")" ]; then
    has_finalizer "$ts" || return 0
    mkdir -p "$ARCHIVE_DIR" || return 1
    jq '{name: .metadata.name, uid: .metadata.uid, pods: .spec.pods}' <<<"$ts" >"$ARCHIVE_DIR/$name.json.tmp" || return 1
    mv "$ARCHIVE_DIR/$name.json.tmp" "$ARCHIVE_DIR/$name.json" || return 1
    # The whole list minus ours, with resourceVersion as a precondition: if
    # someone changed the list meanwhile this fails and the next pass retries.
    patch=$(jq -c --arg f "$FINALIZER" '{metadata: {resourceVersion: .metadata.resourceVersion,
      finalizers: [.metadata.finalizers[] | select(. != $f)]}}' <<<"$ts")
    kubectl patch teamspace "$name" --type=merge -p "$patch" || return 1
    return 0
  fi

  # Our finalizer beside any others.
  if ! has_finalizer "$ts"; then
    patch=$(jq -c --arg f "$FINALIZER" '{metadata: {resourceVersion: .metadata.resourceVersion,
      finalizers: ((.metadata.finalizers // []) + [$f])}}' <<<"$ts")
    kubectl patch teamspace "$name" --type=merge -p "$patch" || return 1
  fi

  # Namespace: create it owned by the TeamSpace; never take over one we did not create.
  if nsjson=$(kubectl get namespace "$ns" -o json 2>/dev/null); then
    if ! jq -e --arg uid "$uid" 'any(.metadata.ownerReferences[]?; .uid == $uid)' <<<"$nsjson" >/dev/null; then
      echo "namespace $ns exists and is not owned by TeamSpace $name: leaving it alone" >&2
      return 1
    fi
    if [ -n "$(jq -r '.metadata.deletionTimestamp // empty' <<<"$nsjson")" ]; then
      echo "namespace $ns is terminating; waiting" >&2
      return 1
    fi
    if [ "$(jq -r --arg k "$LABEL" '.metadata.labels[$k] // ""' <<<"$nsjson")" != "$name" ]; then
      kubectl label namespace "$ns" "$LABEL=$name" --overwrite || return 1
    fi
  else
    jq -n --arg ns "$ns" --arg name "$name" --arg uid "$uid" --arg key "$LABEL" '{
      apiVersion: "v1", kind: "Namespace",
      metadata: {name: $ns, labels: {($key): $name},
        ownerReferences: [{apiVersion: "platform.labhub.io/v1alpha1", kind: "TeamSpace", name: $name, uid: $uid}]}}' |
      kubectl create -f - || return 1
  fi

  # Quota: hard.pods = spec.pods, hard.requests.cpu = spec.cpu.
  pods=$(jq -r '.spec.pods' <<<"$ts")
  cpu=$(jq -r '.spec.cpu // "1"' <<<"$ts")
  if q=$(kubectl -n "$ns" get resourcequota team-quota -o json 2>/dev/null); then
    if [ "$(jq -r '.spec.hard.pods // ""' <<<"$q")" != "$pods" ] ||
       [ "$(jq -r '.spec.hard["requests.cpu"] // ""' <<<"$q")" != "$cpu" ]; then
      # Recreated, not patched: a new quota object with the new values.
      kubectl -n "$ns" delete resourcequota team-quota || return 1
      kubectl -n "$ns" create quota team-quota --hard="pods=$pods,requests.cpu=$cpu" || return 1
    fi
  else
    kubectl -n "$ns" create quota team-quota --hard="pods=$pods,requests.cpu=$cpu" || return 1
  fi

  # Status through the status subresource, only when it differs.
  gen=$(jq -r .metadata.generation <<<"$ts")
  if [ "$(jq -r '.status.observedGeneration // ""' <<<"$ts")" != "$gen" ] ||
     [ "$(jq -r '.status.namespace // ""' <<<"$ts")" != "$ns" ]; then
    kubectl patch teamspace "$name" --subresource=status --type=merge \
      -p "{\"status\":{\"observedGeneration\":$gen,\"namespace\":\"$ns\"}}" || return 1
  fi
}

list=$(kubectl get teamspaces -o json) || exit 1
mapfile -t items < <(jq -c '.items[]' <<<"$list")
rc=0
for ts in "${items[@]}"; do
  reconcile "$ts" || { echo "teamspace $(jq -r .metadata.name <<<"$ts"): not converged this pass" >&2; rc=1; }
done
exit $rc
