package kube

import (
	"fmt"
	"net/http"
	"os"
	"sync"

	"k8s.io/client-go/rest"
)

// RequestLogEnv, when set to any value in a cnpa process's environment,
// makes every API request it sends print one line on stderr: the
// method, the path and the response code, prefixed with RequestLogPrefix.
// `cnpa step 3` sets it for the Go engine's pass, so that the learner sees
// what one pass of `cnpa controller --once` asked of the API server
// (kubectl's -v=6 shows the same for kubectl).
const RequestLogEnv = "CNPA_LOG_REQUESTS"

// RequestLogPrefix starts every request line, so that it can be told
// apart from the rest of the output.
const RequestLogPrefix = "api: "

// logRequests wraps rc's transport with the request log when
// RequestLogEnv is set.
func logRequests(rc *rest.Config) {
	if os.Getenv(RequestLogEnv) == "" {
		return
	}
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &requestLog{next: rt} })
}

type requestLog struct {
	next http.RoundTripper
	mu   sync.Mutex // one whole line at a time from parallel workers
}

func (l *requestLog) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(req)
	code := "error"
	if err == nil {
		code = fmt.Sprint(resp.StatusCode)
	}
	path := req.URL.Path
	if req.URL.RawQuery != "" {
		path += "?" + req.URL.RawQuery
	}
	l.mu.Lock()
	fmt.Fprintf(os.Stderr, "%s%s %s %s\n", RequestLogPrefix, req.Method, path, code)
	l.mu.Unlock()
	return resp, err
}
