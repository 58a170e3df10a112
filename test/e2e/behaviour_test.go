package e2e

import (
	"path/filepath"
	"testing"
	"time"
)

// foreignFinalizer stands for another controller's finalizer, which ours
// must never drop.
const foreignFinalizer = "example.com/keep"

// goInterval is the Go controller's resync period in the running engine.
const goInterval = 3 * time.Second

// TestBehaviour runs one table of scenarios against four engines: the Go
// controller one pass at a time and running, and assets/reconcile.sh one
// pass at a time and in a loop. Both engines must show the same behaviour.
// Engines run one after another (each reconciles every TeamSpace in the
// shared cluster); every scenario uses its own TeamSpace names and removes
// them at the end.
func TestBehaviour(t *testing.T) {
	env := newEnv(t)
	for _, ek := range engineKinds {
		t.Run(ek.name, func(t *testing.T) {
			for _, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) {
					sc.run(t, env.newScenario(t, ek, sc))
				})
			}
		})
	}
	env.timings.report(t)
}

// scenario is one row of the table.
type scenario struct {
	name string
	// short goes into TeamSpace names; keep it a few lowercase letters.
	short     string
	finalizer bool
	// archiveDir picks the engine's archive dir under a fresh temp dir;
	// nil means <tmp>/archive.
	archiveDir func(tmp string) string
	run        func(t *testing.T, s *scn)
}

var scenarios = []scenario{
	{name: "1-create", short: "create", run: testCreate},
	{name: "1-create-with-finalizer", short: "createf", finalizer: true, run: testCreate},
	{name: "2-spec-change", short: "spec", run: testSpecChange},
	{name: "3-noop-pass-writes-nothing", short: "noop", finalizer: true, run: testNoop},
	{name: "4-quota-deleted", short: "qdel", run: testQuotaDeleted},
	{name: "5-quota-edited", short: "qedit", run: testQuotaEdited},
	{name: "5-quota-extra-limit", short: "qextra", run: testQuotaExtraLimit},
	{name: "6-delete-keeps-foreign-finalizer", short: "del", finalizer: true, run: testDelete},
	{name: "7-catch-up-after-stop", short: "stop", run: testCatchUp},
	{name: "8-bad-cpu", short: "badcpu", run: testBadCPU},
	{name: "8-dotted-name", short: "dot", run: testDottedName},
	{name: "8-long-name", short: "long", run: testLongName},
	{name: "8-foreign-namespace", short: "foreign", run: testForeignNamespace},
	{name: "8-unwritable-archive", short: "arch", finalizer: true,
		archiveDir: func(tmp string) string { return filepath.Join(tmp, "blocker", "archive") },
		run:        testUnwritableArchive},
}
