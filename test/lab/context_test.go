package lab

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// The context and odd-path labs are TestStepAll's (lab_test.go): its
// labs that are not replayed run with `--context good` against the
// kubeconfig writeTwoContexts makes.

// deadServer is an address nothing answers on.
const deadServer = "https://127.0.0.1:1"

// writeTwoContexts writes to path a copy of the kubeconfig at from with
// two contexts: good (the cluster of from) and dead (deadServer), the
// current one.
func writeTwoContexts(t *testing.T, from, path string) {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(from)
	if err != nil {
		t.Fatal(err)
	}
	good := cfg.Contexts[cfg.CurrentContext]
	if good == nil {
		t.Fatalf("%s has no current context", from)
	}
	cfg.Contexts = map[string]*clientcmdapi.Context{
		"good": good,
		"dead": {Cluster: "dead", AuthInfo: good.AuthInfo},
	}
	cfg.Clusters["dead"] = &clientcmdapi.Cluster{Server: deadServer, InsecureSkipTLSVerify: true}
	cfg.CurrentContext = "dead"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
}
