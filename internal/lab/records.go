package lab

// The evidence files the steps write, as LAB.md names them, and their
// records: the lab's contract with the learner, which the controller,
// reset and the steps' engines read without the steps themselves (each
// step's shape and rules are in its folder under package course).

import (
	"encoding/json"
)

// ControllerStep is the first step whose evidence a controller makes (step
// 3's reconcile pass): from it on, what the cluster shows is the
// controller's doing.
const ControllerStep = 3

// ArchiveStep is the step whose controller writes archive/beta.json.
const ArchiveStep = 6

// BeforeFile is the evidence file step 1 writes, as LAB.md names it.
const BeforeFile = "before.json"

// BeforeRecord is step 1's before.json.
type BeforeRecord struct {
	UID             string `json:"uid"`
	NamespaceExists bool   `json:"namespace_exists"`
}

// GenerationFile is the evidence file step 2 writes, as LAB.md names it.
const GenerationFile = "generation.json"

// GenerationRecord is step 2's generation.json. StatusViaMain is alpha's
// .status right after the main-endpoint patch: JSON null when absent.
type GenerationRecord struct {
	UID           string          `json:"uid"`
	GenInitial    int64           `json:"gen_initial"`
	GenAfterLabel int64           `json:"gen_after_label"`
	GenAfterSpec  int64           `json:"gen_after_spec"`
	StatusViaMain json.RawMessage `json:"status_via_main"`
}

// ReconcileFile is the evidence file step 3 writes, as LAB.md names it.
const ReconcileFile = "reconcile.json"

// ReconcileRecord is step 3's reconcile.json.
type ReconcileRecord struct {
	QuotaUID            string `json:"quota_uid"`
	NamespaceOwnerUID   string `json:"namespace_owner_uid"`
	SecondPassRVChanged bool   `json:"second_pass_rv_changed"`
}

// DriftFile is the evidence file step 5 writes, as LAB.md names it.
const DriftFile = "drift.json"

// DriftRecord is step 5's drift.json.
type DriftRecord struct {
	DeletedUID     string `json:"deleted_uid"`
	RestoredUID    string `json:"restored_uid"`
	RestoreSeconds int64  `json:"restore_seconds"`
	// EditedTo is the value the hand edit set. LAB.md gives it as 99
	// without a type, so a learner's "99" is as good as cnpa's 99.
	EditedTo   json.Number `json:"edited_to"`
	RevertedTo int64       `json:"reverted_to"`
}

// CleanupFile is the evidence file step 6 writes, as LAB.md names it.
const CleanupFile = "cleanup.json"

// CleanupRecord is step 6's cleanup.json.
type CleanupRecord struct {
	UID           string `json:"uid"`
	BlockedSeen   bool   `json:"blocked_seen"`
	NamespaceGone bool   `json:"namespace_gone"`
}

// CatchupFile is the evidence file step 7 writes, as LAB.md names it.
const CatchupFile = "catchup.json"

// CatchupRecord is step 7's catchup.json; quota values stay strings, as
// the API returns them.
type CatchupRecord struct {
	Generation            int64  `json:"generation"`
	ObservedWhileStopped  int64  `json:"observed_while_stopped"`
	QuotaPodsWhileStopped string `json:"quota_pods_while_stopped"`
	ObservedAfterStart    int64  `json:"observed_after_start"`
	QuotaPodsAfterStart   string `json:"quota_pods_after_start"`
}

// ReportFile is the evidence file step 8 writes, as LAB.md names it.
const ReportFile = "report.json"

// ReportRecord is step 8's report.json.
type ReportRecord struct {
	CRDAloneCreatedNamespace      bool   `json:"crd_alone_created_namespace"`
	StatusBumpsGeneration         bool   `json:"status_bumps_generation"`
	RestoreSeconds                int64  `json:"restore_seconds"`
	Finalizer                     string `json:"finalizer"`
	Archived                      string `json:"archived"`
	GenerationsBehindWhileStopped int64  `json:"generations_behind_while_stopped"`
	Trigger                       string `json:"trigger"`
}
