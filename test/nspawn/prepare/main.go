// Command prepare builds the systemd tests' root filesystem (nspawn.
// EnsureRootFS) before `make test` starts any test, so that debootstrap
// runs on a quiet machine (70 s on the 2-core machine of 2026-12-02) instead of beside four packages of
// control planes, where a fresh clone's CI once spent 13 minutes in it and
// test/system ran out of time. A cached one is reused at once. Where the
// containers cannot run (not root, tools missing) it says why and exits 0:
// test/system then skips, or fails under CI=true, with the same reason.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/labhub/cnpa/test/nspawn"
)

func main() {
	if reason, ok := nspawn.Available(); !ok {
		fmt.Println("rootfs: not built:", reason)
		return
	}
	cache, err := nspawn.CacheDir()
	if err != nil {
		fail(err)
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	// The same log the tests append to.
	log, err := os.OpenFile(filepath.Join(cache, "debootstrap.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fail(err)
	}
	defer log.Close()
	start := time.Now()
	rootfs, err := nspawn.EnsureRootFS(ctx, cache, log)
	if err != nil {
		fail(fmt.Errorf("%w (log: %s)", err, log.Name()))
	}
	fmt.Printf("rootfs: %s ready in %s\n", rootfs, time.Since(start).Round(100*time.Millisecond))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "rootfs:", err)
	os.Exit(1)
}
