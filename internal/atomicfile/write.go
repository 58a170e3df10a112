//go:build !faultinject

package atomicfile

import "os"

// writeTemp writes data into the temp file. The faultinject build
// (write_faultinject.go) can die half way through instead, so that the
// fault tests crash inside WriteFile itself.
func writeTemp(f *os.File, data []byte) (int, error) { return f.Write(data) }
