package labfile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"sort"
)

// Hash is the content hash of a lab: a SHA-256 over every regular file of
// fsys (its lab.yaml, resources and solution), each as its slash path,
// its length and its bytes, in path order. A lab cnpa ships and the same
// files in a dir on disk hash alike; one changed byte, one file more or
// less, hashes otherwise. `cnpa submit` records it and `cnpa class grade`
// grades a submission only with the lab it was made with.
func Hash(fsys fs.FS) (string, error) {
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// The context kubeconfig a run with --context writes beside the
		// lab's files is the run's, not the lab's.
		if d.Type().IsRegular() && p != contextKubeconfig {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// contextKubeconfig is the file cnpa writes in a lab's dir for its
// commands when --context is given.
const contextKubeconfig = ".context.kubeconfig"
