package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// env is one fresh control plane with the TeamSpace CRD installed, the
// harness's own clients and the observer watching it.
type env struct {
	cluster *cluster.Cluster
	// rc has no client-side rate limit: the harness must never be the
	// bottleneck it measures.
	rc   *rest.Config
	kube kubernetes.Interface
	dyn  dynamic.Interface
	obs  *observer
	// dir holds this contender's files: logs, archive, kubectl cache.
	dir string
	// id is the contender's identity; contenderKubeconfig and contenderRC
	// are how every contender connects.
	id                  *identity
	contenderKubeconfig string
	contenderRC         *rest.Config
}

// newEnv starts a control plane, installs the CRD and starts the observer.
// Phases: start etcd, kube-apiserver and kube-controller-manager; apply
// assets/crd.yaml with the kubebox kubectl and wait for Established; build
// the clients; start the watches and wait for their first list.
func newEnv(ctx context.Context, dir string) (_ *env, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	id, err := newIdentity(dir)
	if err != nil {
		return nil, fmt.Errorf("contender identity: %w", err)
	}
	startCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	c, err := cluster.Start(startCtx, cluster.Options{ExtraAPIServerFlags: id.apiServerFlags(), Durable: true})
	if err != nil {
		return nil, fmt.Errorf("start control plane: %w", err)
	}
	e := &env{cluster: c, dir: dir, id: id, contenderKubeconfig: filepath.Join(dir, "contender.kubeconfig")}
	defer func() {
		if err != nil {
			e.close()
		}
	}()
	if err := kit.InstallCRD(ctx, c, filepath.Join(dir, "kubecache-admin")); err != nil {
		return nil, err
	}
	// No gzip for the harness and its observer: kube-apiserver would
	// compress every event of the observer's watches (see the controller's
	// controllerConfig), CPU that weighs on whatever is being measured.
	e.rc = &rest.Config{Host: c.Server, BearerToken: c.Token, QPS: -1, UserAgent: "cnpa-bench", DisableCompression: true,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	e.contenderRC = &rest.Config{Host: c.Server, QPS: -1, TLSClientConfig: rest.TLSClientConfig{Insecure: true,
		CertData: id.certPEM, KeyData: id.keyPEM}}
	if err := os.WriteFile(e.contenderKubeconfig, []byte(id.kubeconfig(c.Server)), 0o600); err != nil {
		return nil, err
	}
	if e.kube, err = kubernetes.NewForConfig(e.rc); err != nil {
		return nil, err
	}
	if e.dyn, err = dynamic.NewForConfig(e.rc); err != nil {
		return nil, err
	}
	if e.obs, err = startObserver(ctx, e.kube, e.dyn); err != nil {
		return nil, fmt.Errorf("start watches: %w", err)
	}
	return e, nil
}

// contenderEnv is the environment of a contender process: KUBECONFIG of
// the contender's identity, the kubebox kubectl first on PATH, and a
// kubectl discovery cache of its own. (exec keeps the last of duplicate
// variables, so this KUBECONFIG wins over the admin's.)
func (e *env) contenderEnv() []string {
	return append(e.cluster.Env(), "KUBECONFIG="+e.contenderKubeconfig, "KUBECACHEDIR="+filepath.Join(e.dir, "kubecache"))
}

func (e *env) close() {
	if e.obs != nil {
		e.obs.stop()
	}
	e.cluster.Stop()
}
