package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
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
	uid, gid, found, err := lookupUser(ctx)
	if err != nil || found {
		return uid, gid, err
	}
	argv := UserAdd()
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return 0, 0, fmt.Errorf("create the service's user %s (useradd --system): %v: %s; create it yourself, or run the service as root with --service-identity admin",
			User, err, strings.TrimSpace(string(out)))
	}
	if uid, gid, found, err = lookupUser(ctx); err == nil && !found {
		err = fmt.Errorf("useradd created user %s, but `getent passwd %s` does not find it", User, User)
	}
	return uid, gid, err
}

// UserAdd is the command that creates User: a system user with a group of
// its own, no home and no login shell. Step 4 shows it as typed.
func UserAdd() []string {
	nologin := "/usr/sbin/nologin"
	if _, err := os.Stat(nologin); err != nil {
		nologin = "/bin/false"
	}
	return []string{"useradd", "--system", "--user-group", "--no-create-home",
		"--home-dir", "/nonexistent", "--shell", nologin, "--comment", "cnpa TeamSpace controller", User}
}

// lookupUser asks the system's user database (getent, so NSS as
// configured, as systemd's User= sees it) for User's uid and gid.
func lookupUser(ctx context.Context) (uid, gid int, found bool, err error) {
	out, err := exec.CommandContext(ctx, "getent", "passwd", User).Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 2 { // getent: key not found
		return 0, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, fmt.Errorf("look up the service's user %s (getent passwd): %w", User, err)
	}
	// name:password:uid:gid:gecos:home:shell
	f := strings.Split(strings.TrimSpace(string(out)), ":")
	if len(f) < 4 {
		return 0, 0, false, fmt.Errorf("getent passwd %s: unexpected answer %q", User, out)
	}
	if uid, err = strconv.Atoi(f[2]); err == nil {
		gid, err = strconv.Atoi(f[3])
	}
	if err != nil {
		return 0, 0, false, fmt.Errorf("getent passwd %s: uid %q gid %q: %w", User, f[2], f[3], err)
	}
	return uid, gid, true, nil
}
