// Command kubectl is kubebox's kubectl (the same k8s.io/kubectl v1.37.2,
// the same version stamp) as a binary of its own, for the kubectl calls of
// tests: reconcile.sh, the learners' scripts and the replays run it
// thousands of times a make test, and in kubebox every run first pays the
// init of the API server, controller-manager and etcd linked beside it
// (about 0.07 CPU s of each call's 0.2 s here). `make kubebox` builds it
// as .bin/kubebox-kubectl; internal/testcluster puts it on the tests' PATH
// as kubectl when it sits beside kubebox.
package main

import (
	"os"

	// Before kubectl's own init; see each package for why and how.
	_ "github.com/labhub/cnpa/test/kubebox/kubectl/defaultlang"
	_ "github.com/labhub/cnpa/test/kubebox/kubectl/gcpercent"

	"k8s.io/component-base/cli"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
)

func main() {
	os.Exit(cli.Run(kubectlcmd.NewDefaultKubectlCommand()))
}
