package reaction

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// listWatcher is what every API the recorder follows offers: a typed
// client's List and Watch and the dynamic client's have this one shape,
// L being the API's list type.
type listWatcher[L runtime.Object] interface {
	List(context.Context, metav1.ListOptions) (L, error)
	Watch(context.Context, metav1.ListOptions) (watch.Interface, error)
}

// follow lists api's objects (opts) for the state before the action and
// the resourceVersion to watch from, then watches until ctx ends,
// reopening a watch the server closes from the last version seen. seed
// gets each listed object, on each change.
func follow[L runtime.Object](ctx context.Context, rx *Recorder, api listWatcher[L], opts metav1.ListOptions,
	seed func(runtime.Object), on func(t time.Time, typ watch.EventType, obj runtime.Object)) error {
	l, err := api.List(ctx, opts)
	if err != nil {
		return err
	}
	items, err := meta.ExtractList(l)
	if err != nil {
		return err
	}
	lm, err := meta.ListAccessor(l)
	if err != nil {
		return err
	}
	for _, o := range items {
		seed(o)
	}
	rv := lm.GetResourceVersion()
	open := func(rv string) (watch.Interface, error) {
		o := opts
		o.ResourceVersion = rv
		return api.Watch(ctx, o)
	}
	w, err := open(rv)
	if err != nil {
		return err
	}
	rx.wg.Add(1)
	go func() {
		defer rx.wg.Done()
		for {
			for ev := range w.ResultChan() {
				t := time.Now()
				if ev.Type == watch.Error || ev.Type == watch.Bookmark {
					continue
				}
				if m, err := metaOf(ev.Object); err == nil {
					rv = m.GetResourceVersion()
				}
				on(t, ev.Type, ev.Object)
			}
			w.Stop()
			if ctx.Err() != nil {
				return
			}
			// The server ended the watch (its timeout): go on from where
			// it stopped. A version too old to resume from (410) ends the
			// timeline's view of this object; the step itself goes on.
			if w, err = open(rv); err != nil {
				return
			}
		}
	}()
	return nil
}

func metaOf(o runtime.Object) (metav1.Object, error) {
	if u, ok := o.(*unstructured.Unstructured); ok {
		return u, nil
	}
	if m, ok := o.(metav1.Object); ok {
		return m, nil
	}
	return nil, fmt.Errorf("%T has no metadata", o)
}

// followChanges is follow for a watcher that compares each object with
// the one it last saw under the same key: decode picks the objects it
// records (nil for others) and names their key; changed gets the object
// before (nil when first seen) and after each change.
func followChanges[L runtime.Object, T any](ctx context.Context, rx *Recorder, api listWatcher[L], opts metav1.ListOptions,
	decode func(runtime.Object) (key string, obj *T), changed func(t time.Time, typ watch.EventType, was, now *T)) error {
	prev := map[string]*T{}
	return follow(ctx, rx, api, opts,
		func(o runtime.Object) {
			if k, v := decode(o); v != nil {
				prev[k] = v
			}
		},
		func(t time.Time, typ watch.EventType, o runtime.Object) {
			k, v := decode(o)
			if v == nil {
				return
			}
			changed(t, typ, prev[k], v)
			prev[k] = v
			if typ == watch.Deleted {
				delete(prev, k)
			}
		})
}
