// Command writes measures etcd and kine side by side: how resourceVersions
// advance, write, watch and list latencies, CPU and memory of the control
// plane, and an API server restart. It writes the metric names it saw to
// /tmp/metrics-<datastore>.txt.
//
//	go run ./test/dsprobe/writes -datastore kine
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/labhub/cnpa/test/kit/cluster"
)

func main() {
	ds := flag.String("datastore", "etcd", "")
	n := flag.Int("n", 200, "samples")
	bookmark := flag.Bool("bookmark", false, "measure bookmarks (slow)")
	flag.Parse()
	ctx := context.Background()
	t0 := time.Now()
	c, err := cluster.Start(ctx, cluster.Options{Datastore: *ds})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	defer c.Stop()
	fmt.Printf("== %s: ready in %s\n", *ds, time.Since(t0).Round(time.Millisecond))
	rc, _ := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	rc.QPS, rc.Burst = 1000, 1000
	k := kubernetes.NewForConfigOrDie(rc)
	ns := "probe"
	k.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	cms := k.CoreV1().ConfigMaps(ns)

	// RV facts
	first, _ := cms.Create(ctx, cm("rv-0", "a"), metav1.CreateOptions{})
	fmt.Printf("first create RV %s\n", first.ResourceVersion)
	var rvs []int64
	for i := 1; i <= 10; i++ {
		o, _ := cms.Create(ctx, cm(fmt.Sprintf("rv-%d", i), "a"), metav1.CreateOptions{})
		rvs = append(rvs, rv(o.ResourceVersion))
	}
	fmt.Printf("10 back-to-back creates: RV deltas %v\n", deltas(rvs))
	o, _ := cms.Get(ctx, "rv-1", metav1.GetOptions{})
	u := o.DeepCopy()
	u.Data["k"] = "b"
	u2, _ := cms.Update(ctx, u, metav1.UpdateOptions{})
	same, _ := cms.Update(ctx, u2.DeepCopy(), metav1.UpdateOptions{})
	fmt.Printf("update: RV %s -> %s; no-op update -> %s\n", o.ResourceVersion, u2.ResourceVersion, same.ResourceVersion)
	_, err = cms.Create(ctx, cm("rv-2", "a"), metav1.CreateOptions{})
	after, _ := cms.Create(ctx, cm("rv-after-conflict", "a"), metav1.CreateOptions{})
	fmt.Printf("create of existing name: %v; next create RV %s (last create RV %d)\n", apierrors.IsAlreadyExists(err), after.ResourceVersion, rvs[len(rvs)-1])
	l, _ := cms.List(ctx, metav1.ListOptions{})
	fmt.Printf("list RV %s\n", l.ResourceVersion)
	// delete RV via watch
	w, _ := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: l.ResourceVersion})
	cms.Delete(ctx, "rv-3", metav1.DeleteOptions{})
	for ev := range w.ResultChan() {
		if ev.Type == watch.Deleted {
			fmt.Printf("DELETED event RV %s (list RV was %s)\n", ev.Object.(*corev1.ConfigMap).ResourceVersion, l.ResourceVersion)
			break
		}
	}
	w.Stop()
	// old RV watch
	_, werr := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: "1"})
	w2, _ := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: "1"})
	if w2 != nil {
		select {
		case ev := <-w2.ResultChan():
			fmt.Printf("watch from RV 1: err %v, first event %s %T %v\n", werr, ev.Type, ev.Object, errStatus(ev.Object))
		case <-time.After(3 * time.Second):
			fmt.Printf("watch from RV 1: err %v, no event in 3s\n", werr)
		}
		w2.Stop()
	}

	// write latencies
	cpu0 := cpu(c.Dir)
	wall0 := time.Now()
	var cre, upd, del, lat, lst []time.Duration
	w3, _ := cms.Watch(ctx, metav1.ListOptions{})
	evs := w3.ResultChan()
	for i := 0; i < *n; i++ {
		name := fmt.Sprintf("w-%d", i)
		s := time.Now()
		_, err := cms.Create(ctx, cm(name, "a"), metav1.CreateOptions{})
		if err != nil {
			fmt.Println(err)
			return
		}
		cre = append(cre, time.Since(s))
		for ev := range evs {
			if ev.Type == watch.Added && ev.Object.(*corev1.ConfigMap).Name == name {
				lat = append(lat, time.Since(s))
				break
			}
		}
	}
	w3.Stop()
	for i := 0; i < *n; i++ {
		name := fmt.Sprintf("w-%d", i)
		o, _ := cms.Get(ctx, name, metav1.GetOptions{})
		o.Data["k"] = "c"
		s := time.Now()
		if _, err := cms.Update(ctx, o, metav1.UpdateOptions{}); err != nil {
			fmt.Println(err)
		}
		upd = append(upd, time.Since(s))
	}
	for i := 0; i < *n; i++ {
		s := time.Now()
		cms.List(ctx, metav1.ListOptions{})
		lst = append(lst, time.Since(s))
	}
	for i := 0; i < *n; i++ {
		s := time.Now()
		cms.Delete(ctx, fmt.Sprintf("w-%d", i), metav1.DeleteOptions{})
		del = append(del, time.Since(s))
	}
	cpu1 := cpu(c.Dir)
	for name, v := range cpu1 {
		fmt.Printf("cpu %s: %.2fs over %s of requests\n", name, float64(v-cpu0[name])/100, time.Since(wall0).Round(time.Millisecond))
	}
	fmt.Printf("create %s\nupdate %s\ndelete %s\nwatch (create call to ADDED event) %s\nconsistent list (~%d CMs) %s\n", dist(cre), dist(upd), dist(del), dist(lat), 12, dist(lst))

	// metrics
	body, err := k.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err == nil {
		names := map[string]bool{}
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "#") {
				continue
			}
			name := line
			if i := strings.IndexAny(line, "{ "); i > 0 {
				name = line[:i]
			}
			names[name] = true
		}
		var all []string
		for nm := range names {
			all = append(all, nm)
		}
		sort.Strings(all)
		os.WriteFile(filepath.Join("/tmp", "metrics-"+*ds+".txt"), []byte(strings.Join(all, "\n")+"\n"), 0o644)
		os.WriteFile(filepath.Join("/tmp", "metrics-full-"+*ds+".txt"), body, 0o644)
		fmt.Printf("metrics: %d names (kine_: %d)\n", len(all), count(all, "kine_"))
	}
	rss(c.Dir)

	// restart
	s := time.Now()
	c.StopAPIServer()
	stopped := time.Since(s)
	s = time.Now()
	if err := c.StartAPIServer(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("API server restart: stop %s, start to /readyz %s\n", stopped.Round(time.Millisecond), time.Since(s).Round(time.Millisecond))
	o2, err := cms.Create(ctx, cm("after-restart", "a"), metav1.CreateOptions{})
	if err == nil {
		fmt.Printf("first create after restart RV %s\n", o2.ResourceVersion)
	}
	if *bookmark {
		l, _ := cms.List(ctx, metav1.ListOptions{})
		w, _ := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: l.ResourceVersion, AllowWatchBookmarks: true})
		s := time.Now()
		var bms []string
		for ev := range w.ResultChan() {
			if ev.Type == watch.Bookmark {
				bms = append(bms, fmt.Sprintf("%s@%s", time.Since(s).Round(time.Second), ev.Object.(*corev1.ConfigMap).ResourceVersion))
				if len(bms) == 2 {
					break
				}
			}
		}
		fmt.Printf("bookmarks: %v\n", bms)
	}
	if *ds == "kine" {
		fi, _ := os.Stat(filepath.Join(c.Dir, "kine", "state.db"))
		if fi != nil {
			fmt.Printf("state.db %d bytes\n", fi.Size())
		}
		fmt.Println(grep(c.Log("kube-apiserver"), "feature_support_checker", "RequestWatchProgress", "Kine"))
	} else {
		fmt.Println(grep(c.Log("kube-apiserver"), "feature_support_checker", "RequestWatchProgress"))
	}
}

func grep(s string, pats ...string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for _, p := range pats {
			if strings.Contains(l, p) {
				if len(l) > 220 {
					l = l[:220]
				}
				out = append(out, l)
				break
			}
		}
	}
	if len(out) > 15 {
		out = out[:15]
	}
	return strings.Join(out, "\n")
}

func count(xs []string, p string) int {
	n := 0
	for _, x := range xs {
		if strings.HasPrefix(x, p) {
			n++
		}
	}
	return n
}

func rss(dir string) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cl, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if !bytes.Contains(cl, []byte(dir)) {
			continue
		}
		parts := strings.Split(string(cl), "\x00")
		st, _ := os.ReadFile("/proc/" + e.Name() + "/status")
		for _, l := range strings.Split(string(st), "\n") {
			if strings.HasPrefix(l, "VmRSS") {
				fmt.Printf("rss %s: %s\n", parts[1], strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:")))
			}
		}
	}
}

func cpu(dir string) map[string]int64 {
	out := map[string]int64{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cl, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if !bytes.Contains(cl, []byte(dir)) {
			continue
		}
		parts := strings.Split(string(cl), "\x00")
		st, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+2:]))
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		out[parts[1]] = u + s
	}
	return out
}

func errStatus(o any) string {
	if s, ok := o.(*metav1.Status); ok {
		return fmt.Sprintf("%d %s", s.Code, s.Message)
	}
	return ""
}

func cm(name, v string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": v}}
}

func rv(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }

func deltas(xs []int64) []int64 {
	var d []int64
	for i := 1; i < len(xs); i++ {
		d = append(d, xs[i]-xs[i-1])
	}
	return d
}

func dist(ds []time.Duration) string {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	p := func(q float64) time.Duration { return s[int(q*float64(len(s)-1))].Round(10 * time.Microsecond) }
	return fmt.Sprintf("p50 %s p95 %s max %s (n=%d)", p(0.5), p(0.95), s[len(s)-1].Round(10*time.Microsecond), len(s))
}
