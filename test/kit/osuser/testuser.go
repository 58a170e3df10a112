// Package osuser gives tests a real second user on this machine, for
// what root must not trust of another user's files: created with
// `useradd --system` once, commands run as it with `setpriv`. Tests that
// need it skip when not run as root.
package osuser

import (
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"testing"
)

// Name is the test user: not cnpa-op, whose account the service owns.
const Name = "cnpa-fs-test"

// Ensure creates the user when missing and returns its uid and gid; it
// skips t unless run as root.
func Ensure(t testing.TB) (uid, gid int) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: it creates a real user and acts as it")
	}
	if _, err := user.Lookup(Name); err != nil {
		if out, err := exec.Command("useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", Name).CombinedOutput(); err != nil {
			t.Fatalf("useradd %s: %v\n%s", Name, err, out)
		}
	}
	u, err := user.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid
}

// Run runs script with sh as the user (setpriv: its uid, gid, no other
// groups) in dir and fails t when it fails.
func Run(t testing.TB, dir, script string) {
	t.Helper()
	uid, gid := Ensure(t)
	cmd := exec.Command("setpriv", "--reuid="+strconv.Itoa(uid), "--regid="+strconv.Itoa(gid), "--clear-groups", "--", "sh", "-ec", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("as %s in %s: %s: %v\n%s", Name, dir, script, err, out)
	}
}
