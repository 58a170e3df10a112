package controller

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	ref "k8s.io/client-go/tools/reference"

	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/teamspace"
)

// syncRecorder writes each event before returning; `cnpa controller --once`
// exits right after its pass, before an asynchronous broadcaster would flush.
// TeamSpaces are cluster-scoped, so their events live in namespace
// "default", as the client-go recorder does it.
type syncRecorder struct {
	kube kube.Typed
	ctx  context.Context
}

var _ record.EventRecorder = (*syncRecorder)(nil)

func (r *syncRecorder) Event(obj runtime.Object, typ, reason, message string) {
	objRef, err := ref.GetReference(scheme(), obj)
	if err != nil {
		return // an event is a courtesy; the log line already has it
	}
	now := metav1.NewTime(time.Now())
	name := fmt.Sprintf("%v.%x", objRef.Name, now.UnixNano())
	if a, err := meta.Accessor(obj); err == nil && typ == corev1.EventTypeWarning {
		// Each --once run is a new process with no memory of what it
		// warned about: a name fixed per object, reason and generation makes
		// the second create fail with AlreadyExists, so a bad spec is
		// reported once, not on every pass.
		uid := string(a.GetUID())
		if len(uid) > 8 {
			uid = uid[:8]
		}
		name = fmt.Sprintf("%s.%s.%d.%s", objRef.Name, strings.ToLower(reason), a.GetGeneration(), uid)
	}
	e := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault},
		InvolvedObject: *objRef, Reason: reason, Message: message, Type: typ,
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
		Source: corev1.EventSource{Component: teamspace.EventSource}, ReportingController: teamspace.EventSource,
	}
	r.kube.CoreV1().Events(metav1.NamespaceDefault).Create(r.ctx, e, metav1.CreateOptions{})
}

func (r *syncRecorder) Eventf(obj runtime.Object, typ, reason, format string, args ...any) {
	r.Event(obj, typ, reason, fmt.Sprintf(format, args...))
}

func (r *syncRecorder) AnnotatedEventf(obj runtime.Object, _ map[string]string, typ, reason, format string, args ...any) {
	r.Eventf(obj, typ, reason, format, args...)
}
