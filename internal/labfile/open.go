package labfile

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/labhub/cnpa"
	"github.com/labhub/cnpa/internal/i18n"
)

// Shipped are the names of the labs cnpa carries (labs/<name>/lab.yaml).
func Shipped() []string {
	var names []string
	entries, _ := fs.ReadDir(cnpa.Labs, "labs")
	for _, e := range entries {
		if _, err := fs.Stat(cnpa.Labs, path.Join("labs", e.Name(), FileName)); e.IsDir() && err == nil {
			names = append(names, e.Name())
		}
	}
	return names
}

// Source is where a lab's files are: a dir on disk, or a lab cnpa ships.
type Source struct {
	FS fs.FS
	// Where names it in messages: the dir as given, or labs/<name>.
	Where string
	// Dir is the dir on disk, "" for a shipped lab until Materialize.
	Dir string
}

// Find resolves --lab's value: a dir that holds lab.yaml (a value with a
// slash, or a dir that exists), else the name of a lab cnpa ships. An
// unknown name is an error naming the labs there are.
func Find(arg string) (*Source, error) {
	if strings.ContainsRune(arg, '/') || isDir(arg) {
		abs, err := filepath.Abs(arg)
		if err != nil {
			return nil, err
		}
		return &Source{FS: os.DirFS(abs), Where: filepath.Clean(arg), Dir: abs}, nil
	}
	for _, n := range Shipped() {
		if n == arg {
			sub, err := fs.Sub(cnpa.Labs, "labs/"+n)
			if err != nil {
				return nil, err
			}
			return &Source{FS: sub, Where: "labs/" + n}, nil
		}
	}
	return nil, &UnknownLabError{Name: arg, Shipped: Shipped()}
}

// UnknownLabError is a --lab that names no lab: neither a dir nor a lab
// cnpa ships. Say words it.
type UnknownLabError struct {
	Name    string
	Shipped []string
}

func (e *UnknownLabError) Error() string { return e.Say(i18n.English) }

// Say is the error in lang, naming the labs there are.
func (e *UnknownLabError) Say(lang i18n.Lang) string {
	return lang.T("labfile.out.unknown_lab", i18n.Args{"Lab": e.Name, "Names": strings.Join(e.Shipped, ", ")})
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// Materialize writes a shipped lab's files into a new temporary dir, for
// its commands' $LAB_DIR; remove it with the returned func. A lab on disk
// is used where it is.
func (s *Source) Materialize() (func(), error) {
	if s.Dir != "" {
		return func() {}, nil
	}
	dir, err := os.MkdirTemp("", "cnpa-lab-")
	if err != nil {
		return nil, err
	}
	err = fs.WalkDir(s.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := fs.ReadFile(s.FS, p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.Dir = dir
	return func() { os.RemoveAll(dir) }, nil
}

// NewEngine is the engine of lab l on the cluster rc reaches, its files
// in labDir; kubeconfig is the KUBECONFIG its commands run with.
func NewEngine(l *Lab, rc *rest.Config, kubeconfig, labDir string) (*Engine, error) {
	// A dry run refused by a policy that only warns is an answer the
	// facts record, not a line for the terminal.
	rc = rest.CopyConfig(rc)
	rc.WarningHandler = rest.NoWarnings{}
	dyn, err := dynamic.NewForConfig(rc)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(rc)
	if err != nil {
		return nil, err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	return &Engine{
		Lab:     l,
		Cluster: &Cluster{Dyn: dyn, Mapper: mapper, Lab: l, Params: l.Defaults()},
		LabDir:  labDir,
		Env:     []string{"KUBECONFIG=" + kubeconfig},
	}, nil
}

// Install applies the lab's resources: what every step stands on.
func (e *Engine) Install(ctx context.Context) error { return e.Cluster.Apply(ctx) }
