package i18n

import "testing"

// BenchmarkFirstMessage is what the first message of a command costs:
// go-i18n's bundle for its language (CLDR plural rules) and the message
// handed to it (`go test -bench FirstMessage ./internal/i18n`). Parsing
// the TOML here cost 6.5 ms and 2.3 MB; all of a language's messages at
// once, 0.6 ms and 5,000 allocations; one, 0.16 ms and 1,000.
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
