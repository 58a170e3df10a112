package labfile

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"cel.dev/cel-go/cel"
	celtypes "cel.dev/cel-go/common/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/labhub/cnpa/internal/i18n"
)

// A fact is read by one of a fixed set of verbs, each named for what it
// does to the cluster, never for a lab's step, and each implemented once.
// A verb's with values may say ${param}; manifest is a file of the lab.

// verb is a built-in verb: the with keys it needs and may take, and what
// it does. Its result is what a check reads as facts.<id>.
type verb struct {
	needs, may []string
	do         func(ctx context.Context, c *Cluster, with map[string]string) (map[string]any, error)
}

// verbs are the built-in verbs.
var verbs = map[string]verb{
	// get an object: {found, object}.
	"get": {needs: []string{"apiVersion", "kind", "name"}, may: []string{"namespace"}, do: getObject},
	// list objects: {count, items}.
	"list": {needs: []string{"apiVersion", "kind"}, may: []string{"namespace", "labelSelector"}, do: listObjects},
	// create a manifest as a server-side dry run: {admitted, message}.
	"try-create": {needs: []string{"manifest"}, may: []string{"namespace"}, do: tryCreate},
	// merge-patch an object as a server-side dry run: {admitted, message}.
	"try-patch": {needs: []string{"apiVersion", "kind", "name", "patch"}, may: []string{"namespace"}, do: tryPatch},
	// delete an object and time its return under a new uid:
	// {returned, seconds, deleted_uid, returned_uid}.
	"delete-and-time": {needs: []string{"apiVersion", "kind", "name"}, may: []string{"namespace", "timeout"}, do: deleteAndTime},
	// wait until an object meets a condition (CEL over found and
	// object), polling: {held, seconds, found, object}, the object as
	// last observed when the time is up.
	"wait-until": {needs: []string{"apiVersion", "kind", "name", "condition"}, may: []string{"namespace", "timeout"}, do: waitUntil},
}

// waitEnv is where a wait-until condition is compiled: the object as
// last read, and whether there was one.
var waitEnv = func() *cel.Env {
	env, err := cel.NewEnv(cel.Variable("found", cel.BoolType), cel.Variable("object", cel.MapType(cel.StringType, cel.DynType)))
	if err != nil {
		panic(err)
	}
	return env
}()

// VerbNames are the built-in verbs' names, sorted.
func VerbNames() []string { return sorted(keysOf(verbs)) }

// lintVerb refuses an unknown verb, a with key it does not take or lacks,
// a ${name} that is no parameter and a manifest the lab does not have.
func (l *Lab) lintVerb(ptr string, f Fact) Problems {
	v, ok := verbs[f.Verb]
	if !ok {
		return Problems{l.at(ptr+"/verb", "labfile.problem.verb", map[string]any{"Verb": f.Verb, "Verbs": strings.Join(VerbNames(), ", ")})}
	}
	var ps Problems
	for _, k := range v.needs {
		if _, ok := f.With[k]; !ok {
			ps = append(ps, l.at(ptr+"/verb", "labfile.problem.with", map[string]any{"Verb": f.Verb, "Key": k, "Keys": strings.Join(append(append([]string{}, v.needs...), v.may...), ", ")}))
		}
	}
	defaults := l.Defaults()
	for _, k := range sorted(keysOf(f.With)) {
		wp := ptr + "/with/" + escapePtr(k)
		if !contains(v.needs, k) && !contains(v.may, k) {
			ps = append(ps, l.at(wp, "labfile.problem.with", map[string]any{"Verb": f.Verb, "Key": k, "Keys": strings.Join(append(append([]string{}, v.needs...), v.may...), ", ")}))
			continue
		}
		s := fmt.Sprint(f.With[k])
		if _, missing := expand(s, defaults); len(missing) > 0 {
			ps = append(ps, l.at(wp, "labfile.problem.param", map[string]any{"Name": missing[0]}))
		}
		if k == "condition" {
			if _, cps := l.compile(waitEnv, wp, s, keys{}); len(cps) > 0 {
				for _, p := range cps {
					p.ID = "labfile.problem.condition" // its variables are not a check's
					ps = append(ps, p)
				}
			}
		}
		if k == "manifest" {
			if _, err := fs.Stat(l.FS, s); err != nil {
				ps = append(ps, l.at(wp, "labfile.problem.file", map[string]any{"File": s}))
			}
		}
	}
	return ps
}

// expand puts params in place of ${name} and $name in s; missing are the
// names that are no parameter.
func expand(s string, params map[string]string) (string, []string) {
	var missing []string
	out := os.Expand(s, func(name string) string {
		v, ok := params[name]
		if !ok {
			missing = append(missing, name)
			return "${" + name + "}"
		}
		return v
	})
	return out, missing
}

// Cluster is what the verbs act on: the API server's dynamic client and
// its resource mapping, the lab's files, and the parameters.
type Cluster struct {
	Dyn    dynamic.Interface
	Mapper meta.RESTMapper
	Lab    *Lab
	Params map[string]string
}

// resource is the client of apiVersion/kind objects in namespace.
func (c *Cluster) resource(apiVersion, kind, namespace string) (dynamic.ResourceInterface, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	m, err := c.Mapper.RESTMapping(gv.WithKind(kind).GroupKind(), gv.Version)
	if err != nil {
		return nil, err
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return c.Dyn.Resource(m.Resource).Namespace(namespace), nil
	}
	return c.Dyn.Resource(m.Resource), nil
}

// manifest reads a lab file of one object, its ${params} put in.
func (c *Cluster) manifest(file string) (*unstructured.Unstructured, error) {
	objs, err := c.manifests(file)
	if err != nil {
		return nil, err
	}
	if len(objs) != 1 {
		return nil, i18n.NewError("labfile.error.one_object", i18n.Args{"File": file, "N": len(objs)})
	}
	return objs[0], nil
}

// manifests reads a lab file of objects separated by ---, ${params} put in.
func (c *Cluster) manifests(file string) ([]*unstructured.Unstructured, error) {
	data, err := fs.ReadFile(c.Lab.FS, file)
	if err != nil {
		return nil, err
	}
	text, _ := expand(string(data), c.Params)
	var out []*unstructured.Unstructured
	for _, doc := range splitYAML(text) {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(obj) == 0 {
			continue
		}
		out = append(out, &unstructured.Unstructured{Object: obj})
	}
	return out, nil
}

// splitYAML splits a stream of YAML documents at its --- lines.
func splitYAML(s string) []string {
	var docs []string
	var cur strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if strings.TrimRight(line, " \t") == "---" {
			docs = append(docs, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteString(line + "\n")
	}
	return append(docs, cur.String())
}

// Apply applies the lab's resources, server-side, as field manager
// cnpa-lab.
func (c *Cluster) Apply(ctx context.Context) error {
	for _, file := range c.Lab.Resources {
		objs, err := c.manifests(file)
		if err != nil {
			return err
		}
		for _, o := range objs {
			r, err := c.resource(o.GetAPIVersion(), o.GetKind(), o.GetNamespace())
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			data, err := o.MarshalJSON()
			if err != nil {
				return err
			}
			force := true
			if _, err := r.Patch(ctx, o.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: "cnpa-lab", Force: &force}); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
		}
	}
	return nil
}

// Remove deletes the lab's resources, last first, without waiting.
func (c *Cluster) Remove(ctx context.Context) error {
	var errs []string
	for i := len(c.Lab.Resources) - 1; i >= 0; i-- {
		objs, err := c.manifests(c.Lab.Resources[i])
		if err != nil {
			return err
		}
		for j := len(objs) - 1; j >= 0; j-- {
			o := objs[j]
			r, err := c.resource(o.GetAPIVersion(), o.GetKind(), o.GetNamespace())
			if err == nil {
				err = r.Delete(ctx, o.GetName(), metav1.DeleteOptions{})
			}
			if err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, err.Error())
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// Fact runs f's verb.
func (c *Cluster) Fact(ctx context.Context, f Fact) (map[string]any, error) {
	with := map[string]string{}
	for k, v := range f.With {
		with[k], _ = expand(fmt.Sprint(v), c.Params)
	}
	return verbs[f.Verb].do(ctx, c, with)
}

func getObject(ctx context.Context, c *Cluster, w map[string]string) (map[string]any, error) {
	r, err := c.resource(w["apiVersion"], w["kind"], w["namespace"])
	if err != nil {
		return nil, err
	}
	o, err := r.Get(ctx, w["name"], metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return map[string]any{"found": false, "object": map[string]any{}}, nil
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"found": true, "object": o.Object}, nil
}

func listObjects(ctx context.Context, c *Cluster, w map[string]string) (map[string]any, error) {
	r, err := c.resource(w["apiVersion"], w["kind"], w["namespace"])
	if err != nil {
		return nil, err
	}
	list, err := r.List(ctx, metav1.ListOptions{LabelSelector: w["labelSelector"]})
	if err != nil {
		return nil, err
	}
	items := []any{}
	for _, o := range list.Items {
		items = append(items, o.Object)
	}
	sort.Slice(items, func(i, j int) bool {
		return fmt.Sprint(items[i].(map[string]any)["metadata"]) < fmt.Sprint(items[j].(map[string]any)["metadata"])
	})
	return map[string]any{"count": int64(len(items)), "items": items}, nil
}

// admission is a dry run's answer: admitted, or refused and why. An error
// that is no answer of admission (the API server unreachable) is the
// verb's error.
func admission(err error) (map[string]any, error) {
	if err == nil {
		return map[string]any{"admitted": true, "message": ""}, nil
	}
	if _, ok := err.(apierrors.APIStatus); ok {
		return map[string]any{"admitted": false, "message": err.Error()}, nil
	}
	return nil, err
}

func tryCreate(ctx context.Context, c *Cluster, w map[string]string) (map[string]any, error) {
	o, err := c.manifest(w["manifest"])
	if err != nil {
		return nil, err
	}
	ns := w["namespace"]
	if ns == "" {
		ns = o.GetNamespace()
	}
	o.SetNamespace(ns)
	r, err := c.resource(o.GetAPIVersion(), o.GetKind(), ns)
	if err != nil {
		return nil, err
	}
	_, err = r.Create(ctx, o, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return admission(err)
}

func tryPatch(ctx context.Context, c *Cluster, w map[string]string) (map[string]any, error) {
	r, err := c.resource(w["apiVersion"], w["kind"], w["namespace"])
	if err != nil {
		return nil, err
	}
	_, err = r.Patch(ctx, w["name"], types.MergePatchType, []byte(w["patch"]), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
	return admission(err)
}

// timeoutOf is with's timeout in seconds, or def.
func timeoutOf(w map[string]string, def time.Duration) (time.Duration, error) {
	s := w["timeout"]
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("timeout %q: %w", s, err)
	}
	return time.Duration(n) * time.Second, nil
}

func waitUntil(ctx context.Context, c *Cluster, w map[string]string) (map[string]any, error) {
	r, err := c.resource(w["apiVersion"], w["kind"], w["namespace"])
	if err != nil {
		return nil, err
	}
	timeout, err := timeoutOf(w, 30*time.Second)
	if err != nil {
		return nil, err
	}
	a, iss := waitEnv.Compile(w["condition"])
	if iss != nil && iss.Err() != nil {
		return nil, iss.Err()
	}
	prog, err := waitEnv.Program(a)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	out := map[string]any{"held": false, "found": false, "object": map[string]any{}}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		o, err := r.Get(ctx, w["name"], metav1.GetOptions{})
		switch {
		case err == nil:
			out["found"], out["object"] = true, o.Object
		case apierrors.IsNotFound(err):
			out["found"], out["object"] = false, map[string]any{}
		default:
			return nil, err
		}
		out["seconds"] = int64(time.Since(start).Seconds())
		// A condition that cannot be evaluated on this object (a field
		// not there yet) does not hold yet.
		if v, _, err := prog.Eval(map[string]any{"found": out["found"], "object": out["object"]}); err == nil && v == celtypes.True {
			out["held"] = true
			return out, nil
		}
		if time.Since(start) >= timeout {
			return out, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

func deleteAndTime(ctx context.Context, c *Cluster, w map[string]string) (map[string]any, error) {
	r, err := c.resource(w["apiVersion"], w["kind"], w["namespace"])
	if err != nil {
		return nil, err
	}
	timeout, err := timeoutOf(w, 30*time.Second)
	if err != nil {
		return nil, err
	}
	old, err := r.Get(ctx, w["name"], metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := r.Delete(ctx, w["name"], metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return nil, err
	}
	out := map[string]any{"returned": false, "seconds": int64(-1), "deleted_uid": string(old.GetUID()), "returned_uid": ""}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for time.Since(start) < timeout {
		o, err := r.Get(ctx, w["name"], metav1.GetOptions{})
		if err == nil && o.GetUID() != old.GetUID() {
			out["returned"], out["seconds"], out["returned_uid"] = true, int64(time.Since(start).Seconds()), string(o.GetUID())
			return out, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
	return out, nil
}
