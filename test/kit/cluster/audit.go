package cluster

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// auditPolicy records every write request, once, when its answer is
// complete: who (user, user agent), what (verb, resource, name) and the
// answer's code. Reads are not audited: a test asks "did X write", and the
// watches and lists of every client would only grow the file. The users
// of allOf (Options.AuditAllOf) are the exception: every request of
// theirs, a watch as soon as it starts (ResponseStarted) and again when it
// ends; anything else only when complete.
func auditPolicy(allOf []string) string {
	p := "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n"
	if len(allOf) > 0 {
		users, _ := json.Marshal(allOf)
		p += "- level: Metadata\n  users: " + string(users) + "\n"
	}
	return p + `- level: Metadata
  verbs: [create, update, patch, delete, deletecollection]
  omitStages: [ResponseStarted]
- level: None
`
}

// AuditLog is the path of kube-apiserver's audit log (Options.Audit).
func (c *Cluster) AuditLog() string { return filepath.Join(c.Dir, "audit.log") }

// auditFlags write the policy and return kube-apiserver's flags for it. The
// log backend in blocking mode writes each event before the request's
// answer is sent, so a request a client has seen answered is in the file.
func (c *Cluster) auditFlags(allOf []string) ([]string, error) {
	policy := filepath.Join(c.Dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy(allOf)), 0o600); err != nil {
		return nil, err
	}
	return []string{"--audit-policy-file=" + policy, "--audit-log-path=" + c.AuditLog(),
		"--audit-log-format=json", "--audit-log-mode=blocking"}, nil
}

// AuditEvent is one write request in the audit log.
type AuditEvent struct {
	Verb      string    `json:"verb"`
	Stage     string    `json:"stage"`
	UserAgent string    `json:"userAgent"`
	Received  time.Time `json:"requestReceivedTimestamp"`
	User      struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef struct {
		APIGroup    string `json:"apiGroup"`
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

func (e AuditEvent) String() string {
	res := e.ObjectRef.Resource
	if e.ObjectRef.Subresource != "" {
		res += "/" + e.ObjectRef.Subresource
	}
	name := e.ObjectRef.Name
	if e.ObjectRef.Namespace != "" {
		name = e.ObjectRef.Namespace + "/" + name
	}
	return fmt.Sprintf("%s %s %s %s by %s → %d", e.Received.Format("15:04:05.000"), e.Verb, res, name, e.User.Username, e.ResponseStatus.Code)
}

// AuditMark is the audit log's size now: the start of a window for
// AuditSince.
func (c *Cluster) AuditMark() (int64, error) {
	fi, err := os.Stat(c.AuditLog())
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// AuditSince returns the write requests recorded after mark (from
// AuditMark; 0 for all), those of user only unless user is "".
func (c *Cluster) AuditSince(mark int64, user string) ([]AuditEvent, error) {
	f, err := os.Open(c.AuditLog())
	if err != nil {
		return nil, fmt.Errorf("audit log (was the cluster started with Options.Audit?): %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(mark, io.SeekStart); err != nil {
		return nil, err
	}
	var out []AuditEvent
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if line == "" {
			continue
		}
		var ev AuditEvent
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			// Only the last line can be cut, by a write in progress; a
			// blocking backend finishes it before the request's answer.
			continue
		}
		if user == "" || ev.User.Username == user {
			out = append(out, ev)
		}
	}
	return out, s.Err()
}
