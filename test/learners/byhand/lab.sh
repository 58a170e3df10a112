#!/usr/bin/env bash
# The TeamSpace lab done by hand, step by step as LAB.md says, with kubectl
# and jq only: no cnpa. The Go test runs it against a fresh control plane.
#
#   DIR         the evidence dir (LAB.md's /root/cnpa-op)
#   UNIT_DIR    where cnpa-op.service goes (LAB.md's /etc/systemd/system)
#   RECONCILE   the reconcile.sh to install (a learner's valid one)
#   KUBECONFIG, PATH (kubectl, jq)
#
# Without systemd, step 4's unit is run the way systemd would run it: its
# ExecStart as a process of its own, its pid in $DIR/cnpa-op.pid (see
# start_service).
set -euo pipefail
: "${DIR:?}" "${UNIT_DIR:?}" "${RECONCILE:?}"
mkdir -p "$DIR" "$UNIT_DIR"
cd "$DIR"

say() { printf '== %s\n' "$*"; }

# wait_for SECONDS CMD...: run CMD every 0.5 s until it succeeds.
wait_for() {
  local limit=$1; shift
  local end=$((SECONDS + limit))
  until "$@"; do
    if ((SECONDS >= end)); then echo "gave up after ${limit}s waiting for: $*" >&2; return 1; fi
    sleep 0.5
  done
}

say "step 1: the CRD alone"
cat > crd.yaml <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: teamspaces.platform.labhub.io
spec:
  group: platform.labhub.io
  scope: Cluster
  names:
    kind: TeamSpace
    plural: teamspaces
    singular: teamspace
    listKind: TeamSpaceList
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources:
      status: {}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [pods]
            properties:
              pods:
                type: integer
                minimum: 1
                maximum: 50
              cpu:
                type: string
                default: "1"
          status:
            type: object
            properties:
              observedGeneration:
                type: integer
              namespace:
                type: string
YAML
kubectl apply -f crd.yaml
kubectl wait --for condition=established --timeout=60s crd/teamspaces.platform.labhub.io
cat > alpha.yaml <<'YAML'
apiVersion: platform.labhub.io/v1alpha1
kind: TeamSpace
metadata:
  name: alpha
spec:
  pods: 4
YAML
# A CRD just established may take a moment to be served for writes.
wait_for 30 kubectl apply -f alpha.yaml
alpha_uid=$(kubectl get teamspace alpha -o jsonpath='{.metadata.uid}')
if kubectl get ns team-alpha >/dev/null 2>&1; then exists=true; else exists=false; fi
jq -n --arg uid "$alpha_uid" --argjson e "$exists" '{uid: $uid, namespace_exists: $e}' > before.json
cat before.json

say "step 2: what bumps metadata.generation"
gen() { kubectl get teamspace alpha -o jsonpath='{.metadata.generation}'; }
g0=$(gen)
kubectl label teamspace alpha owner=platform
g1=$(gen)
kubectl patch teamspace alpha --type=merge -p '{"status":{"observedGeneration":7}}'
status_via_main=$(kubectl get teamspace alpha -o json | jq -c '.status // null')
kubectl patch teamspace alpha --type=merge -p '{"spec":{"pods":6}}'
g2=$(gen)
jq -n --arg uid "$alpha_uid" --argjson g0 "$g0" --argjson g1 "$g1" --argjson g2 "$g2" --argjson s "$status_via_main" \
  '{uid: $uid, gen_initial: $g0, gen_after_label: $g1, gen_after_spec: $g2, status_via_main: $s}' > generation.json
cat generation.json

say "step 3: reconcile.sh, twice"
cp "$RECONCILE" reconcile.sh
chmod +x reconcile.sh
./reconcile.sh
quota_uid=$(kubectl -n team-alpha get resourcequota team-quota -o jsonpath='{.metadata.uid}')
owner_uid=$(kubectl get ns team-alpha -o json | jq -r '.metadata.ownerReferences[0].uid // ""')
rv1=$(kubectl -n team-alpha get resourcequota team-quota -o jsonpath='{.metadata.resourceVersion}')
./reconcile.sh
rv2=$(kubectl -n team-alpha get resourcequota team-quota -o jsonpath='{.metadata.resourceVersion}')
jq -n --arg q "$quota_uid" --arg o "$owner_uid" --argjson changed "$([ "$rv1" != "$rv2" ] && echo true || echo false)" \
  '{quota_uid: $q, namespace_owner_uid: $o, second_pass_rv_changed: $changed}' > reconcile.json
cat reconcile.json

say "step 4: the unit"
loop="while true; do $DIR/reconcile.sh; sleep 3; done"
cat > "$UNIT_DIR/cnpa-op.service" <<UNIT
[Unit]
Description=TeamSpace reconcile loop (cnpa lab)
After=network-online.target

[Service]
Environment=KUBECONFIG=$KUBECONFIG
Environment=PATH=$PATH
ExecStart=/bin/bash -c '$loop'
Restart=always
RestartSec=1

[Install]
WantedBy=multi-user.target
UNIT

# start_service: what `systemctl start cnpa-op` would do, on a machine
# without systemd: the unit's ExecStart in a session of its own, output to
# a log, its pid in cnpa-op.pid.
#
# cnpa check trusts a pid file only beside cnpa-op.identity.json (pid, start
# time, executable, and a marker that must be in the process's environment
# as CNPA_SERVICE_ID), so that a reused pid is never taken for the loop.
# With REGISTER=1 the loop is started with such a marker and the identity
# written, as cnpa's own process mode does; without it check reports the
# loop as not running.
start_service() {
  local marker pid
  marker=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  CNPA_SERVICE_ID=$marker setsid /bin/bash -c "$loop" >>"$DIR/cnpa-op.log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" > "$DIR/cnpa-op.pid"
  if [ "${REGISTER:-0}" = 1 ]; then
    # Field 22 of /proc/PID/stat, counted after the ")" that ends field 2.
    # Once setsid has exec'd the loop's bash: the marker is in its
    # environment and setsid is no longer its executable.
    loop_ready() {
      grep -qz "^CNPA_SERVICE_ID=$marker\$" "/proc/$pid/environ" &&
        [ "$(basename "$(readlink "/proc/$pid/exe")")" != setsid ]
    }
    wait_for 5 loop_ready
    jq -n --argjson pid "$pid" --arg st "$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f20)" \
      --arg exe "$(readlink "/proc/$pid/exe")" --arg m "$marker" \
      '{pid: $pid, start_time: $st, exe: $exe, marker: $m}' > "$DIR/cnpa-op.identity.json"
  fi
}
# stop_service: what `systemctl stop cnpa-op` would do: end the whole
# session (the loop and the kubectl it runs).
stop_service() {
  local pid
  pid=$(cat "$DIR/cnpa-op.pid")
  kill -TERM -- "-$pid" 2>/dev/null || true
  wait_for 15 bash -c "! kill -0 $pid 2>/dev/null"
  rm -f "$DIR/cnpa-op.pid"
}
start_service
kubectl create -f - <<'YAML'
apiVersion: platform.labhub.io/v1alpha1
kind: TeamSpace
metadata:
  name: byhand-probe
spec:
  pods: 1
YAML
wait_for 60 kubectl -n team-byhand-probe get resourcequota team-quota
kubectl delete teamspace byhand-probe --wait=false
wait_for 60 bash -c '! kubectl get teamspace byhand-probe >/dev/null 2>&1'

say "step 5: drift"
deleted_uid=$(kubectl -n team-alpha get resourcequota team-quota -o jsonpath='{.metadata.uid}')
t0=$SECONDS
kubectl -n team-alpha delete resourcequota team-quota
restored() {
  local u
  u=$(kubectl -n team-alpha get resourcequota team-quota -o jsonpath='{.metadata.uid}' 2>/dev/null) && [ -n "$u" ] && [ "$u" != "$deleted_uid" ]
}
wait_for 60 restored
restore_seconds=$((SECONDS - t0))
restored_uid=$(kubectl -n team-alpha get resourcequota team-quota -o jsonpath='{.metadata.uid}')
kubectl -n team-alpha patch resourcequota team-quota --type=merge -p '{"spec":{"hard":{"pods":"99"}}}'
pods_is() { [ "$(kubectl -n team-alpha get resourcequota team-quota -o jsonpath='{.spec.hard.pods}')" = "$1" ]; }
wait_for 60 pods_is 6
reverted=$(kubectl -n team-alpha get resourcequota team-quota -o jsonpath='{.spec.hard.pods}')
jq -n --arg d "$deleted_uid" --arg r "$restored_uid" --argjson s "$restore_seconds" --argjson v "$reverted" \
  '{deleted_uid: $d, restored_uid: $r, restore_seconds: $s, edited_to: 99, reverted_to: $v}' > drift.json
cat drift.json

say "step 6: cleanup before deletion"
cat > beta.yaml <<'YAML'
apiVersion: platform.labhub.io/v1alpha1
kind: TeamSpace
metadata:
  name: beta
spec:
  pods: 2
  cpu: "500m"
YAML
kubectl apply -f beta.yaml
beta_uid=$(kubectl get teamspace beta -o jsonpath='{.metadata.uid}')
beta_ready() {
  kubectl get ns team-beta >/dev/null 2>&1 &&
    kubectl get teamspace beta -o json | jq -e '.metadata.finalizers // [] | index("platform.labhub.io/cleanup") != null' >/dev/null
}
wait_for 60 beta_ready
kubectl delete teamspace beta --wait=false
if kubectl get teamspace beta -o json 2>/dev/null | jq -e '.metadata.deletionTimestamp != null' >/dev/null; then
  blocked=true
else
  blocked=false
fi
wait_for 60 bash -c '! kubectl get teamspace beta >/dev/null 2>&1'
wait_for 120 bash -c '! kubectl get ns team-beta >/dev/null 2>&1'
jq -n --arg uid "$beta_uid" --argjson b "$blocked" '{uid: $uid, blocked_seen: $b, namespace_gone: true}' > cleanup.json
cat cleanup.json archive/beta.json

say "step 7: no change missed while stopped"
stop_service
kubectl patch teamspace alpha --type=merge -p '{"spec":{"pods":8}}'
sleep 8
a=$(kubectl get teamspace alpha -o json)
generation=$(jq .metadata.generation <<<"$a")
observed_stopped=$(jq .status.observedGeneration <<<"$a")
quota_stopped=$(kubectl -n team-alpha get resourcequota team-quota -o jsonpath='{.spec.hard.pods}')
start_service
caught_up() {
  [ "$(kubectl get teamspace alpha -o jsonpath='{.status.observedGeneration}')" = "$generation" ] && pods_is 8
}
wait_for 60 caught_up
observed_after=$(kubectl get teamspace alpha -o jsonpath='{.status.observedGeneration}')
quota_after=$(kubectl -n team-alpha get resourcequota team-quota -o jsonpath='{.spec.hard.pods}')
jq -n --argjson g "$generation" --argjson os "$observed_stopped" --arg qs "$quota_stopped" \
  --argjson oa "$observed_after" --arg qa "$quota_after" \
  '{generation: $g, observed_while_stopped: $os, quota_pods_while_stopped: $qs,
    observed_after_start: $oa, quota_pods_after_start: $qa}' > catchup.json
cat catchup.json

say "step 8: the report, from the files"
jq -n --slurpfile b before.json --slurpfile g generation.json --slurpfile d drift.json \
  --slurpfile a archive/beta.json --slurpfile c catchup.json '{
    crd_alone_created_namespace: $b[0].namespace_exists,
    status_bumps_generation: (($g[0].gen_after_spec - $g[0].gen_after_label) > 1),
    restore_seconds: $d[0].restore_seconds,
    finalizer: "platform.labhub.io/cleanup",
    archived: $a[0].uid,
    generations_behind_while_stopped: ($c[0].generation - $c[0].observed_while_stopped),
    trigger: "level"}' > report.json
cat report.json
say "done; the loop is running as pid $(cat cnpa-op.pid)"
