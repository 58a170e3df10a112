// Command kubebox is one binary holding a real Kubernetes control plane for
// cnpa's tests: embedded etcd, kube-apiserver, kube-controller-manager and
// kubectl, all built from k8s.io/kubernetes v1.37.2, and kine
// (github.com/k3s-io/kine), the etcd shim over SQLite that k3s runs by
// default.
//
// It is a multi-call binary, like busybox: the first argument (or the name it
// is invoked by, for a `kubectl` symlink) picks the component.
//
//	kubebox etcd --data-dir DIR --client-url URL --peer-url URL
//	kubebox kube-apiserver <kube-apiserver flags>
//	kubebox kube-apiserver --kine-endpoint DSN --kine-listen ADDR <flags>
//	    (kine in the API server's process, as in k3s; it sets --etcd-servers)
//	kubebox kube-controller-manager <kube-controller-manager flags>
//	kubebox kubectl <kubectl args>   (or: ln -s kubebox kubectl)
//
// Each component runs in its own process so that a test can stop and restart
// the API server alone, and so that the components' global state (flags,
// metrics registries) never clash. kine is the exception, on purpose: k3s
// runs it inside its own process beside kube-apiserver, so they stop and
// start together and share one metrics registry.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/component-base/cli"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() {
	name := filepath.Base(os.Args[0])
	args := os.Args[1:]
	if name == "kubebox" || name == "kubebox.test" {
		if len(args) == 0 {
			fmt.Fprintln(os.Stderr, "usage: kubebox etcd|kube-apiserver|kube-controller-manager|kubectl [flags]")
			os.Exit(2)
		}
		name, args = args[0], args[1:]
	}
	// Each cobra command reads os.Args[1:] itself, so shift the component name away.
	os.Args = append([]string{name}, args...)
	switch name {
	case "etcd":
		os.Exit(runEtcd(args))
	case "kube-apiserver":
		os.Exit(runAPIServer(args))
	case "kube-controller-manager":
		os.Exit(cli.Run(controllermanager.NewControllerManagerCommand()))
	case "kubectl":
		os.Exit(cli.Run(kubectlcmd.NewDefaultKubectlCommand()))
	default:
		fmt.Fprintf(os.Stderr, "kubebox: unknown component %q (want etcd, kube-apiserver, kube-controller-manager or kubectl)\n", name)
		os.Exit(2)
	}
}
