package drift

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"

	"github.com/svcplane/svcplane/internal/registry"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// TestFieldLabelsMatchUpstream asks upstream's scheme (the field label
// conversion functions its install packages register, e.g.
// AddFieldLabelConversionsForService) and ours the same question for every
// served kind: every JSON field path of the kind up to three levels deep,
// every label any served kind accepts, and a few odd ones. The accepted
// label, the label it selects and the error text must be the same.
func TestFieldLabelsMatchUpstream(t *testing.T) {
	defs := registry.Definitions()
	ours := runtime.NewScheme()
	if err := resource.AddToScheme(ours, defs); err != nil {
		t.Fatal(err)
	}
	common := []string{"metadata.name", "metadata.namespace", "metadata.uid", "spec.host", "bogus", ""}
	for _, d := range defs {
		common = append(common, d.FieldLabelNames...)
		for l := range d.FieldLabelAliases {
			common = append(common, l)
		}
	}
	accepted := map[string][]string{}
	for _, d := range defs {
		gvk := d.GroupVersionKind()
		for _, label := range dedup(append(jsonPaths(reflect.TypeOf(d.New()).Elem(), "", 3), common...)) {
			want := answer(legacyscheme.Scheme.ConvertFieldLabel(gvk, label, "v"))
			got := answer(ours.ConvertFieldLabel(gvk, label, "v"))
			if got != want {
				t.Errorf("%s %q: ours %s, upstream %s", gvk, label, got, want)
			}
			if !strings.HasPrefix(want, "error") {
				accepted[gvk.String()] = append(accepted[gvk.String()], label)
			}
		}
	}
	for gvk, labels := range accepted {
		t.Logf("%s accepts %v", gvk, labels)
	}
}

func answer(label, value string, err error) string {
	if err != nil {
		return "error " + err.Error()
	}
	return label + "=" + value
}

// jsonPaths lists the dotted JSON paths of t's fields down to depth levels
// (not into slices or maps).
func jsonPaths(t reflect.Type, prefix string, depth int) []string {
	if depth == 0 || t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name == "-" {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if name == "" { // inline (TypeMeta)
			out = append(out, jsonPaths(ft, prefix, depth)...)
			continue
		}
		path := prefix + name
		out = append(out, path)
		out = append(out, jsonPaths(ft, path+".", depth-1)...)
	}
	return out
}

func dedup(in []string) []string {
	sort.Strings(in)
	out := in[:0]
	for i, s := range in {
		if i == 0 || s != in[i-1] {
			out = append(out, s)
		}
	}
	return out
}
