package i18n

import "testing"

// The language is chosen as kubectl chooses it (LC_ALL, then LC_MESSAGES,
// then LANG; k8s.io/kubectl/pkg/util/i18n's table of cases), except that
// "ja" and "ja_JP" choose Japanese as "ja_JP.UTF-8" does, and --lang or
// CNPA_LANG override the locale.
func TestChoose(t *testing.T) {
	for _, c := range []struct {
		name string
		flag string
		env  map[string]string
		want Lang
		err  bool
	}{
		{name: "none set", want: English},
		{name: "LC_ALL alone", env: map[string]string{"LC_ALL": "ja_JP.UTF-8"}, want: Japanese},
		{name: "LC_MESSAGES alone", env: map[string]string{"LC_MESSAGES": "ja_JP.UTF-8"}, want: Japanese},
		{name: "LANG alone", env: map[string]string{"LANG": "ja_JP.UTF-8"}, want: Japanese},
		{name: "LC_ALL over LC_MESSAGES", env: map[string]string{"LC_ALL": "en_US.UTF-8", "LC_MESSAGES": "ja_JP.UTF-8"}, want: English},
		{name: "LC_ALL over LANG", env: map[string]string{"LC_ALL": "ja_JP.UTF-8", "LANG": "en_US.UTF-8"}, want: Japanese},
		{name: "LC_MESSAGES over LANG", env: map[string]string{"LC_MESSAGES": "en_US.UTF-8", "LANG": "ja_JP.UTF-8"}, want: English},
		{name: "LC_MESSAGES over LANG, Japanese", env: map[string]string{"LC_MESSAGES": "ja_JP.UTF-8", "LANG": "en_US.UTF-8"}, want: Japanese},
		{name: "ja", env: map[string]string{"LANG": "ja"}, want: Japanese},
		{name: "ja_JP", env: map[string]string{"LANG": "ja_JP"}, want: Japanese},
		{name: "ja-JP", env: map[string]string{"LANG": "ja-JP"}, want: Japanese},
		{name: "ja_JP.eucJP", env: map[string]string{"LANG": "ja_JP.eucJP"}, want: Japanese},
		{name: "ja_JP.UTF-8@modifier", env: map[string]string{"LANG": "ja_JP.UTF-8@cjknarrow"}, want: Japanese},
		{name: "unknown locale", env: map[string]string{"LANG": "fr_FR.UTF-8"}, want: English},
		{name: "unknown locale set first hides a later one", env: map[string]string{"LC_ALL": "fr_FR.UTF-8", "LANG": "ja_JP.UTF-8"}, want: English},
		{name: "malformed value", env: map[string]string{"LANG": "ja_JP_x.UTF-8"}, want: English},
		{name: "malformed value, no language", env: map[string]string{"LANG": "_.UTF-8"}, want: English},
		{name: "C", env: map[string]string{"LANG": "C"}, want: English},
		{name: "POSIX", env: map[string]string{"LC_ALL": "POSIX", "LANG": "ja_JP.UTF-8"}, want: English},
		{name: "C.UTF-8", env: map[string]string{"LANG": "C.UTF-8"}, want: English},
		{name: "LANGUAGE is not read (as kubectl)", env: map[string]string{"LANGUAGE": "ja"}, want: English},
		{name: "CNPA_LANG over the locale", env: map[string]string{"CNPA_LANG": "ja", "LC_ALL": "en_US.UTF-8"}, want: Japanese},
		{name: "CNPA_LANG=en over a Japanese locale", env: map[string]string{"CNPA_LANG": "en", "LC_ALL": "ja_JP.UTF-8"}, want: English},
		{name: "--lang over CNPA_LANG", flag: "en", env: map[string]string{"CNPA_LANG": "ja"}, want: English},
		{name: "--lang over the locale", flag: "ja", env: map[string]string{"LANG": "C"}, want: Japanese},
		{name: "--lang in locale form", flag: "ja_JP.UTF-8", want: Japanese},
		{name: "--lang unknown", flag: "ko", err: true},
		{name: "CNPA_LANG unknown", env: map[string]string{"CNPA_LANG": "xx"}, err: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Choose(c.flag, func(k string) string { return c.env[k] })
			if c.err {
				if err == nil {
					t.Fatalf("Choose = %s, want an error", got)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Choose = %s, %v; want %s", got, err, c.want)
			}
		})
	}
}

func TestChooseErrorNamesTheLanguages(t *testing.T) {
	_, err := Choose("ko", func(string) string { return "" })
	if err == nil || err.Error() != "--lang ko: cnpa speaks en or ja" {
		t.Fatalf("err = %v", err)
	}
}
