// Command cluster starts the embedded real control plane (kubebox: the
// datastore, kube-apiserver, kube-controller-manager) in the foreground, for
// trying the lab by hand on a machine without k3s, and prints the lines to
// paste into another shell. Ctrl-C (SIGINT, also SIGTERM or SIGHUP) stops
// the lab's service if one was started against it, then the control plane,
// and removes its state directory: nothing is left behind. `make cluster`
// runs it.
//
//	cluster [-datastore etcd|kine] [-cnpa .bin/cnpa]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/test/kit/cluster"
)

func main() {
	datastore := flag.String("datastore", cluster.DatastoreEtcd, "datastore: "+cluster.DatastoreEtcd+" or "+cluster.DatastoreKine+" (k3s's default, SQLite)")
	cnpa := flag.String("cnpa", ".bin/cnpa", "the cnpa binary the printed PATH offers")
	flag.Parse()
	if _, err := cluster.ParseDatastore(*datastore); err != nil {
		fmt.Fprintln(os.Stderr, "cluster: -datastore:", err)
		os.Exit(2)
	}
	os.Exit(run(*datastore, *cnpa))
}

func run(datastore, cnpa string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	cnpa, err := filepath.Abs(cnpa)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		return 2
	}
	if _, err := os.Stat(cnpa); err != nil {
		fmt.Fprintf(os.Stderr, "cluster: cnpa binary %s: %v (make build makes it)\n", cnpa, err)
		return 2
	}
	start := time.Now()
	fmt.Fprintf(os.Stderr, "cluster: starting a real control plane (%s, kube-apiserver, kube-controller-manager)…\n", datastore)
	c, err := cluster.Start(ctx, cluster.Options{Datastore: datastore})
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(os.Stderr, "cluster: interrupted while starting; stopped, nothing left behind")
			return 130
		}
		fmt.Fprintln(os.Stderr, "cluster:", err)
		return 2
	}
	defer c.Stop()
	dir := filepath.Join(c.Dir, "cnpa-op")
	unitDir := filepath.Join(c.Dir, "systemd")
	// An empty unit dir exists on the lab's VM before anything is typed.
	if err := os.MkdirAll(unitDir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		return 2
	}
	banner := bannerEN
	if lang, _ := i18n.Choose("", os.Getenv); lang == i18n.Japanese {
		banner = bannerJA
	}
	fmt.Printf(banner, c.Server, time.Since(start).Round(time.Millisecond), c.Dir,
		shellQuote(c.Kubeconfig), shellQuote(c.BinDir), shellQuote(filepath.Dir(cnpa)), shellQuote(dir), shellQuote(unitDir), c.Dir)
	<-ctx.Done()
	stop()
	fmt.Fprintln(os.Stderr, "\ncluster: interrupted: stopping")
	// The learner's service, if a step started one, runs detached and
	// would outlive the cluster, retrying a dead server for ever.
	if _, err := os.Stat(filepath.Join(dir, labenv.StateFile)); err == nil {
		cmd := exec.Command(cnpa, "--kubeconfig", c.Kubeconfig, "--dir", dir, "service", "stop")
		cmd.Env = c.Env()
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "cluster: cnpa service stop: %v\n%s", err, out)
		} else {
			fmt.Fprintln(os.Stderr, "cluster: stopped cnpa-op.service")
		}
	}
	c.Stop()
	fmt.Fprintf(os.Stderr, "cluster: control plane stopped, %s removed\n", c.Dir)
	return 0
}

// shellQuote quotes s for bash when it needs it (a temp dir rarely does).
func shellQuote(s string) string {
	if !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~%") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// bannerEN and bannerJA are what a ready cluster prints, in the locale's
// language as cnpa chooses it (LC_ALL, LC_MESSAGES, LANG, CNPA_LANG):
// where the lab text's paths are here, and how to stop. Each line fits 80
// columns (paths aside). The last line starts "Ctrl-C here" in English:
// test/cli waits for it.
const bannerEN = `cluster: ready at %s in %s (state in %s)

Paste these lines into another shell:

  export KUBECONFIG=%s
  export PATH=%s:%s:$PATH
  export CNPA_DIR=%s
  export CNPA_UNIT_DIR=%s

Write the files the lab text puts in /root/cnpa-op/ (crd.yaml, alpha.yaml,
reconcile.sh, the JSON files) in $CNPA_DIR, and the unit it puts in
/etc/systemd/system/ in $CNPA_UNIT_DIR. Then, for example:

  kubectl get namespaces
  cnpa doctor
  cnpa watch        (in a third shell: judges your step on every save)
  cnpa step 1
  cnpa explain 3

kubectl there is kubebox's v1.37.2, the server's own version. There is no
systemd here: the service runs as a process, and
` + "`cnpa service start`" + ` starts the unit you put in $CNPA_UNIT_DIR.

Ctrl-C here stops the service, the control plane, and removes %s.
`

const bannerJA = `cluster: %s で準備ができました（%s、状態は%s）

次の行を別のシェルに貼り付けてください:

  export KUBECONFIG=%s
  export PATH=%s:%s:$PATH
  export CNPA_DIR=%s
  export CNPA_UNIT_DIR=%s

ラボの手順が/root/cnpa-op/に置くファイル（crd.yaml、alpha.yaml、
reconcile.sh、JSONファイル）は$CNPA_DIRに、/etc/systemd/system/に置く
unitは$CNPA_UNIT_DIRに書きます。たとえば:

  kubectl get namespaces
  cnpa doctor
  cnpa watch        （3つ目のシェルで: 保存するたびにステップを判定）
  cnpa step 1
  cnpa explain 3

ここのkubectlはkubeboxのv1.37.2で、サーバーと同じバージョンです。
ここにはsystemdがありません: サービスはプロセスとして動き、
` + "`cnpa service start`" + `が$CNPA_UNIT_DIRに置いたunitを起動します。

ここでCtrl-Cを押すと、サービスとコントロールプレーンが止まり、
%sが消えます。
`
