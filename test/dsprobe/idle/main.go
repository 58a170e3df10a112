// Command idle shows what an idle watch receives on etcd and on kine: the
// BOOKMARK events a client sees, and how many progress notifications the API
// server took from its datastore (etcd_bookmark_total) over -idle.
//
//	go run ./test/dsprobe/idle -datastore kine -idle 130s
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/labhub/cnpa/test/kit/cluster"
)

func main() {
	ds := flag.String("datastore", "etcd", "")
	idle := flag.Duration("idle", 130*time.Second, "")
	flag.Parse()
	ctx := context.Background()
	c, err := cluster.Start(ctx, cluster.Options{Datastore: *ds})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	defer c.Stop()
	rc, _ := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	k := kubernetes.NewForConfigOrDie(rc)
	time.Sleep(10 * time.Second)
	b0 := bookmarks(ctx, k)
	l, _ := k.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	w, _ := k.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{ResourceVersion: l.ResourceVersion, AllowWatchBookmarks: true})
	start := time.Now()
	var seen []string
	deadline := time.After(*idle)
loop:
	for {
		select {
		case ev := <-w.ResultChan():
			if ev.Type == watch.Bookmark {
				seen = append(seen, fmt.Sprintf("%s@rv%s", time.Since(start).Round(time.Second), ev.Object.(*corev1.ConfigMap).ResourceVersion))
			}
		case <-deadline:
			break loop
		}
	}
	b1 := bookmarks(ctx, k)
	fmt.Printf("== %s: list rv %s; client BOOKMARKs in %s: %v; etcd_bookmark_total (progress notifies from storage, all resources) +%d over %s\n", *ds, l.ResourceVersion, *idle, seen, b1-b0, time.Since(start).Round(time.Second))
}

func bookmarks(ctx context.Context, k *kubernetes.Clientset) int {
	body, err := k.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return -1
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "etcd_bookmark_total{") {
			f := strings.Fields(line)
			v, _ := strconv.ParseFloat(f[len(f)-1], 64)
			n += int(v)
		}
	}
	return n
}
