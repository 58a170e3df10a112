package stress

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Eventually stable reconciliation (Anvil, OSDI'24): after every fault
// the controller must converge, then stay converged: no write that
// changes a lab object, no spec or status going back and forth, for
// judge.StressStablePasses whole passes of its loop. One quiet pass
// (what `quiet` judged before) lets through a loop that rewrites a value
// on every other pass, or two writers taking turns.

// LoopInterval is the lab's pause between two passes (step 4: "every 3
// seconds"). A controller that watches instead of listing is given
// judge.StressStablePasses of it.
const LoopInterval = 3 * time.Second

// version is what a lab object is now: its resourceVersion and its
// content (fingerprint), which a write that changes nothing leaves as
// they were.
type version struct{ rv, fp string }

// fingerprint is the part of a lab object its controller owns or reads:
// metadata's labels, annotations, ownerReferences, finalizers and
// deletionTimestamp, its spec, and a TeamSpace's status. Not a quota's
// status (the quota controller's) nor a namespace's (its phase), nor
// managedFields: a write that changes none of these changes nothing the
// lab asks of the controller.
func fingerprint(obj map[string]any, withStatus bool) string {
	meta, _ := obj["metadata"].(map[string]any)
	part := map[string]any{"spec": obj["spec"]}
	for _, k := range []string{"labels", "annotations", "ownerReferences", "finalizers", "deletionTimestamp"} {
		part[k] = meta[k]
	}
	if withStatus {
		part["status"] = obj["status"]
	}
	b, _ := json.Marshal(part) // maps marshal with sorted keys: the same content, the same string
	return string(b)
}

// versionOf is the version of an object as an answer or a list holds it.
func versionOf(obj map[string]any) (rv, fp string) {
	meta, _ := obj["metadata"].(map[string]any)
	rv, _ = meta["resourceVersion"].(string)
	kind, _ := obj["kind"].(string)
	return rv, fingerprint(obj, kind == teamspace.Kind)
}

// versions are the versions of the TeamSpaces, the team-* namespaces and
// their team-quota, read from the API server itself (not through the
// proxy), by the paths shortPath gives their writes.
func (r *runner) versions(ctx context.Context) map[string]version {
	vs := map[string]version{}
	dyn := r.env.Clients.Dynamic
	add := func(gvr schema.GroupVersionResource, opts metav1.ListOptions, key func(ns, name string) string, withStatus bool) {
		list, err := dyn.Resource(gvr).List(ctx, opts)
		if err != nil {
			return // nothing to compare with: every write counts, as before any read
		}
		for _, u := range list.Items {
			if k := key(u.GetNamespace(), u.GetName()); k != "" {
				vs[k] = version{rv: u.GetResourceVersion(), fp: fingerprint(u.Object, withStatus)}
			}
		}
	}
	add(teamspace.GVR, metav1.ListOptions{}, func(_, n string) string { return "teamspaces/" + n }, true)
	add(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, metav1.ListOptions{}, func(_, n string) string {
		if !strings.HasPrefix(n, teamspace.NamespacePrefix) {
			return ""
		}
		return "namespaces/" + n
	}, false)
	add(schema.GroupVersionResource{Version: "v1", Resource: "resourcequotas"},
		metav1.ListOptions{FieldSelector: "metadata.name=" + teamspace.QuotaName},
		func(ns, n string) string { return "namespaces/" + ns + "/resourcequotas/" + n }, false)
	return vs
}

// stable watches the converged cluster until judge.StressStablePasses
// whole passes of the controller's loop (from one list of TeamSpaces to
// the one StressStablePasses lists later) or, for a controller that
// watches rather than lists (a watch open through the proxy), that many
// LoopIntervals, go by with no write through the proxy that changed a lab
// object. A change starts the count again; a change after the bound, or
// no quiet stretch by twice the bound (a pass of more than 20 s), fails
// it, saying which writes kept coming.
// It notes in v when the last quiet stretch began (from ended, the
// fault's end) and how long it was watched. A write the API server found
// to change nothing (a server-side apply of what is there, a PUT of the
// object as read) answers with the resourceVersion or the content the
// object had: the lab text's "writes nothing", as step 3 judges it. A
// write the server refused changed nothing either (the poison's quota,
// asked for again on every pass).
func (r *runner) stable(ctx context.Context, v *judge.StressFault, ended time.Time) *judge.StressFinding {
	passes := judge.StressStablePasses
	began := time.Now()
	before := r.versions(ctx)
	r.mu.Lock()
	from := len(r.writes)
	r.mu.Unlock()
	start, lists := time.Now(), r.proxy.Counts().Lists
	var changes []string
	for {
		r.mu.Lock()
		window := slices.Clone(r.writes[from:])
		from = len(r.writes)
		r.mu.Unlock()
		changed := false
		for _, w := range window {
			if !labObject(w.object) || w.code >= 300 {
				continue // an Event, a Lease; or refused: nothing changed
			}
			b, known := before[w.object]
			before[w.object] = version{rv: w.rv, fp: w.fp}
			if known && w.rv != "" && (b.rv == w.rv || b.fp == w.fp) {
				continue // nothing changed
			}
			changes = append(changes, w.what)
			changed = true
			start = w.at
		}
		if changed {
			lists = r.proxy.Counts().Lists
		}
		n, watched := r.proxy.Counts().Lists-lists, time.Since(start)
		// A loop that lists starts each pass with a list: passes+1 lists
		// bracket passes whole passes. One that watches lists once at
		// most (a relist after a dropped watch).
		if n >= int64(passes)+1 || (n <= 1 && r.proxy.watching() && watched >= time.Duration(passes)*LoopInterval) {
			t := start.Sub(ended).Seconds()
			if t < 0 {
				t = 0
			}
			v.TimeToStable, v.StableFor = &t, watched.Seconds()
			return nil
		}
		if (changed && time.Since(began) > r.opts.Bound) || time.Since(began) > 2*r.opts.Bound || ctx.Err() != nil {
			return &judge.StressFinding{Property: judge.StressStable,
				Found: i18n.T("stress.found.unstable", i18n.Args{"Seconds": int(time.Since(began).Seconds()),
					"Writes": i18n.List(tally(changes, 4))}),
				Expected: i18n.T("stress.expected.stable", i18n.Args{"Passes": passes})}
		}
		sleep(ctx, 200*time.Millisecond)
	}
}

// tally counts repeated writes, in the order first seen, and keeps the
// first max of them: "PATCH teamspaces/x/status ×5".
func tally(writes []string, max int) []string {
	count := map[string]int{}
	var order []string
	for _, w := range writes {
		if count[w] == 0 {
			order = append(order, w)
		}
		count[w]++
	}
	var out []string
	for i, w := range order {
		if i == max {
			out = append(out, "…")
			break
		}
		if count[w] > 1 {
			w = fmt.Sprintf("%s ×%d", w, count[w])
		}
		out = append(out, w)
	}
	return out
}

// watching tells whether a watch is open through the proxy: the
// controller is told of changes instead of listing on every pass.
func (p *Proxy) watching() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.watches) > 0
}
