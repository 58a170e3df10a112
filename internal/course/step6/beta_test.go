package step6

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// A learner's beta.yaml that says what the lab text's step 6 says is
// theirs to apply, extras and all (the newcomer's row 13); one that
// differs names each field to write.
func TestBetaDiff(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		want       []string
	}{
		{"the lab's", BetaYAML, nil},
		{"the learner's, with a label", "apiVersion: platform.labhub.io/v1alpha1\nkind: TeamSpace\nmetadata:\n  name: beta\n  labels: {owner: me}\nspec: {cpu: \"500m\", pods: 2}\n", nil},
		{"pods 3, no cpu", "apiVersion: platform.labhub.io/v1alpha1\nkind: TeamSpace\nmetadata:\n  name: beta\nspec:\n  pods: 3\n", []string{"change pods: 3 to pods: 2", "add cpu: 500m"}},
	} {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(c.yaml), &obj); err != nil {
			t.Fatal(err)
		}
		got := betaDiff(obj)
		if len(got) != len(c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
			continue
		}
		for i := range got {
			if !strings.Contains(got[i], c.want[i]) {
				t.Errorf("%s: line %d %q, want %q", c.name, i, got[i], c.want[i])
			}
		}
	}
}
