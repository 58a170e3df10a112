#!/usr/bin/env bash
# One reconcile pass over every TeamSpace (LAB.md steps 3 and 6), written
# read-modify-write: read the object, compute the object as it should be
# with jq, and `kubectl replace` it only when it differs. A replace carries
# the resourceVersion it read, so a change made meanwhile is a conflict:
# read again and retry. kubectl and jq only.
set -uo pipefail

FINALIZER=platform.labhub.io/cleanup
LABEL=platform.labhub.io/teamspace
ARCHIVE_DIR=${CNPA_ARCHIVE_DIR:-$(dirname "$0")/archive}

# rmw FILTER GET-ARGS...: read the object, apply the jq FILTER, replace it
# if that changed anything; up to 5 tries on a conflict. REPLACE_ARGS are
# extra arguments for kubectl replace (--subresource=status).
rmw() {
  local filter=$1; shift
  local try cur new out
  for try in 1 2 3 4 5; do
    cur=$(kubectl get "$@" -o json) || return 1
    new=$(jq -c "$filter" <<<"$cur") || return 1
    if [ "$(jq -S -c . <<<"$cur")" = "$(jq -S -c . <<<"$new")" ]; then
      return 0
    fi
    if out=$(kubectl replace ${REPLACE_ARGS:-} -f - <<<"$new" 2>&1); then
      echo "$out"
      return 0
    fi
    case $out in
      *"the object has been modified"*|*Conflict*) echo "conflict on $*, try $try: reading again" >&2 ;;
      *) echo "$out" >&2; return 1 ;;
    esac
  done
  return 1
}

reconcile() {
  local ts=$1 name uid gen ns
  name=$(jq -r .metadata.name <<<"$ts")
  uid=$(jq -r .metadata.uid <<<"$ts")
  ns=team-$name

  # Being deleted: archive first, then take our finalizer out of the list.
  if [ -n "$(jq -r '.metadata.deletionTimestamp // empty' <<<"$ts")" ]; then
    jq -e --arg f "$FINALIZER" '(.metadata.finalizers // []) | index($f) != null' <<<"$ts" >/dev/null || return 0
    mkdir -p "$ARCHIVE_DIR" || return 1
    jq '{name: .metadata.name, uid: .metadata.uid, pods: .spec.pods}' <<<"$ts" >"$ARCHIVE_DIR/$name.json.tmp" || return 1
    mv "$ARCHIVE_DIR/$name.json.tmp" "$ARCHIVE_DIR/$name.json" || return 1
    rmw ".metadata.finalizers |= map(select(. != \"$FINALIZER\"))" teamspace "$name" || return 1
    return 0
  fi

  # Our finalizer beside any others.
  rmw ".metadata.finalizers = ((.metadata.finalizers // []) | if index(\"$FINALIZER\") then . else . + [\"$FINALIZER\"] end)" \
    teamspace "$name" || return 1

  # Namespace: create it owned by the TeamSpace; never take over one we did not create.
  if nsjson=$(kubectl get namespace "$ns" -o json 2>/dev/null); then
    if ! jq -e --arg uid "$uid" 'any(.metadata.ownerReferences[]?; .uid == $uid)' <<<"$nsjson" >/dev/null; then
      echo "namespace $ns exists and is not owned by TeamSpace $name: leaving it alone" >&2
      return 1
    fi
    rmw ".metadata.labels[\"$LABEL\"] = \"$name\"" namespace "$ns" || return 1
  else
    jq -n --arg ns "$ns" --arg name "$name" --arg uid "$uid" --arg key "$LABEL" '{
      apiVersion: "v1", kind: "Namespace",
      metadata: {name: $ns, labels: {($key): $name},
        ownerReferences: [{apiVersion: "platform.labhub.io/v1alpha1", kind: "TeamSpace", name: $name, uid: $uid}]}}' |
      kubectl create -f - || return 1
  fi

  # Quota: hard.pods = spec.pods, hard.requests.cpu = spec.cpu.
  local pods cpu
  pods=$(jq -r '.spec.pods' <<<"$ts")
  cpu=$(jq -r '.spec.cpu // "1"' <<<"$ts")
  if kubectl -n "$ns" get resourcequota team-quota -o name >/dev/null 2>&1; then
    rmw ".spec.hard = {\"pods\": \"$pods\", \"requests.cpu\": \"$cpu\"}" -n "$ns" resourcequota team-quota || return 1
  else
    kubectl -n "$ns" create quota team-quota --hard="pods=$pods,requests.cpu=$cpu" || return 1
  fi

  # Status through the status subresource, replaced only when it differs.
  gen=$(jq -r .metadata.generation <<<"$ts")
  REPLACE_ARGS=--subresource=status rmw ".status = ((.status // {}) + {\"observedGeneration\": $gen, \"namespace\": \"$ns\"})" \
    teamspace "$name" || return 1
}

list=$(kubectl get teamspaces -o json) || exit 1
mapfile -t items < <(jq -c '.items[]' <<<"$list")
rc=0
for ts in "${items[@]}"; do
  reconcile "$ts" || { echo "teamspace $(jq -r .metadata.name <<<"$ts"): not converged this pass" >&2; rc=1; }
done
exit $rc
