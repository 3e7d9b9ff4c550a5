package drift

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	storagenames "k8s.io/apiserver/pkg/storage/names"
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
	// Subresource "status" makes the case an update of old's status
	// ("approval": of a CertificateSigningRequest's approval).
	Subresource string `json:"subresource,omitempty"`
	// Pending, when set, is the written reason svcplane still differs
	// from upstream on this case. The case still runs: it must still
	// differ (a fix makes the test fail until the marker is removed).
	Pending string `json:"pending,omitempty"`
}

// outcome is what a client sees of one create or update: the errors, or
// the object as it would be stored (defaulted and prepared by the
// strategy).
type outcome struct {
	stored string
	errs   []string
}

// TestCorpusMatchesUpstream runs every case of testdata/corpus through
// upstream's defaulting (legacyscheme) and, converted to the internal
// type, upstream's registry strategy for the kind; and through
// svcplane's scheme and the strategy its generic store uses. Both sides
// go through the generic registry's rest.BeforeCreate / BeforeUpdate, so
// what differs is the strategies only. The defaulted objects (JSON) and
// the error causes (field, type, message) must be equal, and so must the
// objects as they would be stored (JSON of the external type, after
// defaulting and the strategy's PrepareForCreate/PrepareForUpdate).
func TestCorpusMatchesUpstream(t *testing.T) {
	ours := newOurSide(t)
	files, err := filepath.Glob("testdata/corpus/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	total, pending := 0, 0
	for _, file := range files {
		cf := readCorpus(t, file)
		k, ok := corpusKinds[cf.Kind]
		if !ok {
			t.Fatalf("%s: unknown kind %q", file, cf.Kind)
		}
		k.status = upstreamStatus[cf.Kind]
		k.approval = upstreamApproval[cf.Kind]
		seen := map[string]bool{}
		accepted, rejected := 0, 0
		for _, c := range cf.Cases {
			if seen[c.Name] {
				t.Fatalf("%s: case %q twice", file, c.Name)
			}
			seen[c.Name] = true
			if c.Subresource != "" && (c.Old == nil || k.subresource(c.Subresource) == nil) {
				t.Fatalf("%s: case %q: a subresource update needs an old object and a kind with that subresource", file, c.Name)
			}
			total++
			t.Run(cf.Kind+"/"+c.Name, func(t *testing.T) {
				theirs := runUpstream(t, k, c)
				mine := ours.run(t, k, c)
				if len(theirs.errs) == 0 {
					accepted++
				} else {
					rejected++
				}
				diff := compareOutcomes(theirs, mine)
				switch {
				case c.Pending == "" && diff != "":
					t.Error(diff)
				case c.Pending != "" && diff == "":
					t.Errorf("matches upstream now: remove its pending marker (%s)", c.Pending)
				case c.Pending != "":
					pending++
					t.Logf("pending: %s\n%s", c.Pending, diff)
				}
			})
		}
		// A file tells valid objects from invalid ones only if it has both.
		if accepted == 0 || rejected == 0 {
			t.Errorf("%s: upstream accepts %d cases and rejects %d; a kind needs both", file, accepted, rejected)
		}
		t.Logf("%s: %d cases, upstream accepts %d and rejects %d", cf.Kind, len(cf.Cases), accepted, rejected)
	}
	t.Logf("%d corpus cases, %d of them pending", total, pending)
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
	ctx := requestContext(k, obj)
	legacyscheme.Scheme.Default(obj)
	internal := toUpstreamInternal(t, k, obj)
	var err error
	if c.Old == nil {
		err = rest.BeforeCreate(k.upstream, ctx, prepareSystemFields(t, internal, k.upstream))
	} else {
		old := decode(t, k, c.Old)
		legacyscheme.Scheme.Default(old)
		var strategy rest.RESTUpdateStrategy = k.upstream
		if c.Subresource != "" {
			strategy = k.subresource(c.Subresource)
		}
		err = rest.BeforeUpdate(strategy, ctx, internal, prepareSystemFields(t, toUpstreamInternal(t, k, old), k.upstream))
	}
	// What kube-apiserver stores is the internal object converted back
	// (conversion fills some fields, e.g. a pod's serviceAccount).
	return outcome{stored: serialize(t, fromUpstreamInternal(t, k, internal)), errs: causes(t, err)}
}

// toUpstreamInternal converts as kube-apiserver's decoder does: without a
// copy, so maps a defaulter shared stay shared (a Job's labels defaulted
// from its template's get the generated selector's labels too).
func toUpstreamInternal(t *testing.T, k corpusKind, obj runtime.Object) runtime.Object {
	t.Helper()
	internal, err := legacyscheme.Scheme.UnsafeConvertToVersion(obj, k.gvk.GroupKind().WithVersion(runtime.APIVersionInternal).GroupVersion())
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
	ctx := requestContext(k, obj)
	s.scheme.Default(obj)
	var err error
	if c.Old == nil {
		err = rest.BeforeCreate(strategy, ctx, prepareSystemFields(t, obj, strategy))
	} else {
		old := decode(t, k, c.Old)
		s.scheme.Default(old)
		var update rest.RESTUpdateStrategy = strategy
		switch c.Subresource {
		case "status":
			update = resource.NewStatusStrategy(s.scheme, def)
		case "approval":
			update = resource.NewSubresourceStrategy(s.scheme, def, c.Subresource)
		}
		err = rest.BeforeUpdate(update, ctx, obj, prepareSystemFields(t, old, strategy))
	}
	return outcome{stored: serialize(t, obj), errs: causes(t, err)}
}

// requestContext is the context of a request to the object's namespace,
// as a client sends it (to "ns" when the object names none).
func requestContext(k corpusKind, obj runtime.Object) context.Context {
	ctx := genericapirequest.WithRequestInfo(genericapirequest.NewContext(), &genericapirequest.RequestInfo{
		IsResourceRequest: true, APIGroup: k.gvk.Group, APIVersion: k.gvk.Version,
	})
	if k.namespaced {
		ns := "ns"
		if m, err := meta.Accessor(obj); err == nil && m.GetNamespace() != "" {
			ns = m.GetNamespace()
		}
		return genericapirequest.WithNamespace(ctx, ns)
	}
	return genericapirequest.WithNamespace(ctx, metav1.NamespaceNone)
}

// prepareSystemFields sets uid and creationTimestamp as the generic store
// does before rest.BeforeCreate (and as a stored object has them), and
// generates the name from generateName with the strategy's generator (a
// random suffix is made "abcde").
func prepareSystemFields(t *testing.T, obj runtime.Object, gen storagenames.NameGenerator) runtime.Object {
	t.Helper()
	m, err := meta.Accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	if base := m.GetGenerateName(); base != "" && m.GetName() == "" {
		m.SetName(gen.GenerateName(base))
		if m.GetName() != base {
			m.SetName(base + "abcde")
		}
	}
	m.SetCreationTimestamp(fixedTime)
	m.SetUID("8a0e3b1c-0000-4000-8000-000000000001")
	return obj
}

// fixedTime stands for "now" in the objects compared.
var fixedTime = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))

// transitionTime matches the times a strategy sets from the clock
// (condition transitions), which differ between two runs.
var transitionTime = regexp.MustCompile(`"lastTransitionTime": "[^"]*"`)

func serialize(t *testing.T, obj runtime.Object) string {
	t.Helper()
	data, err := json.MarshalIndent(obj, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return transitionTime.ReplaceAllString(string(data), `"lastTransitionTime": "(now)"`)
}

// causes reduces a create's or update's error to what a client sees of
// it: the sorted causes ("field | type | message") of an Invalid error,
// the whole status message of any other.
func causes(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	if apierrors.IsInternalError(err) {
		t.Errorf("internal error (a 500 for the client): %v", err)
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

// compareOutcomes describes how ours differs from upstream ("" when not).
func compareOutcomes(upstream, ours outcome) string {
	var b strings.Builder
	if upstream.stored != ours.stored {
		fmt.Fprintf(&b, "stored object differs (-upstream +svcplane):\n%s",
			cmp.Diff(strings.Split(upstream.stored, "\n"), strings.Split(ours.stored, "\n")))
	}
	if strings.Join(upstream.errs, "\n") != strings.Join(ours.errs, "\n") {
		fmt.Fprintf(&b, "errors differ\n--- upstream\n  %s\n--- svcplane\n  %s",
			strings.Join(upstream.errs, "\n  "), strings.Join(ours.errs, "\n  "))
	}
	return b.String()
}
