// Package grader tests `cnpa check`, `status` and `reset` against a real
// control plane after full lab runs: a correct lab passes every check, and
// each kind of tampering fails exactly the check meant to catch it. It has
// its own cluster (the lab's names are fixed), so it runs beside test/e2e.
package grader

import (
	"testing"

	"github.com/labhub/cnpa/test/kit/cluster"
)

func TestMain(m *testing.M) { cluster.Main(m) }
