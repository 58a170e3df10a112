// Package reset puts the cluster and the evidence dir back to before step 1,
// so that a learner can start the lab over: no service, no TeamSpaces, none
// of their namespaces, no CRD, no evidence. It touches only what is the
// lab's: namespaces the controller's own ownership test calls a
// TeamSpace's (teamspace.OwnsNamespace), our finalizer, and the files cnpa's
// manifest says cnpa wrote (package manifest), never a file of the same
// name someone else put in the directory. The learner's own evidence files
// are moved aside into a dated folder, never deleted, and the lab's
// choices stay (files.go: moveOwnEvidence, keepChoices).
//
// One file per phase: service.go (the service and its identity),
// teamspaces.go (the TeamSpaces and their CRD), namespaces.go, files.go.
// What is the lab's is worked out by one function for the prompt (Inspect)
// and the action (Run) alike: listCluster (listing.go) for the cluster,
// ourFiles (files.go) for each directory.
package reset

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/poll"
)

// fieldManager names reset's writes.
const fieldManager = "cnpa-reset"

// Plan is what a reset would remove, for the confirmation prompt.
type Plan struct {
	Service bool `json:"service"`
	// OtherLab is the evidence dir whose service is installed at this
	// unit path, when it is not this one: it runs on the identity and the
	// CRD a reset deletes, so reset stops it too rather than leave it
	// failing on every pass.
	OtherLab string `json:"other_lab,omitempty"`
	// Identity: the service's ServiceAccount, roles, token or admission
	// policy exist (see internal/identity).
	Identity     bool     `json:"identity"`
	TeamSpaces   []string `json:"teamspaces"`
	Namespaces   []string `json:"namespaces"`
	CRD          bool     `json:"crd"`
	Files        []string `json:"files"`
	ArchiveFiles []string `json:"archive_files,omitempty"`
	// Kept are files cnpa wrote that someone rewrote since: theirs now,
	// so reset leaves them.
	Kept []string `json:"kept,omitempty"`
	// Aside are the learner's own evidence files (written by hand, or
	// changed since cnpa wrote them), by name: reset moves them into a
	// dated folder <dir>/own-<time>/ (Result.AsideDir).
	Aside []string `json:"aside,omitempty"`
}

// Empty tells whether there is nothing to reset.
func (p *Plan) Empty() bool {
	return !p.Service && p.OtherLab == "" && !p.Identity && len(p.TeamSpaces) == 0 && len(p.Namespaces) == 0 && !p.CRD && len(p.Files) == 0 && len(p.ArchiveFiles) == 0 && len(p.Aside) == 0
}

// Result is what a reset did.
type Result struct {
	ServiceRemoved bool `json:"service_removed"`
	// Identity lists the objects of the service's identity deleted.
	Identity []string `json:"identity"`
	// TeamSpaces deleted; Archived those whose record reset wrote itself
	// because no controller ran to do it.
	TeamSpaces []string `json:"teamspaces"`
	Archived   []string `json:"archived"`
	Namespaces []string `json:"namespaces"`
	CRDDeleted bool     `json:"crd_deleted"`
	Files      []string `json:"files"`
	// Aside are the learner's own evidence files as moved, in AsideDir.
	Aside    []string `json:"aside,omitempty"`
	AsideDir string   `json:"aside_dir,omitempty"`
}

// Options tune Run.
type Options struct {
	// Steps is the lab's steps (course.Steps): their evidence files are
	// what a reset moves aside or removes.
	Steps lab.Table
	// Purge also removes the archive records.
	Purge bool
	// Log receives one line per action.
	Log func(format string, a ...any)
	// Now is the reset's time, for the name of the folder the learner's
	// own evidence goes into; zero means time.Now.
	Now time.Time
}

// Inspect lists what Run would remove: the same listing Run acts on
// (listCluster, ourFiles), read now.
func Inspect(ctx context.Context, env *labenv.Env, steps lab.Table, purge bool) (*Plan, error) {
	ev := evidenceFiles(steps.Files())
	p := &Plan{TeamSpaces: []string{}, Namespaces: []string{}, Files: []string{}}
	st, err := env.Service.Status(ctx)
	if err != nil {
		return nil, err
	}
	p.Service = st.Installed || st.Active
	if dir, m := otherLab(env); m != nil && otherLabInstalled(ctx, m) {
		p.OtherLab = dir
	}
	if p.Identity, err = identity.Present(ctx, env.Clients); err != nil {
		return nil, err
	}
	l, err := listCluster(ctx, env)
	if err != nil {
		return nil, err
	}
	p.CRD = l.crd
	for _, u := range l.teamSpaces {
		p.TeamSpaces = append(p.TeamSpaces, u.GetName())
	}
	for _, ns := range l.namespaces {
		p.Namespaces = append(p.Namespaces, ns.Name)
	}
	files, err := ourFiles(env.Dir, false)
	if err != nil {
		return nil, err
	}
	started, err := cnpaLab(env)
	if err != nil {
		return nil, err
	}
	if started {
		if p.Aside, err = ev.own(env.Dir); err != nil {
			return nil, err
		}
	}
	for _, f := range files.remove {
		// The state file is written again at once (keepChoices): not a
		// file reset takes away.
		if filepath.Base(f) != labenv.StateFile {
			p.Files = append(p.Files, f)
		}
	}
	for _, f := range append(files.kept, files.replaced...) {
		if !ev.has(filepath.Base(f)) {
			p.Kept = append(p.Kept, f)
		}
	}
	if purge {
		records, err := ourFiles(env.ArchiveDir(), true)
		if err != nil {
			return nil, err
		}
		p.ArchiveFiles, p.Kept = records.remove, append(append(p.Kept, records.kept...), records.replaced...)
	}
	return p, nil
}

// Run resets the lab. Phases:
//  1. stop and remove the service, so no controller races what follows,
//     and delete its identity (ServiceAccount, token, roles, admission
//     policy; its kubeconfig goes with the files in phase 6);
//  2. list what is the lab's (listCluster), now that nothing else acts on
//     it: the TeamSpaces, and the namespaces that are theirs by the
//     controller's own ownership test (once the TeamSpaces are deleted,
//     nothing tells a TeamSpace's namespace from a stranger's that merely
//     looks like one);
//  3. delete every TeamSpace listed; for each one carrying our finalizer,
//     keep its promise as the controller would (archive.ThenRelease, with
//     reset's policy archive.ReleaseAnyway); wait until they are gone; one
//     held by a foreign finalizer is reported by name;
//  4. delete the namespaces listed (the garbage collector would too, but
//     can take a minute), and wait until they are gone;
//  5. delete the CRD and wait until it is gone;
//  6. remove the files cnpa's manifest lists and that still hold what cnpa
//     wrote, and cnpa's own .cnpa/ (archive records only with Purge);
//  7. in a dir cnpa has run the lab in (cnpaLab), move the learner's own
//     evidence files into <dir>/own-<time>/ (moveOwnEvidence): a new run
//     must not stop at them, and reset deletes nothing of theirs;
//  8. write the state file again with the lab's choices, unlocked
//     (keepChoices): starting over keeps the engine, service manager,
//     unit dir and identity.
func Run(ctx context.Context, env *labenv.Env, opts Options) (*Result, error) {
	log := opts.Log
	if log == nil {
		log = func(string, ...any) {}
	}
	r := &Result{Identity: []string{}, TeamSpaces: []string{}, Archived: []string{}, Namespaces: []string{}, Files: []string{}}

	// Each phase goes on after the one before failed on some objects:
	// what can be removed is removed, and every failure is reported.
	var failures []error
	// What the plan announces for the evidence dir, read as Inspect reads
	// it, before phase 1 removes the service's own files.
	planned, err := ourFiles(env.Dir, false)
	if err != nil {
		return r, err
	}
	if err := removeService(ctx, env, log); err != nil {
		return r, err
	}
	r.ServiceRemoved = true
	if err := removeIdentity(ctx, env, r, log); err != nil {
		failures = append(failures, err)
	}
	l, err := listCluster(ctx, env)
	if err != nil {
		return r, errors.Join(append(failures, err)...)
	}
	// Read before phase 6 removes the manifest.
	started, err := cnpaLab(env)
	if err != nil {
		failures = append(failures, err)
	}
	if l.crd {
		if err := deleteTeamSpaces(ctx, env, l.teamSpaces, r, log); err != nil {
			failures = append(failures, err)
		}
	}
	if err := deleteNamespaces(ctx, env, l.namespaces, l.dependents, r, log); err != nil {
		failures = append(failures, err)
	}
	if l.crd {
		if err := deleteCRD(ctx, env, log); err != nil {
			failures = append(failures, err)
		} else {
			r.CRDDeleted = true
		}
	}
	if err := removeFiles(evidenceFiles(opts.Steps.Files()), env, opts.Purge, planned.remove, r, log); err != nil {
		failures = append(failures, err)
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	if started {
		if err := moveOwnEvidence(evidenceFiles(opts.Steps.Files()), env.Dir, now, r, log); err != nil {
			failures = append(failures, err)
		}
	}
	if err := keepChoices(env, log); err != nil {
		failures = append(failures, err)
	}
	return r, errors.Join(failures...)
}

// wait polls cond every 200 ms until it holds, timeout passes or ctx ends.
// max, when positive, shortens timeout. The callers say what was left.
func wait(ctx context.Context, timeout time.Duration, cond func(context.Context) (bool, error), max time.Duration) error {
	if max > 0 && (timeout <= 0 || max < timeout) {
		timeout = max
	}
	_, err := poll.Until(ctx, 200*time.Millisecond, timeout, func(ctx context.Context) (bool, string, error) {
		done, err := cond(ctx)
		return done, "", err
	})
	var gaveUp *poll.TimeoutError
	if errors.As(err, &gaveUp) {
		return i18n.NewError("reset.gave_up", i18n.Args{"Timeout": timeout.String()})
	}
	return err
}
