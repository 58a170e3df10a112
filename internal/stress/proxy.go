// Package stress puts a learner's controller (or cnpa's engines) through
// the faults a real cluster gives: a kill -9 mid-pass, 409 Conflicts, 500s
// and timeouts, stale reads, dropped watches and connections, latency and a
// burst of changes. A real HTTP reverse proxy on loopback stands between the
// service and the API server (the service's kubeconfig points at it, through
// a drop-in of cnpa-op.service), injects one fault at a time, and counts what
// went through it; after each fault the cluster is judged as `cnpa check`
// judges it.
//
// The proxy holds the service's credentials, so it lets in only its own
// client: it serves TLS with a certificate made for this run (its CA is
// in the proxy's kubeconfig, so a process that takes the port after the
// run cannot pass for it), and asks every request for a bearer token made
// for this run. Both live in that kubeconfig alone, mode 0600 in a 0700
// directory of the service's user (run.go): no other local user reads it.
package stress

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"
)

// Mode is the fault the proxy injects now; the zero Mode passes every
// request through unchanged. Shares are of the requests a fault applies to
// (requests on objects: TeamSpaces, namespaces, quotas; discovery is
// spared, as a cache in front of it would spare it).
type Mode struct {
	// Conflict answers this share of writes 409 Conflict, unsent.
	Conflict float64
	// Error answers this share of requests 500, unsent.
	Error float64
	// Timeout forwards this share of requests, then withholds the answer
	// for TimeoutHold and closes the connection: a write that landed but
	// whose answer was lost.
	Timeout float64
	// Stale answers this share of GETs and lists with the first answer
	// recorded for the same URL since the mode began: an older
	// resourceVersion, as a lagging cache or apiserver serves it.
	Stale float64
	// Drop closes this share of connections before forwarding, and every
	// watch stream open when the mode begins or opened during it after
	// DropAfter.
	Drop float64
	// Latency is added before every request is forwarded.
	Latency time.Duration
	// Blackhole holds every request (not a watch) unanswered, with its
	// connection open, until Release: a server that accepted the
	// connection and never answers.
	Blackhole bool
	// KillAt, when > 0, calls the proxy's Kill after the KillAt-th write
	// since the mode began has landed and before its answer goes back.
	KillAt int
	// Intercept, when set, sees every request of the proxy's client first
	// and answers it itself when it returns true: a fault of its own file
	// (fault_<name>.go) that is more than a share of answers.
	Intercept func(w http.ResponseWriter, r *http.Request) bool
}

// TimeoutHold is how long a timed-out request is held before its
// connection is closed (a variable for the tests).
var TimeoutHold = 2 * time.Second

// DropAfter is how long a watch lives under the Drop mode (a variable for
// the tests).
var DropAfter = time.Second

// Counts are what went through the proxy.
type Counts struct {
	Requests, Writes, Lists int64
	// Injected counts the faults injected, by kind.
	Injected map[string]int64
}

// Proxy is the reverse proxy. Its zero value is not usable: NewProxy.
type Proxy struct {
	target    *url.URL
	transport http.RoundTripper
	stream    *httputil.ReverseProxy
	token     string
	ca        []byte // PEM of the certificate the proxy serves
	srv       *http.Server
	ln        net.Listener

	mu       sync.Mutex
	mode     Mode
	modeGen  int
	rng      *mrand.Rand
	recorded map[string][]byte
	writes   int // since the mode began
	injected map[string]int64
	watches  map[*context.CancelFunc]struct{}
	held     chan struct{} // closed by Release: blackholed requests hang up
	onAnswer func(r *http.Request, code int, body []byte)

	requests, allWrites, lists atomic.Int64

	// Kill is called (once per mode) at Mode.KillAt; set before Start.
	Kill func()
}

// NewProxy builds a proxy forwarding to cfg's server with cfg's
// credentials (client-go's own transport: token, client certificate, CA).
func NewProxy(cfg *rest.Config) (*Proxy, error) {
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, err
	}
	host := cfg.Host
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	target, err := url.Parse(host)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	p := &Proxy{target: target, transport: rt, token: hex.EncodeToString(b),
		rng: mrand.New(mrand.NewPCG(1, 2)), recorded: map[string][]byte{},
		injected: map[string]int64{}, watches: map[*context.CancelFunc]struct{}{},
		held: make(chan struct{})}
	p.stream = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Header.Del("Authorization")
		},
		Transport:     rt,
		FlushInterval: -1, // a watch is a stream: every event at once
		ErrorLog:      nil,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			// A watch we dropped, or the API server gone: the client sees
			// its connection end, as it would without a proxy.
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	return p, nil
}

// Token is the bearer token every request must carry: only the proxy's
// kubeconfig holds it. It is a secret: never log it.
func (p *Proxy) Token() string { return p.token }

// CA is the PEM certificate the proxy serves (self-signed, for
// 127.0.0.1, made by Start): its client trusts it and nothing else.
func (p *Proxy) CA() []byte { return p.ca }

// Start listens on a free loopback port and serves TLS until Close, with
// a certificate made now whose key never leaves this process. The server
// URL it returns holds no secret.
func (p *Proxy) Start() (server string, err error) {
	cert, caPEM, err := selfSigned()
	if err != nil {
		return "", err
	}
	p.ca = caPEM
	p.ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		// HTTP/1.1 only: a dropped connection (hangUp) is a closed
		// connection, as the faults mean it, not a reset HTTP/2 stream.
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){}}
	go p.srv.ServeTLS(p.ln, "", "")
	return "https://" + p.ln.Addr().String(), nil
}

// selfSigned makes a certificate for 127.0.0.1, valid for a day, and its
// PEM.
func selfSigned() (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: "cnpa-stress"},
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// Release hangs up every request a blackhole holds (they never get an
// answer: their connections close).
func (p *Proxy) Release() {
	p.mu.Lock()
	close(p.held)
	p.held = make(chan struct{})
	p.mu.Unlock()
}

// Close stops serving and ends every open watch.
func (p *Proxy) Close() error {
	p.SetMode(Mode{})
	p.Release()
	if p.srv == nil {
		return nil
	}
	return p.srv.Close()
}

// SetMode starts injecting m (the zero Mode: none). Answers recorded for
// stale reads and the write count of a kill start afresh; watches open now
// are dropped when m drops connections.
func (p *Proxy) SetMode(m Mode) {
	p.mu.Lock()
	p.mode, p.modeGen = m, p.modeGen+1
	p.recorded, p.writes = map[string][]byte{}, 0
	var cancels []context.CancelFunc
	if m.Drop > 0 {
		for c := range p.watches {
			cancels = append(cancels, *c)
		}
	}
	p.mu.Unlock()
	for _, c := range cancels {
		c()
	}
}

// OnAnswer sets a function called with each write's answer once the API
// server gave it and before the writer gets it (or dies: a kill); nil for
// none. A write the proxy answered itself (a conflict, an error) never
// landed and is not seen.
func (p *Proxy) OnAnswer(f func(r *http.Request, code int, body []byte)) {
	p.mu.Lock()
	p.onAnswer = f
	p.mu.Unlock()
}

// Counts returns what went through the proxy so far.
func (p *Proxy) Counts() Counts {
	p.mu.Lock()
	inj := make(map[string]int64, len(p.injected))
	for k, v := range p.injected {
		inj[k] = v
	}
	p.mu.Unlock()
	return Counts{Requests: p.requests.Load(), Writes: p.allWrites.Load(), Lists: p.lists.Load(), Injected: inj}
}

func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// onObjects tells whether a path names the lab's objects, the requests
// faults apply to.
func onObjects(path string) bool {
	return strings.Contains(path, "/teamspaces") || strings.Contains(path, "/namespaces") ||
		strings.Contains(path, "/resourcequotas")
}

// isTeamSpaceList: a list (not a watch) of every TeamSpace, what a
// polling pass starts with.
func isTeamSpaceList(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/teamspaces") &&
		r.URL.Query().Get("watch") != "true" && r.URL.Query().Get("watch") != "1"
}

func isWatch(r *http.Request) bool {
	w := r.URL.Query().Get("watch")
	return w == "true" || w == "1"
}

// decision is what the proxy does with one request.
type decision struct {
	kind  string // "" forwards as is
	stale []byte
	held  chan struct{} // a blackhole's: closed by Release
	kill  bool
}

func (p *Proxy) decide(r *http.Request) (decision, Mode) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.mode
	if !onObjects(r.URL.Path) {
		return decision{}, m
	}
	roll := func(share float64) bool { return share > 0 && p.rng.Float64() < share }
	write := isWrite(r.Method)
	var d decision
	switch {
	case m.Blackhole && !isWatch(r):
		d.kind, d.held = "blackhole", p.held
	case m.Drop > 0 && !isWatch(r) && roll(m.Drop):
		d.kind = "drop"
	case write && roll(m.Conflict):
		d.kind = "conflict"
	case roll(m.Error):
		d.kind = "error"
	case !isWatch(r) && roll(m.Timeout):
		d.kind = "timeout"
	case r.Method == http.MethodGet && !isWatch(r) && m.Stale > 0:
		if body, ok := p.recorded[staleKey(r)]; ok && roll(m.Stale) {
			d.kind, d.stale = "stale", body
		}
	}
	if write && (d.kind == "" || d.kind == "timeout") {
		p.writes++
		if m.KillAt > 0 && p.writes == m.KillAt {
			d.kill = true
		}
	}
	if d.kind != "" {
		p.injected[d.kind]++
	}
	if d.kill {
		p.injected["kill"]++
	}
	return d, m
}

// ServeHTTP forwards r, injecting the fault of the current mode.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Only the holder of the run's token (compared in constant time);
	// the Authorization header goes no further (forward replaces it).
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(p.token)) != 1 {
		status(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
		return
	}
	p.requests.Add(1)
	if isTeamSpaceList(r) {
		p.lists.Add(1)
	}
	p.mu.Lock()
	intercept := p.mode.Intercept
	p.mu.Unlock()
	if intercept != nil && intercept(w, r) {
		return
	}
	d, m := p.decide(r)
	if m.Latency > 0 {
		select {
		case <-time.After(m.Latency):
		case <-r.Context().Done():
			return
		}
	}
	switch d.kind {
	case "blackhole":
		select {
		case <-d.held:
		case <-r.Context().Done():
		}
		hangUp(w)
		return
	case "drop":
		hangUp(w)
		return
	case "conflict":
		status(w, http.StatusConflict, "Conflict",
			"Operation cannot be fulfilled: the object has been modified; please apply your changes to the latest version and try again")
		return
	case "error":
		status(w, http.StatusInternalServerError, "InternalError", "Internal error occurred: injected by cnpa stress")
		return
	case "stale":
		w.Header().Set("Content-Type", "application/json")
		w.Write(d.stale)
		return
	}
	if isWrite(r.Method) {
		p.allWrites.Add(1)
	}
	if isWatch(r) {
		p.serveWatch(w, r, m)
		return
	}
	p.forward(w, r, d)
}

// serveWatch streams a watch, ending it when a Drop mode says so.
func (p *Proxy) serveWatch(w http.ResponseWriter, r *http.Request, m Mode) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	p.mu.Lock()
	key := &cancel
	p.watches[key] = struct{}{}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.watches, key)
		p.mu.Unlock()
	}()
	if m.Drop > 0 {
		t := time.AfterFunc(DropAfter, func() {
			p.mu.Lock()
			p.injected["drop"]++
			p.mu.Unlock()
			cancel()
		})
		defer t.Stop()
	}
	p.stream.ServeHTTP(w, r.WithContext(ctx))
}

// forward sends one request on, reads the whole answer, records it for
// stale reads, and hands it back (or not: a timeout, a kill).
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, d decision) {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host = p.target.Scheme, p.target.Host
	out.Host = p.target.Host
	out.Header.Del("Authorization")
	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		hangUp(w)
		return
	}
	if r.Method == http.MethodGet && resp.StatusCode == http.StatusOK {
		p.mu.Lock()
		if _, ok := p.recorded[staleKey(r)]; !ok {
			p.recorded[staleKey(r)] = body
		}
		p.mu.Unlock()
	}
	if isWrite(r.Method) {
		p.mu.Lock()
		f := p.onAnswer
		p.mu.Unlock()
		if f != nil {
			f(r, resp.StatusCode, body)
		}
	}
	if d.kill && p.Kill != nil {
		// The write landed; its writer dies before it hears so.
		p.Kill()
		hangUp(w)
		return
	}
	if d.kind == "timeout" {
		select {
		case <-time.After(TimeoutHold):
		case <-r.Context().Done():
		}
		hangUp(w)
		return
	}
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(body)
}

// staleKey is what a read asks for, apart from how fresh it wants it: an
// informer lists again with the resourceVersion it had, and must get the
// older answer all the same.
func staleKey(r *http.Request) string {
	q := r.URL.Query()
	for _, k := range []string{"resourceVersion", "resourceVersionMatch", "timeout", "timeoutSeconds"} {
		q.Del(k)
	}
	return r.URL.Path + "?" + q.Encode()
}

// inject counts one fault of kind injected by an Intercept.
func (p *Proxy) inject(kind string) {
	p.mu.Lock()
	p.injected[kind]++
	p.mu.Unlock()
}

// DropWatches ends every open watch now: an informer then lists again,
// which a Stale mode may answer with an older list.
func (p *Proxy) DropWatches() {
	p.mu.Lock()
	var cancels []context.CancelFunc
	for c := range p.watches {
		cancels = append(cancels, *c)
	}
	p.injected["drop"] += int64(len(cancels))
	p.mu.Unlock()
	for _, c := range cancels {
		c()
	}
}

// hangUp closes the client's connection without an answer.
func hangUp(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			c.Close()
			return
		}
	}
	// HTTP/2 or a recorder: no connection to close; abort the handler.
	panic(http.ErrAbortHandler)
}

// status writes a metav1.Status as the API server writes one.
func status(w http.ResponseWriter, code int, reason, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reason, "code": code})
}
