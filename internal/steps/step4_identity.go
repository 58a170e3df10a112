package steps

// The service's own identity (--service-identity own), shown as the
// commands a learner types for what labenv.ProvisionIdentity did: apply
// the ServiceAccount, its roles and the admission policy; wait for the
// token; write the kubeconfig that carries it; under systemd, create the
// system user and give it the archive dir. Then the proof: as that
// identity, a label on kube-system is refused.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/manifest"
	"github.com/labhub/cnpa/internal/service"
)

// showIdentity shows the provisioning of the service's own identity.
func showIdentity(sh shell, env *Lab) error {
	if !sh.verbose {
		return showIdentityPieces(sh, env)
	}
	sh.comment("%s", say("steps.identity.verbose", "SA", identity.Namespace+"/"+identity.ServiceAccount))
	for _, m := range identity.Manifests() {
		objs, err := identity.Objects(m)
		if err != nil {
			return err
		}
		sh.cmd(stdinHeredoc(kubectl("apply", "--server-side", "--field-manager="+identity.FieldManager, "--force-conflicts", "-f", "-"), withoutComments(m)))
		for _, o := range objs {
			sh.answer("%s serverside-applied", o.KubectlName())
		}
	}
	secret := obj{resource: "secret", name: identity.TokenSecret, ns: identity.Namespace}
	sh.comment("%s", say("steps.identity.token", "Secret", identity.Namespace+"/"+identity.TokenSecret))
	sh.waitCmd(until(`[ -n "$(` + getCmd(secret, "{.data.token}") + ` 2>/dev/null)" ]`))
	sh.cmd("secret=$(" + kubectl(append(append([]string{"get"}, secret.args()...), "-o", "json")...) + ")")
	sh.comment("%s", say("steps.identity.kubeconfig"))
	sh.cmd(`(umask 077; kubectl config view --raw --minify --flatten -o json | jq --argjson secret "$secret" ` +
		quote(identity.KubeconfigJQ) + " > " + quote(env.CredentialPath()) + ")")
	if !env.SystemUser() {
		return nil
	}
	user := service.User + ":" + service.User
	sh.cmd("getent passwd " + service.User + " >/dev/null || " + words(service.UserAdd()...))
	sh.cmd(words("mkdir", "-p", env.ArchiveDir()) + " && " + words("chown", user, env.ArchiveDir()))
	// Only what cnpa made there, never -R (labenv.GiveArchiveDir says why).
	if own := filepath.Join(env.ArchiveDir(), manifest.OwnDir); pathExists(own) {
		args := []string{"chown", "-h", user, own}
		if m := filepath.Join(env.ArchiveDir(), manifest.File); pathExists(m) {
			args = append(args, m)
		}
		sh.cmd(words(args...))
	}
	return nil
}

// identityRoles say, by kind, what each piece of the identity is for.
var identityRoles = map[string]string{
	"ServiceAccount":                   "steps.identity.role.sa",
	"Secret":                           "steps.identity.role.secret",
	"ClusterRole":                      "steps.identity.role.clusterrole",
	"ClusterRoleBinding":               "steps.identity.role.clusterrolebinding",
	"Role":                             "steps.identity.role.role",
	"RoleBinding":                      "steps.identity.role.rolebinding",
	"ValidatingAdmissionPolicy":        "steps.identity.role.policy",
	"ValidatingAdmissionPolicyBinding": "steps.identity.role.binding",
}

// showIdentityPieces is showIdentity without --verbose: one line for each
// piece of the identity and what it is for, instead of the manifests and
// the commands that apply them.
func showIdentityPieces(sh shell, env *Lab) error {
	var lines []string
	marks := map[int]string{}
	for _, m := range identity.Manifests() {
		objs, err := identity.Objects(m)
		if err != nil {
			return err
		}
		for _, o := range objs {
			if id := identityRoles[o.GetKind()]; id != "" {
				marks[len(lines)] = say(id, "Namespace", identity.Namespace)
			}
			name := o.GetName()
			if ns := o.GetNamespace(); ns != "" {
				name = ns + "/" + name
			}
			lines = append(lines, o.GetKind()+" "+name)
		}
	}
	marks[len(lines)] = say("steps.identity.mark.kubeconfig")
	lines = append(lines, env.CredentialPath())
	if env.SystemUser() {
		marks[len(lines)] = say("steps.identity.mark.user", "Dir", env.ArchiveDir())
		lines = append(lines, "user "+service.User)
	}
	sh.block(say("steps.identity.heading"), lines, marks)
	return nil
}

// showIdentityProbe shows the proof that the identity is narrowed: as the
// service, a label on kube-system (a dry run) must be refused by the
// admission policy. The `!` is the shell's: the command is meant to fail.
func showIdentityProbe(sh shell, env *Lab, answer error) {
	// No --context: the service's kubeconfig has one context, its own.
	shell{p: sh.p}.cmd("! " + kubectl("--kubeconfig", env.CredentialPath(), "label", "namespace", "kube-system", identity.ProbeLabel, "--dry-run=server"))
	if answer == nil {
		sh.answer("namespace/kube-system labeled (server dry run)")
		return
	}
	sh.answer("Error from server (%s): %s", apierrors.ReasonForError(answer), answer)
}

// withoutComments is a YAML manifest without its comment lines and blank
// lines: the same objects, shorter to show.
func withoutComments(m []byte) []byte {
	var b bytes.Buffer
	for _, l := range strings.Split(string(m), "\n") {
		if t := strings.TrimSpace(l); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		b.WriteString(l + "\n")
	}
	return b.Bytes()
}

func pathExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
