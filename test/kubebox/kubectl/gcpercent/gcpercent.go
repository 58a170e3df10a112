// Package gcpercent gives the tests' kubectl a lazier garbage collector
// before the rest of kubectl starts. A kubectl call lives for tens of
// milliseconds and allocates about 10 MB during package init alone, so at
// the default GOGC=100 it runs several collections for nothing; a make
// test makes thousands of calls. An explicit GOGC in the environment wins.
//
// Imported first by kubectl's main: Go initializes, of the packages whose
// imports are done, the first by import path, so this one (only runtime
// packages below it, and a github.com/labhub path) runs before every
// k8s.io package's init.
package gcpercent

import (
	"os"
	"runtime/debug"
)

func init() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(400)
	}
}
