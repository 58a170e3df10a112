package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
)

// User is the system user cnpa-op.service runs as with its own identity.
// A fixed user rather than systemd's DynamicUser=: the archive dir must
// belong to it across restarts and reboots, at the path LAB.md names, and
// a dynamic uid is only known once the unit runs.
const User = "cnpa-op"

// EnsureUser creates the system user User when it does not exist (useradd
// --system: no home, no login shell, a group of its own) and returns its
// uid and gid. `cnpa reset` leaves it, as a package leaves its users.
//
// An existing account of that name is used only if it is what useradd
// would have made: a system account (not root, uid at most SYS_UID_MAX
// of /etc/login.defs) with no login shell. Anything else (a person's
// login named cnpa-op) would get the service's powers and the archive
// dir: cnpa stops and says why.
func EnsureUser(ctx context.Context) (uid, gid int, err error) { return ensureUser(ctx, User) }

func ensureUser(ctx context.Context, name string) (uid, gid int, err error) {
	uid, gid, shell, found, err := lookupUser(ctx, name)
	if err != nil {
		return 0, 0, err
	}
	if found {
		if why := unfit(uid, shell); why != "" {
			return 0, 0, i18n.NewError("service.user_unfit", i18n.Args{"User": name, "Why": why})
		}
		return uid, gid, nil
	}
	argv := userAdd(name)
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return 0, 0, i18n.NewError("service.useradd_failed", i18n.Args{"User": User, "Err": err.Error(), "Output": strings.TrimSpace(string(out))})
	}
	if uid, gid, _, found, err = lookupUser(ctx, name); err == nil && !found {
		err = i18n.NewError("service.useradd_lost", i18n.Args{"User": name})
	}
	return uid, gid, err
}

// noLogin are the shells that let nobody log in.
var noLogin = map[string]bool{"/usr/sbin/nologin": true, "/sbin/nologin": true, "/bin/false": true, "/usr/bin/false": true}

// unfit says why an account with uid and shell is not a system account
// without a login, or "" when it is.
func unfit(uid int, shell string) string {
	switch {
	case uid == 0:
		return i18n.T("service.unfit.root")
	case uid > sysUIDMax():
		return i18n.T("service.unfit.uid", i18n.Args{"UID": uid, "Max": sysUIDMax()})
	case !noLogin[shell]:
		return i18n.T("service.unfit.shell", i18n.Args{"Shell": fmt.Sprintf("%q", shell)})
	}
	return ""
}

// sysUIDMax is SYS_UID_MAX of /etc/login.defs, 999 when unset.
func sysUIDMax() int {
	data, _ := os.ReadFile("/etc/login.defs")
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && f[0] == "SYS_UID_MAX" {
			if n, err := strconv.Atoi(f[1]); err == nil {
				return n
			}
		}
	}
	return 999
}

// UserAdd is the command that creates User: a system user with a group of
// its own, no home and no login shell. Step 4 shows it as typed.
func UserAdd() []string { return userAdd(User) }

func userAdd(name string) []string {
	nologin := "/usr/sbin/nologin"
	if _, err := os.Stat(nologin); err != nil {
		nologin = "/bin/false"
	}
	return []string{"useradd", "--system", "--user-group", "--no-create-home",
		"--home-dir", "/nonexistent", "--shell", nologin, "--comment", "cnpa TeamSpace controller", name}
}

// lookupUser asks the system's user database (getent, so NSS as
// configured, as systemd's User= sees it) for User's uid and gid.
func lookupUser(ctx context.Context, name string) (uid, gid int, shell string, found bool, err error) {
	out, err := exec.CommandContext(ctx, "getent", "passwd", name).Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 2 { // getent: key not found
		return 0, 0, "", false, nil
	}
	if err != nil {
		return 0, 0, "", false, fmt.Errorf("%s: %w", i18n.T("service.lookup_user", i18n.Args{"User": name}), err)
	}
	// name:password:uid:gid:gecos:home:shell
	f := strings.Split(strings.TrimSpace(string(out)), ":")
	if len(f) < 7 {
		return 0, 0, "", false, fmt.Errorf("getent passwd %s: unexpected answer %q", name, out)
	}
	if uid, err = strconv.Atoi(f[2]); err == nil {
		gid, err = strconv.Atoi(f[3])
	}
	if err != nil {
		return 0, 0, "", false, fmt.Errorf("getent passwd %s: uid %q gid %q: %w", name, f[2], f[3], err)
	}
	return uid, gid, f[6], true, nil
}
