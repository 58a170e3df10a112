// Command compact shows how far back a resourceVersion stays readable on
// etcd and on kine: 1,500 updates of one ConfigMap, then a get, an exact
// list and a watch at four old revisions, before and after three of the API
// server's compaction intervals (set short with -interval).
//
//	go run ./test/dsprobe/compact -datastore kine -interval 20s
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/labhub/cnpa/test/kit/cluster"
)

func main() {
	ds := flag.String("datastore", "etcd", "")
	interval := flag.Duration("interval", 20*time.Second, "")
	flag.Parse()
	ctx := context.Background()
	c, err := cluster.Start(ctx, cluster.Options{Datastore: *ds, ExtraAPIServerFlags: []string{"--etcd-compaction-interval=" + interval.String()}})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	defer c.Stop()
	rc, _ := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	rc.QPS, rc.Burst = 1000, 1000
	k := kubernetes.NewForConfigOrDie(rc)
	cms := k.CoreV1().ConfigMaps("default")
	o, _ := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"i": "0"}}, metav1.CreateOptions{})
	rv0 := o.ResourceVersion
	for i := 1; i <= 1500; i++ {
		o.Data["i"] = strconv.Itoa(i)
		if o, err = cms.Update(ctx, o, metav1.UpdateOptions{}); err != nil {
			fmt.Println(err)
			return
		}
	}
	last, _ := strconv.Atoi(o.ResourceVersion)
	fmt.Printf("== %s: rv0 %s, last %d\n", *ds, rv0, last)
	probe := func(when string) {
		for _, r := range []int{mustAtoi(rv0), last - 1200, last - 500, last - 10} {
			_, gerr := cms.Get(ctx, "c", metav1.GetOptions{ResourceVersion: strconv.Itoa(r)})
			_, lerr := cms.List(ctx, metav1.ListOptions{ResourceVersion: strconv.Itoa(r), ResourceVersionMatch: metav1.ResourceVersionMatchExact})
			w, werr := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: strconv.Itoa(r)})
			wres := "no event in 2s"
			if werr == nil {
				select {
				case ev := <-w.ResultChan():
					if s, ok := ev.Object.(*metav1.Status); ok {
						wres = fmt.Sprintf("%s %d %s", ev.Type, s.Code, s.Message)
					} else {
						wres = string(ev.Type)
					}
				case <-time.After(2 * time.Second):
				}
				w.Stop()
			} else {
				wres = werr.Error()
			}
			fmt.Printf("%s rv %d: get(rv) %v | list exact %v | watch %s\n", when, r, short(gerr), short(lerr), wres)
		}
	}
	probe("before")
	time.Sleep(3*(*interval) + 5*time.Second)
	probe("after " + (3*(*interval) + 5*time.Second).String())
	if *ds == "kine" {
		fmt.Println(grepCompact(c.Log("kube-apiserver")))
	}
}

func grepCompact(s string) string {
	n := 0
	for i := 0; i+7 < len(s); i++ {
		if s[i:i+7] == "COMPACT" || s[i:i+7] == "compact" {
			n++
		}
	}
	return fmt.Sprintf("compact mentions in log: %d", n)
}

func mustAtoi(s string) int { n, _ := strconv.Atoi(s); return n }

func short(err error) string {
	if err == nil {
		return "ok"
	}
	s := err.Error()
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}
