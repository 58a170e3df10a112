// Package e2e holds behaviour tests that run against a real control plane
// (test/kit/cluster): both reconcile engines, the Go controller and
// assets/reconcile.sh, must produce the same observable results.
package e2e

import (
	"testing"

	"github.com/labhub/cnpa/test/kit/cluster"
)

func TestMain(m *testing.M) { cluster.Main(m) }
