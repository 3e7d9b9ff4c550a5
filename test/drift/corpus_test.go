package drift

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"sigs.k8s.io/yaml"

	"github.com/svcplane/svcplane/internal/apiserver"
	"github.com/svcplane/svcplane/internal/registry"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// corpusFile is one file of testdata/corpus: the cases of one kind.
type corpusFile struct {
	// Kind names the entry of corpusKinds the cases are of.
	Kind  string       `json:"kind"`
	Cases []corpusCase `json:"cases"`
}

// corpusCase is one object as a client sends it (apiVersion and kind
// may be left out: the file's kind is assumed), and for an update the
// stored object it replaces.
type corpusCase struct {
	Name   string          `json:"name"`
	Object json.RawMessage `json:"object"`
	Old    json.RawMessage `json:"old,omitempty"`
}

// outcome is what a client sees of one create or update, and the object
// after defaulting.
type outcome struct {
	defaulted string
	errs      []string
}

// TestCorpusMatchesUpstream runs every case of testdata/corpus through
// upstream's defaulting (legacyscheme) and, converted to the internal
// type, upstream's registry strategy for the kind; and through
// svcplane's scheme and the strategy its generic store uses. Both sides
// go through the generic registry's rest.BeforeCreate / BeforeUpdate, so
// what differs is the strategies only. The defaulted objects (JSON) and
// the error causes (field, type, message) must be equal.
func TestCorpusMatchesUpstream(t *testing.T) {
	ours := newOurSide(t)
	files, err := filepath.Glob("testdata/corpus/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	total := 0
	for _, file := range files {
		cf := readCorpus(t, file)
		k, ok := corpusKinds[cf.Kind]
		if !ok {
			t.Fatalf("%s: unknown kind %q", file, cf.Kind)
		}
		seen := map[string]bool{}
		for _, c := range cf.Cases {
			if seen[c.Name] {
				t.Fatalf("%s: case %q twice", file, c.Name)
			}
			seen[c.Name] = true
			total++
			t.Run(cf.Kind+"/"+c.Name, func(t *testing.T) {
				theirs := runUpstream(t, k, c)
				mine := ours.run(t, k, c)
				compareOutcomes(t, theirs, mine)
			})
		}
	}
	t.Logf("%d corpus cases", total)
}

func readCorpus(t *testing.T, file string) corpusFile {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cf corpusFile
	if err := yaml.UnmarshalStrict(data, &cf); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return cf
}

// decode reads a case's object into a fresh external object of k's kind,
// as the API server's decoder does before defaulting.
func decode(t *testing.T, k corpusKind, raw json.RawMessage) runtime.Object {
	t.Helper()
	obj := k.newExternal()
	if err := json.Unmarshal(raw, obj); err != nil {
		t.Fatalf("decode: %v", err)
	}
	gvk := k.gvk
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj
}

// runUpstream is kube-apiserver 1.36's create or update of the case.
func runUpstream(t *testing.T, k corpusKind, c corpusCase) outcome {
	t.Helper()
	obj := decode(t, k, c.Object)
	legacyscheme.Scheme.Default(obj)
	internal := toUpstreamInternal(t, k, obj)
	// What kube-apiserver stores is the internal object converted back
	// (conversion fills some fields, e.g. a pod's serviceAccount).
	out := outcome{defaulted: serialize(t, fromUpstreamInternal(t, k, internal))}
	ctx := requestContext(k)
	if c.Old == nil {
		out.errs = causes(t, rest.BeforeCreate(k.upstream, ctx, prepareSystemFields(t, internal)))
		return out
	}
	old := decode(t, k, c.Old)
	legacyscheme.Scheme.Default(old)
	oldInternal := toUpstreamInternal(t, k, old)
	out.errs = causes(t, rest.BeforeUpdate(k.upstream, ctx, internal, prepareSystemFields(t, oldInternal)))
	return out
}

func toUpstreamInternal(t *testing.T, k corpusKind, obj runtime.Object) runtime.Object {
	t.Helper()
	internal, err := legacyscheme.Scheme.ConvertToVersion(obj.DeepCopyObject(), k.gvk.GroupKind().WithVersion(runtime.APIVersionInternal).GroupVersion())
	if err != nil {
		t.Fatalf("upstream conversion: %v", err)
	}
	return internal
}

func fromUpstreamInternal(t *testing.T, k corpusKind, internal runtime.Object) runtime.Object {
	t.Helper()
	obj, err := legacyscheme.Scheme.ConvertToVersion(internal.DeepCopyObject(), k.gvk.GroupVersion())
	if err != nil {
		t.Fatalf("upstream conversion back: %v", err)
	}
	return obj
}

// ourSide is svcplane's scheme and the strategies of its generic stores.
type ourSide struct {
	scheme *runtime.Scheme
	defs   map[string]*resource.Definition
}

func newOurSide(t *testing.T) ourSide {
	defs := registry.Definitions()
	scheme, err := apiserver.NewScheme(defs)
	if err != nil {
		t.Fatal(err)
	}
	byGVK := map[string]*resource.Definition{}
	for _, d := range defs {
		byGVK[d.GroupVersionKind().String()] = d
	}
	return ourSide{scheme: scheme, defs: byGVK}
}

// run is svcplane's create or update of the case.
func (s ourSide) run(t *testing.T, k corpusKind, c corpusCase) outcome {
	t.Helper()
	def := s.defs[k.gvk.String()]
	if def == nil {
		t.Fatalf("svcplane serves no %s", k.gvk)
	}
	strategy := resource.NewStrategy(s.scheme, def)
	obj := decode(t, k, c.Object)
	s.scheme.Default(obj)
	out := outcome{defaulted: serialize(t, obj)}
	ctx := requestContext(k)
	if c.Old == nil {
		out.errs = causes(t, rest.BeforeCreate(strategy, ctx, prepareSystemFields(t, obj)))
		return out
	}
	old := decode(t, k, c.Old)
	s.scheme.Default(old)
	out.errs = causes(t, rest.BeforeUpdate(strategy, ctx, obj, prepareSystemFields(t, old)))
	return out
}

// requestContext is the context of a request to the object's namespace
// ("ns": the corpus puts namespaced objects there).
func requestContext(k corpusKind) context.Context {
	ctx := genericapirequest.NewContext()
	if k.namespaced {
		ctx = genericapirequest.WithNamespace(ctx, "ns")
	}
	return ctx
}

// prepareSystemFields sets uid and creationTimestamp as the generic store
// does before rest.BeforeCreate (and as a stored object has them).
func prepareSystemFields(t *testing.T, obj runtime.Object) runtime.Object {
	t.Helper()
	m, err := meta.Accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	rest.FillObjectMetaSystemFields(m)
	m.SetUID("8a0e3b1c-0000-4000-8000-000000000001")
	return obj
}

func serialize(t *testing.T, obj runtime.Object) string {
	t.Helper()
	data, err := json.MarshalIndent(obj, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// causes reduces a create's or update's error to what a client sees of
// it: the sorted causes ("field | type | message") of an Invalid error,
// the whole status message of any other.
func causes(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	status, ok := err.(apierrors.APIStatus)
	if !ok || status.Status().Reason != "Invalid" || status.Status().Details == nil {
		return []string{fmt.Sprintf("(%T) %v", err, err)}
	}
	var out []string
	for _, c := range status.Status().Details.Causes {
		out = append(out, fmt.Sprintf("%s | %s | %s", c.Field, c.Type, c.Message))
	}
	sort.Strings(out)
	return out
}

func compareOutcomes(t *testing.T, upstream, ours outcome) {
	t.Helper()
	if upstream.defaulted != ours.defaulted {
		t.Errorf("defaulted object differs (-upstream +svcplane):\n%s",
			cmp.Diff(strings.Split(upstream.defaulted, "\n"), strings.Split(ours.defaulted, "\n")))
	}
	if strings.Join(upstream.errs, "\n") != strings.Join(ours.errs, "\n") {
		t.Errorf("errors differ\n--- upstream\n  %s\n--- svcplane\n  %s",
			strings.Join(upstream.errs, "\n  "), strings.Join(ours.errs, "\n  "))
	}
}
