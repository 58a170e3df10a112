package evidence

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
)

// Shapes like the lab's (package lab has the real ones, one per step).
var (
	beforeShape     = []Key{{"uid", String}, {"namespace_exists", Bool}}
	generationShape = []Key{{"uid", String}, {"gen_initial", Integer}, {"gen_after_label", Integer}, {"gen_after_spec", Integer}, {"status_via_main", NullOrObject}}
	catchupShape    = []Key{{"generation", Integer}, {"observed_while_stopped", Integer}, {"quota_pods_while_stopped", String}, {"observed_after_start", Integer}, {"quota_pods_after_start", String}}
	editedShape     = []Key{{"edited_to", IntegerOrString}}
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		shape []Key
		data  string
		want  []string // substrings of problems, in order; empty = valid
	}{
		{"valid before", beforeShape, `{"uid":"u","namespace_exists":false}`, nil},
		{"bool as string", beforeShape, `{"uid":"u","namespace_exists":"false"}`, []string{"namespace_exists: is a string"}},
		{"extra key", beforeShape, `{"uid":"u","namespace_exists":false,"x":1}`, []string{"x: extra key"}},
		{"missing key", beforeShape, `{"uid":"u"}`, []string{"namespace_exists: missing"}},
		{"status null", generationShape, `{"uid":"u","gen_initial":1,"gen_after_label":1,"gen_after_spec":2,"status_via_main":null}`, nil},
		{"float", generationShape, `{"uid":"u","gen_initial":1.0,"gen_after_label":1,"gen_after_spec":2,"status_via_main":null}`, []string{"gen_initial: is a non-integer number"}},
		{"quota pods int", catchupShape, `{"generation":3,"observed_while_stopped":2,"quota_pods_while_stopped":6,"observed_after_start":3,"quota_pods_after_start":"8"}`, []string{"quota_pods_while_stopped: is an integer"}},
		{"integer or string: 99", editedShape, `{"edited_to":99}`, nil},
		{"integer or string: \"99\"", editedShape, `{"edited_to":"99"}`, nil},
		{"integer or string: 9.9", editedShape, `{"edited_to":9.9}`, []string{"edited_to: is a non-integer number"}},
		{"not json", beforeShape, `{`, []string{"not valid JSON"}},
		{"array", beforeShape, `[]`, []string{"not a JSON object"}},
		{"duplicate", beforeShape, `{"uid":"a","uid":"b","namespace_exists":true}`, []string{"uid: appears more than once"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Validate(tt.shape, []byte(tt.data))
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %d problems %v", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i].String(), w) {
					t.Errorf("problem %d: got %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

// TestWriteThenRead: what Write writes, Read reads back whole, and no
// temporary file is left behind.
func TestWriteThenRead(t *testing.T) {
	dir := t.TempDir()
	type generation struct {
		UID           string          `json:"uid"`
		GenInitial    int64           `json:"gen_initial"`
		GenAfterLabel int64           `json:"gen_after_label"`
		GenAfterSpec  int64           `json:"gen_after_spec"`
		StatusViaMain json.RawMessage `json:"status_via_main"`
	}
	want := generation{UID: "u", GenInitial: 1, GenAfterLabel: 1, GenAfterSpec: 2, StatusViaMain: json.RawMessage("null")}
	if _, err := Write(dir, "generation.json", want); err != nil {
		t.Fatal(err)
	}
	var got generation
	problems, err := Read(dir, "generation.json", generationShape, &got)
	if err != nil || len(problems) > 0 || got.UID != want.UID || got.GenAfterSpec != want.GenAfterSpec || string(got.StatusViaMain) != "null" {
		t.Errorf("read back: got %+v (problems %v, err %v), want %+v", got, problems, err, want)
	}
	if _, err := Read(dir, "absent.json", generationShape, &got); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: got %v, want os.ErrNotExist", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	if len(left) > 0 {
		t.Errorf("temp files left behind: %v", left)
	}
}

func FuzzValidate(f *testing.F) {
	for _, seed := range []string{`{"uid":"u","namespace_exists":false}`, `{"a":[1,{"b":null}]}`, `"x"`, `{"uid":1e400}`, ``, `{"uid":"\ud800"}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data string) {
		for _, shape := range [][]Key{beforeShape, generationShape, catchupShape, editedShape, ArchiveShape} {
			Validate(shape, []byte(data))
		}
	})
}

func TestArchiveRecord(t *testing.T) {
	dir := t.TempDir()
	want := ArchiveRecord{Name: "beta", UID: "u-1", Pods: 2}
	if err := WriteArchive(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadArchive(dir, "beta")
	if err != nil || got == nil || *got != want {
		t.Fatalf("read back: got %+v (err %v), want %+v", got, err, want)
	}
	if got, err := ReadArchive(dir, "absent"); got != nil || err != nil {
		t.Errorf("missing record: got %+v (err %v), want nil, nil", got, err)
	}

	tests := []struct {
		name, data string
		want       []string // substrings of the error, in order
	}{
		{"pods as string", `{"name":"x","uid":"u","pods":"2"}`, []string{"pods: is a string"}},
		{"extra key", `{"name":"x","uid":"u","pods":2,"cpu":"1"}`, []string{"cpu: extra key"}},
		{"missing uid and pods", `{"name":"x"}`, []string{"uid: missing", "pods: missing"}},
		{"not an object", `[1]`, []string{"not a JSON object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, "x.json"), []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			rec, err := ReadArchive(dir, "x")
			var shape *ArchiveError
			if rec != nil || !errors.As(err, &shape) {
				t.Fatalf("got %+v (err %v), want an *ArchiveError", rec, err)
			}
			if len(shape.Problems) != len(tt.want) {
				t.Fatalf("got %v, want %d problems %v", shape.Problems, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(shape.Problems[i].String(), w) {
					t.Errorf("problem %d: got %q, want it to contain %q", i, shape.Problems[i], w)
				}
			}
		})
	}
}

// TestReadArchiveRefusesWhatIsNotARecord is N10 of issue 40: root reads
// the service user's archive dir; a FIFO there is refused at once (it hung
// `cnpa report --html` for 10 minutes), and so is a hard link to another
// file, whose bytes would be copied into submission.json.
func TestReadArchiveRefusesWhatIsNotARecord(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "beta.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(other, []byte(`{"name":"gamma","uid":"u","pods":2}`), 0o600)
	os.Link(other, filepath.Join(dir, "gamma.json"))
	done := make(chan error)
	go func() {
		_, err := ReadArchive(dir, "beta")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("a FIFO for the record: got %v, want it refused", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadArchive blocked on a FIFO")
	}
	if rec, err := ReadArchive(dir, "gamma"); err == nil || rec != nil {
		t.Errorf("a hard link for the record: got %+v, %v, want it refused", rec, err)
	}
	if rec, err := ReadArchive(dir, "missing"); rec != nil || err != nil {
		t.Errorf("a missing record: got %+v, %v, want nil, nil", rec, err)
	}
}

// A problem says what it is for programs (What), the same in every
// language, and its Detail in the chosen language: in English as it always
// has (but for the lab text, which it once called LAB.md), in Japanese in
// Japanese.
func TestProblemsInTheChosenLanguage(t *testing.T) {
	defer i18n.Set(i18n.Current())
	cases := []struct {
		shape  []Key
		data   string
		what   string
		en, ja string
	}{
		{beforeShape, `{`, NotJSON, "is not valid JSON", "正しいJSONではない"},
		{beforeShape, `[]`, NotObject, "is not a JSON object", "JSONオブジェクトではない"},
		{beforeShape, `{"uid":"u","namespace_exists":false,"x":1}`, ExtraKey, "x: extra key: the lab text does not name it", "x: 余分なキー: ラボの手順にないキー"},
		{beforeShape, `{"uid":"u"}`, MissingKey, "namespace_exists: missing (want boolean)", "namespace_exists: 存在しない（真偽値であるべき）"},
		{beforeShape, `{"uid":"u","namespace_exists":"false"}`, WrongType, `namespace_exists: is a string "false", want boolean`, `namespace_exists: 文字列の"false"だが、真偽値であるべき`},
		{beforeShape, `{"uid":"a","uid":"b","namespace_exists":true}`, Twice, "uid: appears more than once", "uid: 2回以上書かれている"},
	}
	for _, c := range cases {
		for _, l := range []struct {
			lang i18n.Lang
			want string
		}{{i18n.English, c.en}, {i18n.Japanese, c.ja}} {
			i18n.Set(l.lang)
			got := Validate(c.shape, []byte(c.data))
			if len(got) != 1 || got[0].What != c.what || got[0].String() != l.want {
				t.Errorf("%s %s: got %+v, want %s %q", l.lang, c.data, got, c.what, l.want)
			}
			if strings.Contains(got[0].String(), "LAB.md") {
				t.Errorf("%s: %q names LAB.md, a file the learner never has", l.lang, got[0])
			}
		}
	}
	i18n.Set(i18n.Japanese)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "before.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if why, err := Theirs(dir, "before.json"); err != nil || why != "cnpaが書いたものではない" {
		t.Errorf("Theirs in Japanese: %q, %v", why, err)
	}
	_, _, err := Put(dir, "before.json", []byte("{}"), 0o644, false)
	if err == nil || !strings.Contains(err.Error(), "あなたのものです（cnpaが書いたものではない）") {
		t.Errorf("Put over a learner's file, in Japanese: %v", err)
	}
}

// TestArchiveRefusesANameThatIsNoTeamSpaces is R4-5 of the round-4
// review: a hostile API server's object name never becomes a path. Every
// write and read is refused before a file is opened, and nothing appears
// outside the archive dir (nor in it).
func TestArchiveRefusesANameThatIsNoTeamSpaces(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "archive")
	for _, name := range []string{"../../x", "../x", "..", ".", "", "a/b", "x\x00y", "x\ny", "UPPER", "a\x1b[2J", strings.Repeat("a", 254)} {
		var ne *NameError
		if err := WriteArchive(dir, ArchiveRecord{Name: name, UID: "u", Pods: 1}); !errors.As(err, &ne) {
			t.Errorf("WriteArchive(%q): %v, want a NameError", name, err)
		}
		if rec, err := ReadArchive(dir, name); !errors.As(err, &ne) || rec != nil {
			t.Errorf("ReadArchive(%q): %v %v, want a NameError", name, rec, err)
		}
	}
	for _, file := range []string{"../x.json", "a/x.json", "..", ""} {
		var ne *NameError
		if err := WriteArchiveAs(dir, file, ArchiveRecord{Name: "x", UID: "u"}); !errors.As(err, &ne) {
			t.Errorf("WriteArchiveAs(%q): %v, want a NameError", file, err)
		}
	}
	var found []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if p != root {
			found = append(found, p)
		}
		return nil
	})
	if len(found) > 0 {
		t.Errorf("refused names left files: %v", found)
	}
	if err := WriteArchive(dir, ArchiveRecord{Name: "team.a-1", UID: "u", Pods: 1}); err != nil {
		t.Errorf("a valid name (dots and dashes): %v", err)
	}
}
