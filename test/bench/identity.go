package main

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// contenderUser is the identity every contender talks to the API server
// as: a client certificate for this user in group system:masters, so it has
// the admin's rights but not the admin's name. The kube-apiserver audit log
// records only this user, which attributes requests exactly, something
// apiserver_request_total (no user label) cannot do.
const contenderUser = "cnpa-bench-contender"

// identity is the contender's client certificate and the audit setup that
// recognises it.
type identity struct {
	caFile, policyFile, auditLog string
	certPEM, keyPEM              []byte
}

// newIdentity writes a CA, the audit policy and a client certificate for
// contenderUser under dir.
func newIdentity(dir string) (*identity, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cnpa-bench-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(48 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	certDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: contenderUser, Organization: []string{"system:masters"}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(48 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	id := &identity{
		caFile:     filepath.Join(dir, "contender-ca.crt"),
		policyFile: filepath.Join(dir, "audit-policy.yaml"),
		auditLog:   filepath.Join(dir, "audit.log"),
		certPEM:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: certDER}),
		keyPEM:     pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}
	if err := os.WriteFile(id.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		return nil, err
	}
	// One line per finished request of the contender, nothing else: the
	// harness, the observer and kube-controller-manager are not audited.
	policy := `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
- level: Metadata
  users: ["` + contenderUser + `"]
- level: None
`
	if err := os.WriteFile(id.policyFile, []byte(policy), 0o600); err != nil {
		return nil, err
	}
	return id, nil
}

// apiServerFlags make kube-apiserver accept the certificate and audit its user.
func (id *identity) apiServerFlags() []string {
	return []string{"--client-ca-file=" + id.caFile, "--audit-policy-file=" + id.policyFile,
		"--audit-log-path=" + id.auditLog, "--audit-log-format=json"}
}

// kubeconfig renders a kubeconfig for the contender.
func (id *identity) kubeconfig(server string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: kubebox
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: %s
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: contender
  context:
    cluster: kubebox
    user: %s
current-context: contender
`, server, contenderUser, base64.StdEncoding.EncodeToString(id.certPEM), base64.StdEncoding.EncodeToString(id.keyPEM), contenderUser)
}

// auditMark is the audit log's size now: the start or end of a window.
func (id *identity) auditMark() (int64, error) {
	fi, err := os.Stat(id.auditLog)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// auditCounts counts the contender's requests recorded between two marks,
// by "VERB resource[/subresource]" (or "VERB /path"), in the vocabulary of
// apiserver_request_total (POST for create, PUT for update; a server-side
// apply is a PATCH here).
func (id *identity) auditCounts(from, to int64) (requestCounts, error) {
	f, err := os.Open(id.auditLog)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil, err
	}
	out := requestCounts{}
	s := bufio.NewScanner(io.LimitReader(f, to-from))
	s.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for s.Scan() {
		line := s.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ev struct {
			Stage      string `json:"stage"`
			Verb       string `json:"verb"`
			RequestURI string `json:"requestURI"`
			User       struct {
				Username string `json:"username"`
			} `json:"user"`
			ObjectRef *struct {
				Resource    string `json:"resource"`
				Subresource string `json:"subresource"`
			} `json:"objectRef"`
		}
		if err := json.Unmarshal(line, &ev); err != nil {
			// Only a line cut by a mark taken mid-write can be malformed;
			// it is counted in the window where it ends whole, or not at all.
			continue
		}
		if ev.Stage != "ResponseComplete" || ev.User.Username != contenderUser {
			continue
		}
		verb := strings.ToUpper(ev.Verb)
		switch verb {
		case "CREATE":
			verb = "POST"
		case "UPDATE":
			verb = "PUT"
		}
		key := verb + " "
		switch {
		case ev.ObjectRef == nil || ev.ObjectRef.Resource == "":
			path, _, _ := strings.Cut(ev.RequestURI, "?")
			key += path
		case ev.ObjectRef.Subresource != "":
			key += ev.ObjectRef.Resource + "/" + ev.ObjectRef.Subresource
		default:
			key += ev.ObjectRef.Resource
		}
		out[key]++
	}
	return out, s.Err()
}
