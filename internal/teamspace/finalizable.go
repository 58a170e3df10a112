package teamspace

import (
	"fmt"
	"math"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Finalizable reads what finalizing a TeamSpace needs, and no more: its
// name, uid, resourceVersion, finalizers and deletionTimestamp, and
// spec.pods when it is present and a whole number. Under a weaker schema
// than the one cnpa ships (LAB.md's, or a hand-edited one) a spec can hold
// what FromUnstructured refuses (`pods: "ten"`, `cpu: 5`); such a
// TeamSpace must still be archivable and releasable, or its deletion
// blocks forever on our finalizer.
//
// problem is FromUnstructured's error, nil when the whole object decodes;
// podsKnown says whether Spec.Pods was read from the object (false: it is
// 0 because spec.pods is missing or not a whole number).
func Finalizable(u *unstructured.Unstructured) (ts *TeamSpace, podsKnown bool, problem error) {
	full, problem := FromUnstructured(u)
	if problem == nil {
		_, present, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "pods")
		return full, present, nil
	}
	ts = &TeamSpace{ObjectMeta: metav1.ObjectMeta{
		Name:              u.GetName(),
		UID:               u.GetUID(),
		ResourceVersion:   u.GetResourceVersion(),
		Generation:        u.GetGeneration(),
		Finalizers:        u.GetFinalizers(),
		DeletionTimestamp: u.GetDeletionTimestamp(),
	}}
	ts.Spec.Pods, podsKnown = wholeNumber(u.Object, "spec", "pods")
	return ts, podsKnown, problem
}

// wholeNumber reads an integer field that a weak schema may have let in
// as a JSON number or a string of digits: "3", 3 and 3.0 are 3; "ten",
// 2.5 and anything out of int64's range are not whole numbers.
func wholeNumber(obj map[string]any, fields ...string) (int64, bool) {
	v, found, err := unstructured.NestedFieldNoCopy(obj, fields...)
	if err != nil || !found {
		return 0, false
	}
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt64 && x < math.MaxInt64 {
			return int64(x), true
		}
	case string:
		var n int64
		if _, err := fmt.Sscanf(x, "%d", &n); err == nil && fmt.Sprint(n) == x {
			return n, true
		}
	}
	return 0, false
}
