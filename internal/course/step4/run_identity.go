package step4

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
	"github.com/labhub/cnpa/internal/steps"
)

// showIdentity shows the provisioning of the service's own identity.
func showIdentity(sh steps.Shell, env *steps.Lab) error {
	if !sh.Verbose() {
		return showIdentityPieces(sh, env)
	}
	sh.Comment("%s", steps.Say("steps.identity.verbose", "SA", identity.Namespace+"/"+identity.ServiceAccount))
	for _, m := range identity.Manifests() {
		objs, err := identity.Objects(m)
		if err != nil {
			return err
		}
		sh.Cmd(steps.StdinHeredoc(steps.Kubectl("apply", "--server-side", "--field-manager="+identity.FieldManager, "--force-conflicts", "-f", "-"), withoutComments(m)))
		for _, o := range objs {
			sh.Answer("%s serverside-applied", o.KubectlName())
		}
	}
	secret := steps.Obj{Resource: "secret", Name: identity.TokenSecret, NS: identity.Namespace}
	sh.Comment("%s", steps.Say("steps.identity.token", "Secret", identity.Namespace+"/"+identity.TokenSecret))
	sh.WaitCmd(steps.Until(`[ -n "$(` + steps.GetCmd(secret, "{.data.token}") + ` 2>/dev/null)" ]`))
	sh.Cmd("secret=$(" + steps.Kubectl(append(append([]string{"get"}, secret.Args()...), "-o", "json")...) + ")")
	sh.Comment("%s", steps.Say("steps.identity.kubeconfig"))
	sh.Cmd(`(umask 077; kubectl config view --raw --minify --flatten -o json | jq --argjson secret "$secret" ` +
		steps.Quote(identity.KubeconfigJQ) + " > " + steps.Quote(env.CredentialPath()) + ")")
	if !env.SystemUser() {
		return nil
	}
	user := service.User + ":" + service.User
	sh.Cmd("getent passwd " + service.User + " >/dev/null || " + steps.Words(service.UserAdd()...))
	sh.Cmd(steps.Words("mkdir", "-p", env.ArchiveDir()) + " && " + steps.Words("chown", user, env.ArchiveDir()))
	// Only what cnpa made there, never -R (labenv.GiveArchiveDir says why).
	if own := filepath.Join(env.ArchiveDir(), manifest.OwnDir); pathExists(own) {
		args := []string{"chown", "-h", user, own}
		if m := filepath.Join(env.ArchiveDir(), manifest.File); pathExists(m) {
			args = append(args, m)
		}
		sh.Cmd(steps.Words(args...))
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
func showIdentityPieces(sh steps.Shell, env *steps.Lab) error {
	var lines []string
	marks := map[int]string{}
	for _, m := range identity.Manifests() {
		objs, err := identity.Objects(m)
		if err != nil {
			return err
		}
		for _, o := range objs {
			if id := identityRoles[o.GetKind()]; id != "" {
				marks[len(lines)] = steps.Say(id, "Namespace", identity.Namespace)
			}
			name := o.GetName()
			if ns := o.GetNamespace(); ns != "" {
				name = ns + "/" + name
			}
			lines = append(lines, o.GetKind()+" "+name)
		}
	}
	marks[len(lines)] = steps.Say("steps.identity.mark.kubeconfig")
	lines = append(lines, env.CredentialPath())
	if env.SystemUser() {
		marks[len(lines)] = steps.Say("steps.identity.mark.user", "Dir", env.ArchiveDir())
		lines = append(lines, "user "+service.User)
	}
	sh.Block(steps.Say("steps.identity.heading"), lines, marks)
	return nil
}

// showIdentityProbe shows the proof that the identity is narrowed: as the
// service, a label on kube-system (a dry run) must be refused by the
// admission policy. The `!` is the shell's: the command is meant to fail.
func showIdentityProbe(sh steps.Shell, env *steps.Lab, answer error) {
	// No --context: the service's kubeconfig has one context, its own.
	sh.WithoutContext().Cmd("! " + steps.Kubectl("--kubeconfig", env.CredentialPath(), "label", "namespace", "kube-system", identity.ProbeLabel, "--dry-run=server"))
	if answer == nil {
		sh.Answer("namespace/kube-system labeled (server dry run)")
		return
	}
	sh.Answer("Error from server (%s): %s", apierrors.ReasonForError(answer), answer)
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
