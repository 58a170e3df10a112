package service

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
)

// User is the system user cnpa-op.service runs as with its own identity.
// A fixed user rather than systemd's DynamicUser=: the archive dir must
// belong to it across restarts and reboots, at the path LAB.md names, and
// a dynamic uid is only known once the unit runs.
const User = "cnpa-op"

// EnsureUser creates the system user User when it does not exist (useradd
// --system: no home, no login shell, a group of its own) and returns its
// uid and gid. `cnpa reset` leaves it, as a package leaves its users.
func EnsureUser(ctx context.Context) (uid, gid int, err error) {
	u, err := user.Lookup(User)
	if _, unknown := err.(user.UnknownUserError); unknown {
		nologin := "/usr/sbin/nologin"
		if _, err := os.Stat(nologin); err != nil {
			nologin = "/bin/false"
		}
		out, err := exec.CommandContext(ctx, "useradd", "--system", "--user-group", "--no-create-home",
			"--home-dir", "/nonexistent", "--shell", nologin, "--comment", "cnpa TeamSpace controller", User).CombinedOutput()
		if err != nil {
			return 0, 0, fmt.Errorf("create the service's user %s (useradd --system): %v: %s; create it yourself, or run the service as root with --service-identity admin",
				User, err, strings.TrimSpace(string(out)))
		}
		u, err = user.Lookup(User)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("look up the service's user %s: %w", User, err)
	}
	if uid, err = strconv.Atoi(u.Uid); err == nil {
		gid, err = strconv.Atoi(u.Gid)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("user %s: uid %q gid %q: %w", User, u.Uid, u.Gid, err)
	}
	return uid, gid, nil
}
