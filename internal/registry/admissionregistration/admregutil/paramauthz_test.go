package admregutil

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// recorder allows what allow says and records what it was asked.
type recorder struct {
	allow func(a authorizer.Attributes) bool
	asked []authorizer.AttributesRecord
}

func (r *recorder) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	r.asked = append(r.asked, a.(authorizer.AttributesRecord))
	if r.allow(a) {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func guarded(r *recorder, paramKind *v1.ParamKind) []*resource.Definition {
	ok := func(context.Context, runtime.Object) field.ErrorList { return nil }
	defs := []*resource.Definition{
		Complete(&resource.Definition{Kind: "ValidatingAdmissionPolicy", Validate: ok}),
		Complete(&resource.Definition{Kind: "ValidatingAdmissionPolicyBinding", Validate: ok}),
		Complete(&resource.Definition{Kind: "MutatingAdmissionPolicyBinding", Validate: ok}),
	}
	a := &ParamAuthorizer{Authorizer: r,
		Resolve: func(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
			if gvk.Kind == "ConfigMap" {
				return gvk.GroupVersion().WithResource("configmaps"), nil
			}
			return schema.GroupVersionResource{}, errors.New("unknown kind")
		},
		ParamKindOf: func(_ context.Context, _ bool, name string) (*v1.ParamKind, error) {
			if name != "policy" {
				return nil, errors.New("not found")
			}
			return paramKind, nil
		},
	}
	a.Guard(defs)
	return defs
}

func as(name string, groups ...string) context.Context {
	return genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: name, Groups: groups})
}

func TestParamAuthorizerPolicy(t *testing.T) {
	r := &recorder{allow: func(a authorizer.Attributes) bool { return a.GetUser().GetName() == "reader" }}
	def := guarded(r, nil)[0]
	p := &v1.ValidatingAdmissionPolicy{Spec: v1.ValidatingAdmissionPolicySpec{ParamKind: &v1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}}}
	errs := def.Validate(as("bob"), p)
	if len(errs) != 1 || errs[0].Field != "spec.paramKind" || errs[0].Type != field.ErrorTypeForbidden ||
		!strings.Contains(errs[0].Detail, `must have "get" permission on all objects of the referenced paramKind (kind=ConfigMap, apiVersion=v1)`) {
		t.Errorf("bob: %v", errs)
	}
	want := authorizer.AttributesRecord{Verb: "get", ResourceRequest: true, Name: "*", Namespace: "*", APIGroup: "", APIVersion: "v1", Resource: "configmaps"}
	got := r.asked[0]
	got.User = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("asked %+v, want %+v", got, want)
	}
	if errs := def.Validate(as("reader"), p); len(errs) != 0 {
		t.Errorf("reader: %v", errs)
	}
	if errs := def.Validate(as("admin", user.SystemPrivilegedGroup), p); len(errs) != 0 {
		t.Errorf("system:masters: %v", errs)
	}
	r.asked = nil
	if errs := def.ValidateUpdate(as("bob"), p, p.DeepCopy()); len(errs) != 0 || len(r.asked) != 0 {
		t.Errorf("unchanged paramKind is not checked again: %v, asked %v", errs, r.asked)
	}
	if errs := def.Validate(as("bob"), &v1.ValidatingAdmissionPolicy{}); len(errs) != 0 {
		t.Errorf("no paramKind: %v", errs)
	}
}

func TestParamAuthorizerBinding(t *testing.T) {
	r := &recorder{allow: func(authorizer.Attributes) bool { return false }}
	defs := guarded(r, &v1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"})
	ref := &v1.ParamRef{Selector: &metav1.LabelSelector{}, Namespace: "ns", ParameterNotFoundAction: ptr.To(v1.DenyAction)}
	cases := []struct {
		def    *resource.Definition
		obj    runtime.Object
		verb   string
		detail string
	}{
		{defs[1], &v1.ValidatingAdmissionPolicyBinding{Spec: v1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "policy", ParamRef: ref}},
			"list", `user &{bob  [] map[]} does not have "list" permission on the object referenced by paramRef`},
		{defs[1], &v1.ValidatingAdmissionPolicyBinding{Spec: v1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "gone", ParamRef: ref}},
			"list", `unable to get policy gone to determine minimum required permissions`},
		{defs[2], &v1.MutatingAdmissionPolicyBinding{Spec: v1.MutatingAdmissionPolicyBindingSpec{PolicyName: "policy", ParamRef: &v1.ParamRef{Name: "p"}}},
			"get", `user get does not have "&{bob  [] map[]}" permission on the object referenced by paramRef`},
	}
	for _, c := range cases {
		r.asked = nil
		errs := c.def.Validate(as("bob"), c.obj)
		if len(errs) != 1 || errs[0].Field != "spec.paramRef" || !strings.Contains(errs[0].Detail, c.detail) {
			t.Errorf("%T: %v, want %q", c.obj, errs, c.detail)
		}
		if len(r.asked) != 1 || r.asked[0].Verb != c.verb {
			t.Errorf("%T: asked %+v, want verb %s", c.obj, r.asked, c.verb)
		}
	}
	if a := r.asked[0]; a.Resource != "configmaps" || a.Name != "p" {
		t.Errorf("mutating binding asked about %+v", a)
	}
}
