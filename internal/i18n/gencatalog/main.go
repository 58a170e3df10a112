// Command gencatalog writes package i18n's catalog_gen.go from its
// catalog/*.toml: run `go generate ./internal/i18n` after editing a
// catalog (TestGeneratedCatalog fails until you do).
package main

import (
	"fmt"
	"os"

	"github.com/labhub/cnpa/internal/i18n/internal/catalogsrc"
)

func main() {
	src, err := catalogsrc.Source("catalog")
	if err == nil {
		err = os.WriteFile("catalog_gen.go", src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencatalog:", err)
		os.Exit(1)
	}
}
