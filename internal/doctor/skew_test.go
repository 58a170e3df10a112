package doctor

import (
	"strings"
	"testing"
)

// TestSkew: kubectl's skew policy supports a client within one minor
// version of the server, older or newer. That doctor reads both versions
// from a real kubectl and a real API server is tested in test/cli.
func TestSkew(t *testing.T) {
	tests := []struct {
		client, server string
		want           string // "" for no warning, else a word of it
	}{
		{"v1.37.2", "v1.37.2", ""},
		{"v1.36.0", "v1.37.2", ""},
		{"v1.38.1", "v1.37.2", ""},
		{"v1.35.9", "v1.37.2", "2 minor versions older"},
		{"v1.32.4", "v1.37.2", "5 minor versions older than server v1.37.2"},
		{"v1.39.0", "v1.37.2", "2 minor versions newer"},
		{"v2.0.0", "v1.37.2", "major"},
		{"v1.32.4", "", ""},
		{"v1.32.4", "v0.0.0-master+$Format:%H$", "major"},
	}
	for _, tt := range tests {
		got := Skew(tt.client, tt.server)
		if (got == "") != (tt.want == "") || !strings.Contains(got, tt.want) {
			t.Errorf("Skew(%s, %s): got %q, want %q", tt.client, tt.server, got, tt.want)
		}
		if got != "" && !strings.Contains(got, "v1.36 to v1.38") && tt.server == "v1.37.2" {
			t.Errorf("Skew(%s, %s): got %q, want the supported range v1.36 to v1.38", tt.client, tt.server, got)
		}
	}
}
