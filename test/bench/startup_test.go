package main

import (
	"bytes"
	"strings"
	"testing"
)

// The start-up table: medians, the ratio of CPU, and a ✗ past 1.1×.
func TestStartupTable(t *testing.T) {
	if got := median([]float64{5, 1, 3}); got != 3 {
		t.Errorf("median of 5, 1, 3: %v", got)
	}
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median of 4, 1, 3, 2: %v", got)
	}
	var b bytes.Buffer
	writeStartupMarkdown(&b, &StartupResult{Before: "dbef3eb", Runs: 40, Rows: []StartupRow{
		{Command: "cnpa version", Lang: "ja_JP.UTF-8", BeforeWallMS: 90, BeforeCPUMS: 60, AfterWallMS: 95, AfterCPUMS: 61, Ratio: 61.0 / 60},
		{Command: "cnpa explain 5", Lang: "ja_JP.UTF-8", BeforeWallMS: 90, BeforeCPUMS: 60, AfterWallMS: 99, AfterCPUMS: 70, Ratio: 70.0 / 60},
	}})
	for _, want := range []string{"| `cnpa version` | ja_JP.UTF-8 | 90.0 ms, 60.0 ms | 95.0 ms, 61.0 ms | 1.02× |", "| 1.17× ✗ |", "(dbef3eb)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, b.String())
		}
	}
}
