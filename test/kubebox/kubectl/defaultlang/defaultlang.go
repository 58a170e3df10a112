// Package defaultlang spares the tests' kubectl the loading of its
// "default" translations, which are the English texts mapped to
// themselves (every msgstr of kubectl's default/LC_MESSAGES/k8s.po equals
// its msgid; TestDefaultTranslationIsIdentity holds that). kubectl loads
// them at its first i18n.T, during package init (k8s.io/kubectl/pkg/cmd/
// options), by zipping and parsing 350 kB: about 24 ms of a call's ~75 ms
// of CPU. Any other language is loaded as kubectl loads it.
//
// It must run before the first i18n.T: Go initializes, of the packages
// whose imports are done, the first by import path, and this one (a
// github.com/labhub path that needs only i18n) is ready with i18n and
// sorts before every k8s.io package that calls i18n.T.
package defaultlang

import (
	"os"
	"strings"

	"k8s.io/kubectl/pkg/util/i18n"
)

func init() {
	if Language() != "default" {
		return
	}
	// An error means translations were loaded already; nothing to spare.
	_ = i18n.SetLoadTranslationsFunc(func() error { return nil })
}

// Language is the translation kubectl's i18n would pick for the
// environment: its loadSystemLanguage (LC_ALL, then LC_MESSAGES, then
// LANG; "xx_YY.charset" names xx_YY) and findLanguage (a language it has no
// translation for is "default").
func Language() string {
	lang := os.Getenv("LC_ALL")
	if lang == "" {
		lang = os.Getenv("LC_MESSAGES")
	}
	if lang == "" {
		lang = os.Getenv("LANG")
	}
	pieces := strings.Split(lang, ".")
	if len(pieces) != 2 {
		return "default"
	}
	switch pieces[0] {
	case "en_US", "fr_FR", "zh_CN", "ja_JP", "zh_TW", "it_IT", "de_DE", "ko_KR", "pt_BR":
		return pieces[0]
	}
	return "default"
}
