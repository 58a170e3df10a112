// Command minctl is `cnpa controller` with nothing else linked in: the same
// controller.New + Run on the same client configuration (kube.Resolve: QPS
// 100, burst 200), without the CLI, the lab steps or the service manager.
// The bench runs it as the diagnostic contender cnpa-min, to tell how much
// of cnpa's memory is the controller and how much the rest of the binary;
// --pprof serves net/http/pprof for heap and CPU profiles, --metrics the
// controller's own Prometheus metrics (the workqueue's among them).
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"syscall"

	"github.com/labhub/cnpa/internal/controller"
	"github.com/labhub/cnpa/internal/kube"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	archive := flag.String("archive-dir", "", "archive directory")
	workers := flag.Int("workers", controller.DefaultWorkers, "TeamSpaces reconciled in parallel")
	pprofAddr := flag.String("pprof", "", "serve net/http/pprof on this address")
	metricsAddr := flag.String("metrics", "", "serve the controller's Prometheus metrics on this address")
	flag.Parse()
	if err := run(*kubeconfig, *archive, *workers, *pprofAddr, *metricsAddr); err != nil {
		fmt.Fprintln(os.Stderr, "minctl:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, archive string, workers int, pprofAddr, metricsAddr string) error {
	t, err := kube.Resolve(kubeconfig, "")
	if err != nil {
		return err
	}
	// Debug: the periodic pass logs when it ends, which the scale phase
	// lines up with slow samples.
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctrl, err := controller.New(t.Config, controller.Config{ArchiveDir: archive, Finalizer: true, Workers: workers, Logger: log})
	if err != nil {
		return err
	}
	if pprofAddr != "" {
		go func() {
			// Diagnostics only: a failure to serve is logged, the controller runs on.
			if err := http.ListenAndServe(pprofAddr, nil); err != nil {
				log.Error("pprof", "err", err)
			}
		}()
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if metricsAddr != "" {
		go func() {
			// Diagnostics only, as pprof above.
			if err := ctrl.ServeMetrics(ctx, metricsAddr); err != nil {
				log.Error("metrics", "err", err)
			}
		}()
	}
	return ctrl.Run(ctx)
}
