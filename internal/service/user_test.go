package service

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/labhub/cnpa/test/kit/osuser"
)

// TestExistingAccountMustBeASystemUser is the review's "an existing
// cnpa-op account is reused whatever it is", with real accounts: a
// person's login (uid from the normal range, /bin/bash) is refused with
// the reason and the ways on; a system account without a login shell
// (osuser's, made as useradd --system makes cnpa-op) is used.
func TestExistingAccountMustBeASystemUser(t *testing.T) {
	sysUID, _ := osuser.Ensure(t)
	const login = "cnpa-login-test"
	if out, err := exec.Command("useradd", "--no-create-home", "--shell", "/bin/bash", login).CombinedOutput(); err != nil && !strings.Contains(string(out), "already exists") {
		t.Fatalf("useradd %s: %v\n%s", login, err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", login).Run() })
	_, _, err := ensureUser(context.Background(), login)
	if err == nil || !strings.Contains(err.Error(), "user "+login+" exists but") || !strings.Contains(err.Error(), "--service-identity admin") {
		t.Errorf("ensureUser(%s), a login user: got %v, want a refusal saying why and the ways on", login, err)
	}
	uid, _, err := ensureUser(context.Background(), osuser.Name)
	if err != nil || uid != sysUID {
		t.Errorf("ensureUser(%s), a system user with nologin: got uid %d, %v; want %d, nil", osuser.Name, uid, err, sysUID)
	}
	if os.Geteuid() == 0 {
		if why := unfit(0, "/usr/sbin/nologin"); why == "" {
			t.Errorf("unfit(0): root accepted")
		}
	}
}
