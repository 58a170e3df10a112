package i18n

import "testing"

// BenchmarkFirstMessage is what the first message of a command costs:
// reading and parsing its language's catalog (`go test -bench
// FirstMessage ./internal/i18n`).
func BenchmarkFirstMessage(b *testing.B) {
	for _, l := range Langs {
		b.Run(string(l), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				forget()
				l.T("explain.why")
			}
		})
	}
}
