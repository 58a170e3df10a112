package controller

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/labhub/cnpa/internal/kube"
)

// TestControllerConfigAsksForNoGzip: the controller's clients must not
// accept gzip, or kube-apiserver compresses every event of their watches
// (see controllerConfig). An HTTP/2 server, as kube-apiserver is, records
// what a GET through each config asks for; the plain config is the control
// that the test sees the header at all.
func TestControllerConfigAsksForNoGzip(t *testing.T) {
	var mu sync.Mutex
	var accept []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		accept = append(accept, r.Header.Get("Accept-Encoding"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}}`)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()

	plain := &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	for _, rc := range []*rest.Config{plain, controllerConfig(plain)} {
		typed, err := kube.NewTyped(rc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := typed.CoreV1().Namespaces().Get(context.Background(), "team-a", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(accept) != 2 {
		t.Fatalf("got %d requests, want 2", len(accept))
	}
	if accept[0] != "gzip" {
		t.Errorf("plain config: Accept-Encoding %q, want gzip (Go's default; else this test proves nothing)", accept[0])
	}
	if accept[1] != "" {
		t.Errorf("controllerConfig: Accept-Encoding %q, want none", accept[1])
	}
}
