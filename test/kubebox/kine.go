package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	kineapp "github.com/k3s-io/kine/pkg/app"
	kineendpoint "github.com/k3s-io/kine/pkg/endpoint"
	etcdversion "go.etcd.io/etcd/api/v3/version"
	"k8s.io/component-base/cli"
	"k8s.io/component-base/metrics/legacyregistry"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
)

// kubebox's own kube-apiserver flags. They never reach kube-apiserver.
const (
	// kineEndpointFlag names kine's datastore, e.g.
	// sqlite:///dir/db/state.db?_journal=WAL&cache=shared. With it, kine
	// runs in the kube-apiserver process and --etcd-servers points at it.
	kineEndpointFlag = "--kine-endpoint"
	// kineListenFlag is where kine serves the etcd API, e.g.
	// unix:///dir/kine.sock (k3s: unix://kine.sock in its server dir).
	kineListenFlag = "--kine-listen"
)

// kineNotifyInterval is how often kine sends watch progress notifications.
// k3s sets 5 s (pkg/cli/server: Datastore.NotifyInterval), the interval
// kube-apiserver expects when it uses them (k3s-io/k3s#9385).
const kineNotifyInterval = 5 * time.Second

// kineStopTimeout bounds the wait for kine's goroutines (the gRPC server's
// graceful stop, the SQL poller) after kube-apiserver has exited.
const kineStopTimeout = 10 * time.Second

// maxUnixSocketPath is the longest path a Linux unix socket can bind
// (sun_path is 108 bytes with the terminating NUL).
const maxUnixSocketPath = 107

// runAPIServer runs kube-apiserver. With --kine-endpoint it first starts
// kine in this same process, the way k3s runs its SQLite datastore: one
// process, so stopping the API server stops kine with it, and kine's
// metrics (kine_*) are served on the API server's /metrics. Phases:
//  1. take kubebox's --kine-* flags out of the arguments;
//  2. start kine on --kine-listen and point --etcd-servers at it;
//  3. run kube-apiserver until it exits (SIGTERM);
//  4. stop kine and wait for it.
func runAPIServer(args []string) int {
	kineEP, kineListen, rest, err := kineFlags(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kube-apiserver:", err)
		return 2
	}
	if kineEP == "" {
		return cli.Run(apiserver.NewAPIServerCommand())
	}
	servers, stop, err := startKine(kineEP, kineListen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kine:", err)
		return 1
	}
	os.Args = append([]string{"kube-apiserver"}, append(rest,
		"--storage-backend=etcd3", "--etcd-servers="+servers)...)
	code := cli.Run(apiserver.NewAPIServerCommand())
	if err := stop(); err != nil {
		fmt.Fprintln(os.Stderr, "kine:", err)
	}
	return code
}

// kineFlags splits kubebox's --kine-endpoint and --kine-listen (as
// --flag=value or --flag value) from kube-apiserver's own flags.
func kineFlags(args []string) (endpoint, listen string, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		var dst *string
		var name string
		switch {
		case a == kineEndpointFlag || strings.HasPrefix(a, kineEndpointFlag+"="):
			dst, name = &endpoint, kineEndpointFlag
		case a == kineListenFlag || strings.HasPrefix(a, kineListenFlag+"="):
			dst, name = &listen, kineListenFlag
		default:
			rest = append(rest, a)
			continue
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			*dst = v
		} else if i+1 < len(args) {
			i++
			*dst = args[i]
		} else {
			return "", "", nil, fmt.Errorf("%s needs a value", name)
		}
	}
	if endpoint == "" {
		if listen != "" {
			return "", "", nil, fmt.Errorf("%s without %s", kineListenFlag, kineEndpointFlag)
		}
		return "", "", rest, nil
	}
	if listen == "" {
		return "", "", nil, fmt.Errorf("%s needs %s (e.g. unix:///dir/kine.sock)", kineEndpointFlag, kineListenFlag)
	}
	for _, a := range rest {
		if a == "--etcd-servers" || strings.HasPrefix(a, "--etcd-servers=") {
			return "", "", nil, fmt.Errorf("%s and --etcd-servers both given: kine sets --etcd-servers", kineEndpointFlag)
		}
	}
	if path, ok := strings.CutPrefix(listen, "unix://"); ok && len(path) > maxUnixSocketPath {
		return "", "", nil, fmt.Errorf("%s: socket path %s is %d bytes, longer than the %d a unix socket allows", kineListenFlag, path, len(path), maxUnixSocketPath)
	}
	return endpoint, listen, rest, nil
}

// startKine starts kine with k3s's settings and returns the etcd endpoint it
// serves and a function that stops it. Like k3s, it starts from kine's own
// defaults (kineapp.Config: 1 s poll interval, compaction left to the API
// server, …) and sets what k3s sets: the notify interval, an emulated etcd
// version (that of the etcd API linked here, k3s-io/k3s#11221; it tells
// kube-apiserver that watch progress requests work) and the registry of
// kube-apiserver's own metrics.
func startKine(endpoint, listen string) (servers string, stop func() error, err error) {
	cfg := kineapp.Config(nil)
	cfg.Endpoint = endpoint
	cfg.Listener = listen
	cfg.NotifyInterval = kineNotifyInterval
	cfg.EmulatedETCDVersion = etcdversion.Version
	cfg.MetricsRegisterer = legacyregistry.Registerer()
	cfg.WaitGroup = &sync.WaitGroup{}
	ctx, cancel := context.WithCancel(context.Background())
	etcd, err := kineendpoint.Listen(ctx, cfg)
	if err != nil {
		cancel()
		return "", nil, err
	}
	if len(etcd.Endpoints) == 0 {
		cancel()
		return "", nil, errors.New("kine returned no endpoint")
	}
	stop = func() error {
		cancel()
		done := make(chan struct{})
		go func() { cfg.WaitGroup.Wait(); close(done) }()
		select {
		case <-done:
			return nil
		case <-time.After(kineStopTimeout):
			return fmt.Errorf("still stopping after %s; exiting anyway (SQLite's WAL keeps what was committed)", kineStopTimeout)
		}
	}
	return strings.Join(etcd.Endpoints, ","), stop, nil
}
