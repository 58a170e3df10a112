// Package assets holds the files a learner reads and installs, embedded in
// the cnpa binary exactly as they ship.
package assets

import _ "embed"

// CRD is the TeamSpace CustomResourceDefinition of the lab text's step 1.
//
//go:embed crd.yaml
var CRD []byte

// ReconcileScript is the shell engine: one level-triggered pass with
// kubectl and jq.
//
//go:embed reconcile.sh
var ReconcileScript []byte

// ServiceUnit is the cnpa-op.service template; see internal/service.
//
//go:embed cnpa-op.service
var ServiceUnit []byte

// RBAC is the least-privilege ServiceAccount, ClusterRole and binding the
// controller needs.
//
//go:embed rbac.yaml
var RBAC []byte

// Admission is the ValidatingAdmissionPolicy that narrows the controller
// identity's namespace and quota writes to the TeamSpaces' own.
//
//go:embed admission.yaml
var Admission []byte

// LeaderElection is the Lease and the Role, narrowed to that Lease by name,
// that `cnpa controller --leader-elect` needs under the service's identity;
// LEASE_NAME stands for --leader-elect-name (identity.ApplyFor renders it).
//
//go:embed leader-election.yaml
var LeaderElection []byte

// LabServiceUnit is cnpa-op.service as the lab text's step 4 shows it: the
// learner's reconcile.sh every 3 s, as root with the admin kubeconfig.
// cnpa writes it for a learner's own controller when they wrote none.
//
//go:embed cnpa-op-lab.service
var LabServiceUnit []byte
