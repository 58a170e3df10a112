package labenv

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/manifest"
	"github.com/labhub/cnpa/internal/safefs"
	"github.com/labhub/cnpa/internal/service"
)

// CredentialFile is the service's own kubeconfig in the evidence dir (mode
// 0600, root's): the cnpa-controller ServiceAccount's token. Under systemd
// the unit receives a copy with LoadCredential=; process mode reads it in
// place. Its name starts with cnpa-op., like process mode's files, and
// `cnpa reset` removes it with them.
const CredentialFile = "cnpa-op.kubeconfig"

// CredentialPath is <dir>/cnpa-op.kubeconfig.
func (e *Env) CredentialPath() string { return filepath.Join(e.Dir, CredentialFile) }

// OwnIdentity tells whether the service runs as its own identity.
func (e *Env) OwnIdentity() bool { return e.Identity() == identity.Own }

// SystemUser tells whether the unit switches to service.User: under
// systemd with the own identity. Process mode runs as whoever runs cnpa.
func (e *Env) SystemUser() bool { return e.OwnIdentity() && e.Service.Name() == "systemd" }

// ProvisionIdentity gives the service its own identity. Phases:
//  1. apply the ServiceAccount, its roles and the admission policy
//     (identity.Apply waits until both are in force) and write its
//     kubeconfig to CredentialPath;
//  2. under systemd: create the system user service.User and check that
//     it can run the own engine's script.
//
// Running it again renews nothing that is in place: the apply is
// server-side and the token Secret keeps its token.
func (e *Env) ProvisionIdentity(ctx context.Context) error {
	kc, err := identity.Apply(ctx, e.Target, e.Clients, e.Timeout)
	if err != nil {
		return fmt.Errorf("%w %s", err, i18n.T("labenv.or_admin"))
	}
	if _, err := evidence.WriteRaw(e.Dir, CredentialFile, kc, 0o600); err != nil {
		return fmt.Errorf("%s: %w", i18n.T("labenv.write_credential"), err)
	}
	if !e.SystemUser() {
		return nil
	}
	if _, _, err := service.EnsureUser(ctx); err != nil {
		return err
	}
	if e.Engine == EngineOwn {
		if fi, err := os.Stat(e.ScriptPath()); err == nil && fi.Mode()&0o005 != 0o005 {
			return i18n.NewError("labenv.own_mode", i18n.Args{"Path": e.ScriptPath(), "User": service.User, "Mode": fi.Mode().Perm().String()})
		}
	}
	return nil
}

// ProbeIdentity asks, as the service (with its kubeconfig) and as a dry
// run, to label namespace kube-system, and returns the API server's
// answer: nil if it allowed it, the admission policy's refusal if all is
// well (identity.IsPolicyDenial).
func (e *Env) ProbeIdentity(ctx context.Context) (answer error, err error) {
	t, err := kube.Resolve(e.CredentialPath(), "")
	if err != nil {
		return nil, err
	}
	c, err := kube.NewClients(t)
	if err != nil {
		return nil, err
	}
	return identity.ProbeKubeSystem(ctx, c), nil
}

// giveArchiveDir makes the archive dir, the only place the service
// writes, belong to whoever the service runs as: service.User under
// systemd with the own identity, else the user running cnpa. The unit
// leaves root no CAP_DAC_OVERRIDE, so after a switch back to
// --service-identity admin, root could not write into a dir still owned
// by service.User. Only root can give a dir away; anyone else keeps it.
func (e *Env) giveArchiveDir(ctx context.Context) error {
	if err := os.MkdirAll(e.ArchiveDir(), 0o755); err != nil {
		return err
	}
	if os.Geteuid() != 0 {
		return nil
	}
	uid, gid, who := 0, 0, "root"
	if e.SystemUser() {
		var err error
		if uid, gid, err = service.EnsureUser(ctx); err != nil {
			return err
		}
		who = service.User
	}
	return GiveArchiveDir(e.ArchiveDir(), uid, gid, who)
}

// GiveArchiveDir gives the archive dir, its .cnpa and the manifest in it
// to uid:gid, and nothing else: those are what cnpa made there. The
// controller appends to that manifest, which the service wrote as
// whoever it ran as before, and the unit has no capabilities, so even
// root cannot write into a directory of the other user's. Each is
// chowned through its own descriptor, opened beneath the archive dir
// without following a symlink (package safefs): never a walk, which a
// directory swapped for a symlink mid-way would lead out of the dir
// (/etc/rancher/k3s given to the service's user).
func GiveArchiveDir(dir string, uid, gid int, who string) error {
	d, err := safefs.OpenDir(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", i18n.T("labenv.give_archive", i18n.Args{"Dir": dir, "User": who}), err)
	}
	defer d.Close()
	if err := d.Chown(".", uid, gid); err != nil {
		return fmt.Errorf("%s: %w", i18n.T("labenv.give_archive", i18n.Args{"Dir": dir, "User": who}), err)
	}
	for _, rel := range []string{manifest.OwnDir, manifest.File} {
		if err := d.Chown(rel, uid, gid); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w %s", i18n.T("labenv.give", i18n.Args{"Path": filepath.Join(dir, rel), "User": who}), err, i18n.T("labenv.give_move_away"))
		}
	}
	return nil
}
