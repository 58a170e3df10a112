// Package manifest is cnpa's own record of the files it wrote into a
// directory, so that `cnpa reset` removes those and nothing else: a
// learner's crd.yaml or notes.json in the same directory, written by hand,
// is never cnpa's to delete, however generic its name.
//
// The record is <dir>/.cnpa/manifest.jsonl, one JSON object per line,
// appended (O_APPEND, one write per line) so that several writers at once
// (a step, the controller's workers, reconcile.sh) never lose each other's
// entries. The last entry for a name wins. The hidden directory OwnDir is
// cnpa's alone: everything under it is cnpa's own.
package manifest

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/labhub/cnpa/internal/safefs"
)

// OwnDir is the directory under a directory cnpa writes into that holds
// the files cnpa keeps for itself (the manifest, timelines, the last
// check), never the learner's.
const OwnDir = ".cnpa"

// File is the manifest's path relative to the directory it describes.
const File = OwnDir + "/manifest.jsonl"

// Entry says that cnpa wrote Name (relative to the directory) with
// content of hash SHA256. An empty SHA256 means any content is cnpa's: a
// log cnpa's service appends to, or a record reconcile.sh wrote.
// Ino and MTime, when set, are the inode number and modification time
// (ns) of the file cnpa wrote: a file put at that name since (a learner's
// own, moved back, or written anew with the very command cnpa showed) is
// another file, whatever it holds, and never cnpa's; the time tells one
// that took a freed inode's number. Entries of an earlier cnpa have
// neither, and are judged by content alone.
type Entry struct {
	Name   string `json:"path"`
	SHA256 string `json:"sha256,omitempty"`
	Ino    uint64 `json:"ino,omitempty"`
	MTime  int64  `json:"mtime_ns,omitempty"`
}

// Record notes that cnpa wrote dir/name with data, and which file it is
// (its inode, read now: call it right after writing); nil data records
// the name alone (see Entry).
func Record(dir, name string, data []byte) error {
	e := Entry{Name: name}
	if data != nil {
		e.SHA256 = Sum(data)
		var st unix.Stat_t
		if err := unix.Lstat(filepath.Join(dir, name), &st); err == nil {
			e.Ino, e.MTime = st.Ino, st.Mtim.Nano()
		}
	}
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	// Beneath dir without a symlink in any part (package safefs): root
	// appends to the archive dir's manifest, which the service's user
	// owns, and must never create or extend a file a symlink there names.
	d, err := safefs.OpenDir(dir)
	if err != nil {
		return fmt.Errorf("record %s in cnpa's manifest: %w", name, err)
	}
	defer d.Close()
	if err := d.MkdirAll(OwnDir, 0o755); err != nil {
		return fmt.Errorf("record %s in cnpa's manifest: %w", name, err)
	}
	if err := d.Append(File, append(line, '\n'), 0o644); err != nil {
		return fmt.Errorf("record %s in cnpa's manifest: %w", name, err)
	}
	return nil
}

// Sum is the hex SHA-256 the manifest keeps of a file's content.
func Sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// Read returns the entries of dir's manifest, the last one per name, in
// the order the names were first written. A dir without a manifest has
// none. A line that does not parse (cut short by a crash) is skipped: it
// names no file cnpa finished writing.
func Read(dir string) ([]Entry, error) {
	f, err := os.Open(filepath.Join(dir, File))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read cnpa's manifest: %w", err)
	}
	defer f.Close()
	var order []string
	last := map[string]Entry{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e Entry
		if json.Unmarshal(sc.Bytes(), &e) != nil || !safeName(e.Name) {
			continue
		}
		if _, seen := last[e.Name]; !seen {
			order = append(order, e.Name)
		}
		last[e.Name] = e
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read cnpa's manifest %s: %w", filepath.Join(dir, File), err)
	}
	out := make([]Entry, 0, len(order))
	for _, n := range order {
		out = append(out, last[n])
	}
	return out, nil
}

// safeName keeps a manifest entry inside its directory: a plain relative
// name, never absolute, never with "..", never inside OwnDir (which goes
// as a whole).
func safeName(name string) bool {
	return name != "" && filepath.IsLocal(name) && filepath.Clean(name) == name &&
		name != OwnDir && !strings.HasPrefix(name, OwnDir+"/")
}

// Status is what became of a file cnpa wrote.
type Status int

const (
	// Unchanged: the file holds what cnpa wrote (or is one whose content
	// cnpa does not track): cnpa's to remove.
	Unchanged Status = iota
	// Changed: someone rewrote it since; it is theirs now.
	Changed
	// Replaced: another file stands at its name, whatever it holds (the
	// one cnpa wrote was moved or removed, and this one put there): it
	// is theirs, and cnpa never wrote it.
	Replaced
	// Missing: it is gone already.
	Missing
	// NotAFile: a directory or something else stands at its name now.
	NotAFile
)

// Check tells what became of the file an entry names. It is read beneath
// dir without following a symlink in any part (package safefs): a name
// reached through one (x/motd with x -> /etc) is NotAFile, never /etc's.
func Check(dir string, e Entry) (Status, error) {
	d, err := safefs.OpenDir(dir)
	if err != nil {
		return 0, err
	}
	defer d.Close()
	data, st, err := d.ReadRegularStat(e.Name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Missing, nil
	case errors.Is(err, safefs.ErrNotRegular), errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV),
		errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.EISDIR):
		return NotAFile, nil
	case err != nil:
		return 0, err
	}
	if e.SHA256 == "" {
		return Unchanged, nil
	}
	switch {
	case e.Ino != 0 && st.Ino != e.Ino:
		return Replaced, nil
	case Sum(data) != e.SHA256:
		return Changed, nil
	case e.Ino != 0 && st.Mtim.Nano() != e.MTime:
		// The same bytes written since, into a freed inode number or
		// over cnpa's own: not the write cnpa made.
		return Replaced, nil
	}
	return Unchanged, nil
}
