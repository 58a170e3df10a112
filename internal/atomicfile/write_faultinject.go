//go:build faultinject

package atomicfile

import (
	"os"

	"github.com/labhub/cnpa/internal/faultinject"
)

// writeTemp writes data into the temp file or, with
// CNPA_FAULT=during-write, writes half of it, makes that half durable and
// kills the process: what a crash in the middle of WriteFile leaves.
func writeTemp(f *os.File, data []byte) (int, error) {
	if faultinject.Armed(faultinject.DuringWrite) {
		f.Write(data[:len(data)/2])
		f.Sync()
		faultinject.Die()
	}
	return f.Write(data)
}
