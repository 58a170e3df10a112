package kube

import (
	"io"
	"net/http"

	"k8s.io/client-go/rest"

	"github.com/labhub/cnpa/internal/i18n"
)

// LimitResponses makes every response body rc's clients read fail past
// max bytes, with an error naming who (the learner's server) and the
// limit: what a server sends is read through the limit, never whole, so
// the reader's memory stays flat whatever it sends. The limit is on the
// body as decoded (after gzip).
func LimitResponses(rc *rest.Config, who string, max int64) {
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &limitRT{next: rt, who: who, max: max} })
}

type limitRT struct {
	next http.RoundTripper
	who  string
	max  int64
}

func (l *limitRT) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	if resp.ContentLength > l.max {
		resp.Body.Close()
		return nil, l.tooLarge(req)
	}
	resp.Body = &limitBody{rc: resp.Body, left: l.max, err: l.tooLarge(req)}
	return resp, nil
}

func (l *limitRT) tooLarge(req *http.Request) error {
	return &TooLargeError{Who: l.who, Path: req.URL.Path, Max: l.max}
}

// TooLargeError is a response larger than the limit.
type TooLargeError struct {
	Who, Path string
	Max       int64
}

func (e *TooLargeError) Error() string {
	return i18n.T("kube.too_large", i18n.Args{"Who": e.Who, "Max": Bytes(e.Max), "Path": e.Path})
}

// limitBody reads at most left bytes of rc, then fails with err.
type limitBody struct {
	rc   io.ReadCloser
	left int64
	err  error
}

func (b *limitBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the limit from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, b.err
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitBody) Close() error { return b.rc.Close() }
