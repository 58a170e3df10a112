package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	ref "k8s.io/client-go/tools/reference"
)

// syncRecorder writes each event before returning; `cnpa controller --once`
// exits right after its pass, before an asynchronous broadcaster would flush.
// TeamSpaces are cluster-scoped, so their events live in namespace
// "default", as the client-go recorder does it.
type syncRecorder struct {
	kube kubernetes.Interface
	ctx  context.Context
}

var _ record.EventRecorder = (*syncRecorder)(nil)

func (r *syncRecorder) Event(obj runtime.Object, typ, reason, message string) {
	objRef, err := ref.GetReference(scheme(), obj)
	if err != nil {
		return // an event is a courtesy; the log line already has it
	}
	now := metav1.NewTime(time.Now())
	e := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("%v.%x", objRef.Name, now.UnixNano()), Namespace: metav1.NamespaceDefault},
		InvolvedObject: *objRef, Reason: reason, Message: message, Type: typ,
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
		Source: corev1.EventSource{Component: "cnpa-controller"},
	}
	r.kube.CoreV1().Events(metav1.NamespaceDefault).Create(r.ctx, e, metav1.CreateOptions{})
}

func (r *syncRecorder) Eventf(obj runtime.Object, typ, reason, format string, args ...any) {
	r.Event(obj, typ, reason, fmt.Sprintf(format, args...))
}

func (r *syncRecorder) AnnotatedEventf(obj runtime.Object, _ map[string]string, typ, reason, format string, args ...any) {
	r.Eventf(obj, typ, reason, format, args...)
}
