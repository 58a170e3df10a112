//go:build faultinject

package controller

import "github.com/labhub/cnpa/internal/faultinject"

// afterArchive dies with CNPA_FAULT=after-archive: the record is in place, our
// finalizer is still on the TeamSpace.
func afterArchive() {
	if faultinject.Armed(faultinject.AfterArchive) {
		faultinject.Die()
	}
}
