#!/usr/bin/env bash
# reconcile.sh - one pass of the TeamSpace controller, with kubectl and jq only.
#
# For every TeamSpace <name> it makes the cluster match the spec:
#   - namespace team-<name>, labelled platform.labhub.io/teamspace=<name> and
#     owned (ownerReference, controller) by the TeamSpace, so the garbage
#     collector removes it when the TeamSpace goes;
#   - ResourceQuota team-quota in it with hard.pods = spec.pods and
#     hard."requests.cpu" = spec.cpu;
#   - the TeamSpace's status subresource: observedGeneration = generation,
#     namespace = team-<name>.
# With CNPA_FINALIZER=true it also holds every TeamSpace with the finalizer
# platform.labhub.io/cleanup, and when one is deleted writes
# $CNPA_ARCHIVE_DIR/<name>.json before letting it go.
#
# It is level-triggered: it never asks "what changed?", only "is the desired
# state equal to the actual state now?". It reads everything with three list
# requests, compares, and writes only what differs, so a pass where all is in
# place makes no write at all, however often it runs.
#
# Exit status: 0 when every TeamSpace converged, 1 when one or more did not
# (one line each on stderr: "teamspace NAME: reason"), 2 when the cluster
# could not be read. Run it in a loop (cnpa-op.service) to keep converging.

set -u -o pipefail # no `set -e`: one broken TeamSpace must not stop the pass

: "${CNPA_ARCHIVE_DIR:=/root/cnpa-op/archive}"
: "${CNPA_FINALIZER:=false}"

readonly FINALIZER=platform.labhub.io/cleanup
readonly OWNER_LABEL=platform.labhub.io/teamspace
readonly QUOTA_NAME=team-quota
readonly FIELD_MANAGER=cnpa
readonly API_VERSION=platform.labhub.io/v1alpha1

# Every kubectl call gives up after 10 s: kubectl's default is to wait
# forever, and an API server that takes a request and never answers
# (`cnpa stress --faults blackhole`) would hang the pass for good while
# systemd still says active. The next pass starts again.
kubectl() { command kubectl --request-timeout=10s "$@"; }

# The facts the plan gives about each TeamSpace, in the order it prints them.
readonly PLAN_FIELDS="name uid rv generation pods cpu_json deleting has_finalizer invalid ns_state ns_labelled quota_exists quota_extra quota_ok status_ok"

# plan.jq compares, for every TeamSpace, what the spec asks for with what the
# three lists show, and prints one line per TeamSpace: the PLAN_FIELDS
# values separated by the ASCII unit separator (0x1f). No value holds a raw
# newline or 0x1f: anything a user wrote is JSON-encoded first. The line is
# read into variables, never evaluated. Nothing is written yet: these facts
# decide which writes, if any, the pass makes.
read -r -d '' PLAN_JQ <<'JQ'
# quantity turns a Kubernetes quantity ("500m", "0.5", "2Ki", "1e3") into a
# number, or null when the string is not a quantity. Comparing numbers makes
# "0.5" equal "500m" (the server stores the canonical "500m"). The numbers
# are floating point: values that differ only beyond ~15 significant digits
# compare equal, which is far below anything a quota holds.
def quantity:
  (capture("^(?<num>[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+))(?<suffix>[eE][+-]?[0-9]+|[numkMGTPE]|[KMGTPE]i)?$") // null)
  | if . == null then null else
      (.num | tonumber) as $n
      | (.suffix // "") as $s
      | if   $s == ""  then $n
        elif $s == "n" then $n / 1000000000
        elif $s == "u" then $n / 1000000
        elif $s == "m" then $n / 1000
        elif $s == "k" then $n * 1000
        elif $s == "M" then $n * 1000000
        elif $s == "G" then $n * 1000000000
        elif $s == "T" then $n * 1000000000000
        elif $s == "P" then $n * 1000000000000000
        elif $s == "E" then $n * 1000000000000000000
        elif ($s | test("^[KMGTPE]i$")) then $n * pow(1024; "KMGTPE" | index($s[0:1]) + 1)
        else ($s[1:] | tonumber) as $e
             | if $e < 0 then $n / pow(10; -$e) else $n * pow(10; $e) end
        end
    end;

# owned: does this object name the TeamSpace uid as its controlling owner?
def owned($uid):
  any(.metadata.ownerReferences[]?; .uid == $uid and .kind == "TeamSpace" and .controller == true);

($namespaces[0].items | map({key: .metadata.name, value: .}) | from_entries) as $nsByName
| ($quotas[0].items | map(select(.metadata.name == $quotaName))
   | map({key: .metadata.namespace, value: .}) | from_entries) as $quotaByNs
| .items[]
| .metadata.name as $name
| .metadata.uid as $uid
| ("team-" + $name) as $ns
| (.spec.pods // 0) as $pods
| (if (.spec.cpu // "") == "" then "1" else .spec.cpu end) as $cpu
| ($cpu | quantity) as $cpuValue
| ($nsByName[$ns]) as $liveNs
| ($quotaByNs[$ns]) as $liveQuota
| {
    name: $name,
    uid: $uid,
    rv: .metadata.resourceVersion,
    generation: .metadata.generation,
    pods: $pods,
    cpu_json: ($cpu | tojson),
    deleting: (.metadata.deletionTimestamp != null),
    has_finalizer: ((.metadata.finalizers // []) | index([$finalizer]) != null),
    # The first reason the spec cannot be acted on, in the Go engine's order.
    invalid: (
      if ($ns | length) > 63 or ($ns | test("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$") | not) then
        "metadata.name \($name | tojson) gives namespace \($ns) which is invalid: a namespace must be a lowercase RFC 1123 label of at most 63 characters ([a-z0-9]([-a-z0-9]*[a-z0-9])?)"
      elif ($pods | type) != "number" or $pods < 1 or $pods > 50 then
        "spec.pods \($pods | tostring | tojson) must be between 1 and 50"
      elif ($cpu | length) > 12
           or ($cpu | test("\\A((0|[1-9][0-9]{0,5})(\\.[0-9]{1,3})?|(0|[1-9][0-9]{0,8})m)\\z") | not) then
        # teamspace.CPUPattern: cores with up to 3 decimals or millicores
        # (\A and \z: Oniguruma's ^ and $ also match at a newline).
        "spec.cpu \($cpu | tojson) is not a CPU amount: use cores with up to 3 decimals (\"1\", \"0.5\") or millicores (\"500m\")"
      else "" end),
    # missing: not among the labelled namespaces (create it, or find out why);
    # ours: labelled and owned by this TeamSpace; foreign: labelled, not ours.
    ns_state: (if $liveNs == null then "missing"
               elif ($liveNs | owned($uid)) then "ours" else "foreign" end),
    ns_labelled: ($liveNs != null and $liveNs.metadata.labels[$ownerLabel] == $name),
    # The quota's hard limits are exactly pods and requests.cpu: a limit
    # added by hand is drift like an edited one.
    quota_exists: ($liveQuota != null),
    quota_extra: ((($liveQuota.spec.hard // {}) | keys) - ["pods", "requests.cpu"] | tojson),
    quota_ok: ($liveQuota != null
               and $liveQuota.metadata.labels[$ownerLabel] == $name
               and (($liveQuota.spec.hard // {}) | keys) == ["pods", "requests.cpu"]
               and ($liveQuota.spec.hard.pods // "" | quantity) == $pods
               and ($liveQuota.spec.hard["requests.cpu"] // "" | quantity) == $cpuValue),
    status_ok: (.status.observedGeneration == .metadata.generation and .status.namespace == $ns)
  }
| . as $facts | [$fields | splits(" ") | $facts[.] | tostring] | join("\u001f")
JQ

failures=0

# say prints what the pass did, one line per write.
say() { printf 'teamspace %s: %s\n' "$name" "$*"; }

# fail reports a TeamSpace that did not converge in this pass.
fail() {
  printf 'teamspace %s: %s\n' "$name" "$*" >&2
  failures=$((failures + 1))
}

# oneline squeezes kubectl's error output into one line for fail.
oneline() { tr '\n' ' ' | sed -e 's/ *$//'; }

# warn records a Warning Event on the TeamSpace (shown by `kubectl describe
# teamspace NAME`). Its name is fixed per TeamSpace, reason and generation, so
# a problem that stays is reported once, not on every pass: creating it again
# fails with AlreadyExists, which is ignored.
warn() {
  local reason=$1 message=$2 event_name now out
  event_name="${name:0:200}.${reason,,}.${generation}.${uid:0:8}"
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  out=$(jq -n --arg name "$event_name" --arg ts "$name" --arg uid "$uid" --arg reason "$reason" \
      --arg message "$message" --arg now "$now" --arg apiVersion "$API_VERSION" '{
        apiVersion: "v1", kind: "Event",
        metadata: {name: $name, namespace: "default"},
        involvedObject: {apiVersion: $apiVersion, kind: "TeamSpace", name: $ts, uid: $uid},
        type: "Warning", reason: $reason, message: $message,
        source: {component: "cnpa-reconcile-sh"},
        firstTimestamp: $now, lastTimestamp: $now, count: 1}' |
    kubectl create --field-manager="$FIELD_MANAGER" -f - 2>&1)
  if [[ $? -ne 0 && $out != *AlreadyExists* ]]; then
    # An event is a courtesy; the failure line on stderr says the same.
    printf 'teamspace %s: cannot record event %s: %s\n' "$name" "$reason" "$(oneline <<<"$out")" >&2
  fi
  return 0
}

# set_finalizers writes the whole finalizer list (a JSON array) with the
# resourceVersion we read as a precondition: if anyone changed the TeamSpace
# since (say, another controller added its finalizer), the server refuses
# with a Conflict and the next pass starts from fresh state instead of
# dropping their entry.
set_finalizers() {
  local finalizers=$1 patch
  patch=$(jq -cn --arg rv "$rv" --argjson f "$finalizers" '{metadata: {resourceVersion: $rv, finalizers: $f}}')
  kubectl patch teamspace "$name" --type=merge --field-manager="$FIELD_MANAGER" -p "$patch" 2>&1
}

# finalizers_with / finalizers_without print the current list plus or minus
# ours, keeping every other entry in its place. They read the list again
# from the plan's TeamSpace list, so the precondition rv matches it.
finalizers_without() {
  jq -c --arg name "$name" --arg f "$FINALIZER" \
    '.items[] | select(.metadata.name == $name) | (.metadata.finalizers // []) | map(select(. != $f))' \
    "$work/teamspaces.json"
}
finalizers_with() {
  jq -c --arg name "$name" --arg f "$FINALIZER" \
    '.items[] | select(.metadata.name == $name) | (.metadata.finalizers // []) + [$f]' \
    "$work/teamspaces.json"
}

# write_archive writes $CNPA_ARCHIVE_DIR/<name>.json atomically: a temp file
# in the same directory, flushed to disk, then renamed over the final name
# (mv -T: onto that name, never into a directory of that name). A reader
# never sees half a record. The record is then read back, and only a
# record that is there and says this TeamSpace lets the finalizer go.
#
# The name becomes a path only once it is a Kubernetes name (a DNS-1123
# subdomain, as the API server requires of every TeamSpace): a hostile
# server's "../../tmp/x" or a name with a newline is refused, and nothing
# is written.
write_archive() {
  local dir=$CNPA_ARCHIVE_DIR final=$CNPA_ARCHIVE_DIR/$name.json tmp err LC_ALL=C
  if ((${#name} > 253)) || ! [[ $name =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ ]]; then
    printf 'refused TeamSpace name %q: not a Kubernetes name (DNS-1123 subdomain), no archive path is built from it' "$name"
    return 1
  fi
  err=$(mkdir -p "$dir" 2>&1) || { printf '%s' "$err"; return 1; }
  tmp=$(mktemp "$dir/.archive.tmp-XXXXXX" 2>&1) || { printf '%s' "$tmp"; return 1; }
  if ! jq -cn --arg name "$name" --arg uid "$uid" --argjson pods "$pods" \
      '{name: $name, uid: $uid, pods: $pods}' >"$tmp" 2>/dev/null ||
    ! chmod 644 "$tmp" || ! sync "$tmp" || ! err=$(mv -fT "$tmp" "$final" 2>&1); then
    rm -f "$tmp"
    printf 'cannot write %s%s' "$final" "${err:+: $err}"
    return 1
  fi
  sync "$dir" 2>/dev/null # makes the rename durable; the record is already whole
  if [[ -L $final || ! -f $final ]] ||
    ! jq -e --arg uid "$uid" '.uid == $uid' "$final" >/dev/null 2>&1; then
    printf '%s is not the record just written (a symlink, or not a regular file)' "$final"
    return 1
  fi
  # Noted in cnpa's manifest (internal/manifest), so that `cnpa reset
  # --purge` removes the records cnpa's engines wrote and nothing else kept
  # in the archive dir. A note that cannot be written costs only that.
  { mkdir -p "$dir/.cnpa" && jq -cn --arg path "$name.json" '{path: $path}' >>"$dir/.cnpa/manifest.jsonl"; } 2>/dev/null || true
  return 0
}

# ensure_namespace makes sure team-<name> exists, is owned by this TeamSpace
# and carries our label. A namespace that exists without our ownerReference
# is never adopted: adopting it would let this TeamSpace's deletion remove
# somebody else's namespace.
ensure_namespace() {
  local ns=team-$name state=$ns_state labelled=$ns_labelled manifest out live patch
  if [[ $state == missing ]]; then
    manifest=$(jq -n --arg ns "$ns" --arg name "$name" --arg uid "$uid" \
        --arg labelKey "$OWNER_LABEL" --arg apiVersion "$API_VERSION" '{
          apiVersion: "v1", kind: "Namespace",
          metadata: {name: $ns, labels: {($labelKey): $name},
            ownerReferences: [{apiVersion: $apiVersion, kind: "TeamSpace",
              name: $name, uid: $uid, controller: true}]}}')
    if out=$(kubectl create --field-manager="$FIELD_MANAGER" -f - <<<"$manifest" 2>&1); then
      say "namespace $ns created"
      return 0
    fi
    if [[ $out != *AlreadyExists* ]]; then
      fail "create namespace $ns: $(oneline <<<"$out")"
      return 1
    fi
    # It exists without our label: look at who owns it.
    if ! live=$(kubectl get namespace "$ns" -o json 2>&1); then
      fail "get namespace $ns: $(oneline <<<"$live")"
      return 1
    fi
    state=$(jq -r --arg uid "$uid" \
      'if any(.metadata.ownerReferences[]?; .uid == $uid and .kind == "TeamSpace" and .controller == true)
       then "ours" else "foreign" end' <<<"$live")
    labelled=false
  fi
  if [[ $state == foreign ]]; then
    warn NamespaceConflict "namespace $ns exists and is not owned by this TeamSpace (uid $uid); it is left alone: delete or rename it, or rename the TeamSpace"
    fail "namespace $ns exists and is not owned by this TeamSpace"
    return 1
  fi
  if [[ $labelled != true ]]; then
    patch=$(jq -cn --arg labelKey "$OWNER_LABEL" --arg name "$name" '{metadata: {labels: {($labelKey): $name}}}')
    if ! out=$(kubectl patch namespace "$ns" --type=merge --field-manager="$FIELD_MANAGER" -p "$patch" 2>&1); then
      fail "label namespace $ns: $(oneline <<<"$out")"
      return 1
    fi
    say "namespace $ns label $OWNER_LABEL restored"
  fi
  return 0
}

# ensure_quota makes team-quota hold exactly the desired limits. A missing
# quota is created; a differing one is merge-patched, which sets pods and
# requests.cpu and removes every other limit (null). A server-side apply
# could not remove a limit added by hand: that field belongs to another
# field manager, and an apply only removes what it owned itself.
ensure_quota() {
  local ns=team-$name manifest patch out
  [[ $quota_ok == true ]] && return 0
  if [[ $quota_exists != true ]]; then
    manifest=$(jq -n --arg ns "$ns" --arg name "$name" --arg labelKey "$OWNER_LABEL" \
        --arg quota "$QUOTA_NAME" --arg pods "$pods" --argjson cpu "$cpu_json" '{
          apiVersion: "v1", kind: "ResourceQuota",
          metadata: {name: $quota, namespace: $ns, labels: {($labelKey): $name}},
          spec: {hard: {pods: $pods, "requests.cpu": $cpu}}}')
    if out=$(kubectl create --field-manager="$FIELD_MANAGER" -f - <<<"$manifest" 2>&1); then
      say "quota $ns/$QUOTA_NAME created with pods=$pods cpu=$cpu_json"
      return 0
    fi
    if [[ $out != *AlreadyExists* ]]; then
      fail "create quota $ns/$QUOTA_NAME: $(oneline <<<"$out")"
      return 1
    fi
    # It exists without our label: patch it like a drifted one.
  fi
  patch=$(jq -cn --arg name "$name" --arg labelKey "$OWNER_LABEL" --arg pods "$pods" \
      --argjson cpu "$cpu_json" --argjson extra "$quota_extra" '{
        metadata: {labels: {($labelKey): $name}},
        spec: {hard: ((reduce $extra[] as $k ({}; .[$k] = null)) + {pods: $pods, "requests.cpu": $cpu})}}')
  if ! out=$(kubectl patch resourcequota "$QUOTA_NAME" -n "$ns" --type=merge --field-manager="$FIELD_MANAGER" -p "$patch" 2>&1); then
    fail "patch quota $ns/$QUOTA_NAME: $(oneline <<<"$out")"
    return 1
  fi
  if [[ $quota_extra == '[]' ]]; then
    say "quota $ns/$QUOTA_NAME set to pods=$pods cpu=$cpu_json"
  else
    say "quota $ns/$QUOTA_NAME set to pods=$pods cpu=$cpu_json, removed $quota_extra"
  fi
  return 0
}

# reconcile_teamspace converges one TeamSpace, given its plan line. Phases,
# as in the Go controller:
#   1. being deleted: archive it, remove our finalizer, nothing else;
#   2. add our finalizer (when enabled), keeping every other one;
#   3. an invalid spec: warn and stop here (the quota keeps its last good
#      values, status is not advanced);
#   4. namespace, 5. quota;
#   6. status, through the /status subresource, only when it differs.
reconcile_teamspace() {
  local $PLAN_FIELDS finalizers out err patch
  IFS=$'\x1f' read -r $PLAN_FIELDS <<<"$1"

  if [[ $deleting == true ]]; then
    [[ $has_finalizer == true ]] || return 0 # not ours to hold
    if ! err=$(write_archive); then
      # Keep the finalizer: the deletion stays blocked until the record is
      # on disk. The next pass tries again.
      warn ArchiveFailed "cannot write the archive record, deletion stays blocked: $err"
      fail "archive: $err"
      return 1
    fi
    if ! finalizers=$(finalizers_without) || ! out=$(set_finalizers "$finalizers"); then
      fail "remove finalizer: $(oneline <<<"$out")"
      return 1
    fi
    say "archived to $CNPA_ARCHIVE_DIR/$name.json; finalizer $FINALIZER removed"
    return 0
  fi

  # A name no namespace can carry is never served: no finalizer for it, so
  # its deletion does not wait on this script.
  if [[ $CNPA_FINALIZER == true && $has_finalizer != true && $invalid != metadata.name* ]]; then
    if ! finalizers=$(finalizers_with) || ! out=$(set_finalizers "$finalizers"); then
      fail "add finalizer: $(oneline <<<"$out")"
      return 1
    fi
    say "finalizer $FINALIZER added"
  fi

  if [[ -n $invalid ]]; then
    # A retry would fail the same way until a human fixes the spec.
    warn InvalidSpec "$invalid; the quota keeps its last good values until it is fixed"
    fail "$invalid"
    return 1
  fi

  ensure_namespace || return 1
  ensure_quota || return 1

  if [[ $status_ok != true ]]; then
    patch=$(jq -cn --argjson g "$generation" --arg ns "team-$name" \
      '{status: {observedGeneration: $g, namespace: $ns}}')
    if ! out=$(kubectl patch teamspace "$name" --subresource=status --type=merge \
        --field-manager="$FIELD_MANAGER" -p "$patch" 2>&1); then
      # Deleted since this pass listed it: nothing left to report on, and
      # not a failure (a level-triggered pass acts on what is there now).
      if [[ $out == *"(NotFound)"* ]]; then
        return 0
      fi
      fail "write status: $(oneline <<<"$out")"
      return 1
    fi
    say "status observedGeneration=$generation namespace=team-$name"
  fi
  return 0
}

main() {
  local plan line
  work=$(mktemp -d) || exit 2
  trap 'rm -rf "$work"' EXIT

  # Read: three list requests, the only reads of a pass that finds nothing to do.
  if ! {
    kubectl get teamspaces -o json >"$work/teamspaces.json" &&
      kubectl get namespaces -l "$OWNER_LABEL" -o json >"$work/namespaces.json" &&
      kubectl get resourcequotas -A -l "$OWNER_LABEL" -o json >"$work/quotas.json"
  }; then
    echo "reconcile.sh: cannot read the cluster" >&2
    exit 2
  fi

  # Compare.
  plan=$(jq -r --slurpfile namespaces "$work/namespaces.json" --slurpfile quotas "$work/quotas.json" \
    --arg finalizer "$FINALIZER" --arg ownerLabel "$OWNER_LABEL" --arg quotaName "$QUOTA_NAME" --arg fields "$PLAN_FIELDS" \
    "$PLAN_JQ" "$work/teamspaces.json") || {
    echo "reconcile.sh: cannot compare (jq failed)" >&2
    exit 2
  }

  # Converge each TeamSpace on its own: a failure is reported and the pass
  # goes on with the next one.
  while IFS= read -r line; do
    [[ -n $line ]] && reconcile_teamspace "$line"
  done <<<"$plan"

  [[ $failures -eq 0 ]] || exit 1
  exit 0
}

main "$@"
