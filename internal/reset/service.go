package reset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
)

// removeService is phase 1's first half: another evidence dir's service at
// this unit path, then this lab's. Either failing stops the reset: a
// controller left running would race every phase after.
func removeService(ctx context.Context, env *labenv.Env, log func(string, ...any)) error {
	if dir, m := otherLab(env); m != nil && otherLabInstalled(ctx, m) {
		if err := m.Remove(ctx); err != nil {
			return fmt.Errorf("remove %s of the evidence dir %s: %w", service.Name, dir, err)
		}
		log("%s", i18n.T("reset.removed_other_service", i18n.Args{"Service": service.Name, "Dir": dir}))
	}
	// Asked first so that "removed" is said only of a unit that was there;
	// a status that cannot be read is no reason not to remove it.
	before, statusErr := env.Service.Status(ctx)
	if err := env.Service.Remove(ctx); err != nil {
		return fmt.Errorf("remove %s: %w", service.Name, err)
	}
	if statusErr == nil && !before.Installed && !before.Active {
		log("%s", i18n.T("reset.no_service", i18n.Args{"Service": service.Name, "Manager": env.Service.Name()}))
	} else {
		log("%s", i18n.T("reset.removed_service", i18n.Args{"Service": service.Name, "Manager": env.Service.Name()}))
	}
	return nil
}

// removeIdentity is phase 1's second half: the service's identity. What
// cannot be deleted is reported, and the reset goes on.
func removeIdentity(ctx context.Context, env *labenv.Env, r *Result, log func(string, ...any)) error {
	removed, err := identity.Remove(ctx, env.Clients)
	r.Identity = append(r.Identity, removed...)
	if len(removed) > 0 {
		log("%s", i18n.T("reset.deleted_identity", i18n.Args{"User": identity.Username, "Objects": i18n.List(removed)}))
	}
	return err
}

// otherLab is the service manager of another evidence dir's service at
// this lab's unit path (the unit path is one per machine), with that dir;
// nil when the unit there is this lab's, names no dir, or is not there.
func otherLab(env *labenv.Env) (string, service.Manager) {
	data, err := os.ReadFile(env.Service.UnitPath())
	if err != nil {
		return "", nil
	}
	served, ok := service.ServedDir(data)
	if !ok || filepath.Clean(served) == filepath.Clean(env.Dir) {
		return "", nil
	}
	m, err := service.New(env.Service.Name(), filepath.Dir(env.Service.UnitPath()), served)
	if err != nil {
		return "", nil
	}
	return served, m
}

// otherLabInstalled tells whether the other lab's service is there to
// remove; a status that cannot be read counts as not there, as before
// the prompt so in the action.
func otherLabInstalled(ctx context.Context, m service.Manager) bool {
	st, err := m.Status(ctx)
	return err == nil && (st.Installed || st.Active)
}
