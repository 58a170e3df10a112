package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// requestCounts is kube-apiserver's apiserver_request_total summed by
// "VERB resource[/subresource]". The metric has no user-agent label, so the
// harness attributes requests by difference: the same window with the
// contender frozen is subtracted.
type requestCounts map[string]float64

// scrapeRequests reads apiserver_request_total from <server>/metrics with the
// admin bearer token.
func scrapeRequests(ctx context.Context, server, token string) (requestCounts, error) {
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, server+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	// The text exposition format, which parseRequestTotal reads.
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape %s/metrics: %w", server, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("scrape %s/metrics: HTTP %d: %s", server, resp.StatusCode, b)
	}
	return parseRequestTotal(resp.Body)
}

// parseRequestTotal sums apiserver_request_total samples of the Prometheus
// text format by verb and resource. It reads only that metric, so a small
// parser does instead of a new dependency.
func parseRequestTotal(r io.Reader) (requestCounts, error) {
	const name = "apiserver_request_total{"
	out := requestCounts{}
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for s.Scan() {
		line := s.Text()
		if !strings.HasPrefix(line, name) {
			continue
		}
		labels, rest, err := parseLabels(line[len(name):])
		if err != nil {
			return nil, fmt.Errorf("parse %q: %w", line, err)
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return nil, fmt.Errorf("parse %q: no value", line)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil, fmt.Errorf("parse %q: %w", line, err)
		}
		// Non-resource requests (discovery, /openapi) carry their path in
		// the subresource label.
		key := labels["verb"] + " " + labels["resource"]
		switch sub := labels["subresource"]; {
		case labels["resource"] == "":
			key += "/" + strings.TrimPrefix(sub, "/")
		case sub != "":
			key += "/" + sub
		}
		out[key] += v
	}
	return out, s.Err()
}

// parseLabels reads `k="v",k2="v2"}` and returns the labels and what
// follows the closing brace.
func parseLabels(s string) (map[string]string, string, error) {
	labels := map[string]string{}
	for {
		s = strings.TrimLeft(s, ", ")
		if strings.HasPrefix(s, "}") {
			return labels, s[1:], nil
		}
		eq := strings.IndexByte(s, '=')
		if eq < 0 || len(s) < eq+2 || s[eq+1] != '"' {
			return nil, "", fmt.Errorf("malformed labels at %q", s)
		}
		key := s[:eq]
		s = s[eq+2:]
		var v strings.Builder
		i := 0
		for ; i < len(s) && s[i] != '"'; i++ {
			if s[i] == '\\' && i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					v.WriteByte('\n')
				default:
					v.WriteByte(s[i])
				}
				continue
			}
			v.WriteByte(s[i])
		}
		if i >= len(s) {
			return nil, "", fmt.Errorf("unterminated label value for %s", key)
		}
		labels[key] = v.String()
		s = s[i+1:]
	}
}

// sub is after minus before.
func (after requestCounts) sub(before requestCounts) requestCounts {
	d := requestCounts{}
	for k, v := range after {
		if x := v - before[k]; x != 0 {
			d[k] = x
		}
	}
	return d
}

// byVerb sums counts by verb.
func (c requestCounts) byVerb() map[string]float64 {
	out := map[string]float64{}
	for k, v := range c {
		verb, _, _ := strings.Cut(k, " ")
		out[verb] += v
	}
	return out
}

// excess is what the contender window had beyond the baseline window (nil:
// nothing), scaled to one minute, by key.
func excess(contender, baseline map[string]float64, window time.Duration) map[string]float64 {
	out := map[string]float64{}
	scale := float64(time.Minute) / float64(window)
	for k, v := range contender {
		out[k] = (v - baseline[k]) * scale
	}
	for k, v := range baseline {
		if _, ok := contender[k]; !ok {
			out[k] = -v * scale
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
