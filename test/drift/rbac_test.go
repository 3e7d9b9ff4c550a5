package drift

import (
	"context"
	"reflect"
	"sort"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/rbac"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	rbacvalidation "k8s.io/kubernetes/pkg/apis/rbac/validation"
	clusterrolestrategy "k8s.io/kubernetes/pkg/registry/rbac/clusterrole"
	clusterrolebindingstrategy "k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding"
	rolestrategy "k8s.io/kubernetes/pkg/registry/rbac/role"
	rolebindingstrategy "k8s.io/kubernetes/pkg/registry/rbac/rolebinding"

	"github.com/svcplane/svcplane/internal/registry/rbac/clusterrole"
	"github.com/svcplane/svcplane/internal/registry/rbac/clusterrolebinding"
	"github.com/svcplane/svcplane/internal/registry/rbac/role"
	"github.com/svcplane/svcplane/internal/registry/rbac/rolebinding"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// The RBAC cases are objects as clients send them (before defaulting).
// Each runs through upstream's rbac/v1 defaulting, conversion and
// validation (pkg/apis/rbac/validation) and through our definition; the
// defaulted objects, and the errors by path, type and detail, must agree.

var (
	readPods  = rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	healthz   = rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}
	alice     = rbacv1.Subject{Kind: "User", Name: "alice"}
	group     = rbacv1.Subject{Kind: "Group", Name: "devs"}
	sa        = rbacv1.Subject{Kind: "ServiceAccount", Name: "robot", Namespace: "ns"}
	roleRef   = rbacv1.RoleRef{Kind: "Role", Name: "r"}
	clusterRR = rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"}
)

func ruleCases() map[string][]rbacv1.PolicyRule {
	return map[string][]rbacv1.PolicyRule{
		"a resource rule":            {readPods},
		"no rules":                   nil,
		"empty verbs":                {{APIGroups: []string{""}, Resources: []string{"pods"}}},
		"no apiGroups":               {{Verbs: []string{"get"}, Resources: []string{"pods"}}},
		"no resources":               {{Verbs: []string{"get"}, APIGroups: []string{""}}},
		"an empty rule":              {{}},
		"nonResourceURLs":            {healthz},
		"nonResourceURLs, no verbs":  {{NonResourceURLs: []string{"/metrics"}}},
		"nonResourceURLs and groups": {{Verbs: []string{"get"}, NonResourceURLs: []string{"/x"}, APIGroups: []string{""}}},
		"resourceNames and nonResourceURLs": {{Verbs: []string{"get"}, NonResourceURLs: []string{"/x"},
			ResourceNames: []string{"a"}}},
		"resources and nonResourceURLs": {{Verbs: []string{"get"}, NonResourceURLs: []string{"/x"}, Resources: []string{"pods"}}},
		"resourceNames":                 {{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{"p"}}},
		"wildcards":                     {{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}},
		"second rule bad":               {readPods, {Verbs: []string{"get"}}},
	}
}

func metaCases() map[string]metav1.ObjectMeta {
	return map[string]metav1.ObjectMeta{
		"name with colons":    {Name: "system:controller:x"},
		"name with a slash":   {Name: "a/b"},
		"name with a percent": {Name: "a%b"},
		"name '.'":            {Name: "."},
		"name '..'":           {Name: ".."},
		"no name":             {},
		"generateName '.'":    {GenerateName: "."},
		"generateName with /": {GenerateName: "a/"},
		"uppercase name":      {Name: "Admin_Role"},
		"bad label":           {Name: "r", Labels: map[string]string{"bad key!": "x"}},
	}
}

func TestRBACRolesMatchUpstream(t *testing.T) {
	rdef, cdef := role.Definition(), clusterrole.Definition()
	check := func(t *testing.T, meta metav1.ObjectMeta, rules []rbacv1.PolicyRule, agg *rbacv1.AggregationRule) {
		cr := &rbacv1.ClusterRole{ObjectMeta: meta, Rules: rules, AggregationRule: agg}
		internalCR := &rbac.ClusterRole{}
		toInternal(t, cr.DeepCopy(), internalCR)
		sameRBACErrors(t, cdef, cr, rbacvalidation.ValidateClusterRole(internalCR, rbacvalidation.ClusterRoleValidationOptions{}))
		if agg != nil {
			return
		}
		meta.Namespace = "ns"
		r := &rbacv1.Role{ObjectMeta: meta, Rules: rules}
		internalR := &rbac.Role{}
		toInternal(t, r.DeepCopy(), internalR)
		sameRBACErrors(t, rdef, r, rbacvalidation.ValidateRole(internalR))
	}
	for name, rules := range ruleCases() {
		t.Run("rules/"+name, func(t *testing.T) { check(t, metav1.ObjectMeta{Name: "r"}, rules, nil) })
	}
	for name, meta := range metaCases() {
		t.Run("meta/"+name, func(t *testing.T) { check(t, meta, []rbacv1.PolicyRule{readPods}, nil) })
	}
	sel := func(m map[string]string, exprs ...metav1.LabelSelectorRequirement) metav1.LabelSelector {
		return metav1.LabelSelector{MatchLabels: m, MatchExpressions: exprs}
	}
	aggCases := map[string]*rbacv1.AggregationRule{
		"aggregation":                  {ClusterRoleSelectors: []metav1.LabelSelector{sel(map[string]string{"rbac.example.com/aggregate-to-view": "true"})}},
		"aggregation, no selectors":    {},
		"aggregation, bad label key":   {ClusterRoleSelectors: []metav1.LabelSelector{sel(map[string]string{"bad key!": "x"})}},
		"aggregation, bad label value": {ClusterRoleSelectors: []metav1.LabelSelector{sel(map[string]string{"k": "bad value!"})}},
		"aggregation, bad operator": {ClusterRoleSelectors: []metav1.LabelSelector{sel(nil,
			metav1.LabelSelectorRequirement{Key: "k", Operator: "Near", Values: []string{"v"}})}},
		"aggregation, In without values": {ClusterRoleSelectors: []metav1.LabelSelector{sel(nil,
			metav1.LabelSelectorRequirement{Key: "k", Operator: metav1.LabelSelectorOpIn})}},
		"aggregation, Exists with values": {ClusterRoleSelectors: []metav1.LabelSelector{sel(nil,
			metav1.LabelSelectorRequirement{Key: "k", Operator: metav1.LabelSelectorOpExists, Values: []string{"v"}})}},
		"aggregation, empty selector": {ClusterRoleSelectors: []metav1.LabelSelector{{}}},
	}
	for name, agg := range aggCases {
		t.Run(name, func(t *testing.T) { check(t, metav1.ObjectMeta{Name: "agg"}, nil, agg) })
	}
	t.Run("aggregation with rules", func(t *testing.T) {
		check(t, metav1.ObjectMeta{Name: "agg"}, []rbacv1.PolicyRule{readPods, healthz}, aggCases["aggregation"])
	})
	t.Run("aggregation with a bad rule", func(t *testing.T) {
		check(t, metav1.ObjectMeta{Name: "agg"}, []rbacv1.PolicyRule{{}}, aggCases["aggregation, no selectors"])
	})
}

// TestRBACClusterRoleUpdateMatchesUpstream: an update skips the value check
// of a selector expression the stored object already failed (upstream's
// strategy) but not the parse of the selector; a new bad value fails both.
func TestRBACClusterRoleUpdateMatchesUpstream(t *testing.T) {
	def := clusterrole.Definition()
	in := func(value string) *rbacv1.AggregationRule {
		return &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "k", Operator: metav1.LabelSelectorOpIn, Values: []string{value}}}}}}
	}
	bad, good := in("bad value!"), in("v")
	cases := map[string]struct{ old, new *rbacv1.AggregationRule }{
		"bad value kept":       {bad, bad},
		"bad value introduced": {good, bad},
		"bad value fixed":      {bad, good},
		"aggregation dropped":  {good, nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			meta := metav1.ObjectMeta{Name: "agg", ResourceVersion: "1"}
			old := &rbacv1.ClusterRole{ObjectMeta: meta, AggregationRule: c.old}
			obj := &rbacv1.ClusterRole{ObjectMeta: meta, AggregationRule: c.new}
			internalOld, internalNew := &rbac.ClusterRole{}, &rbac.ClusterRole{}
			toInternal(t, old.DeepCopy(), internalOld)
			toInternal(t, obj.DeepCopy(), internalNew)
			upstream := clusterrolestrategy.Strategy.ValidateUpdate(context.Background(), internalNew, internalOld)
			sameRBACUpdateErrors(t, def, obj, old, upstream)
		})
	}
}

func bindingCases() map[string]func(*rbacv1.RoleRef, *[]rbacv1.Subject) {
	return map[string]func(*rbacv1.RoleRef, *[]rbacv1.Subject){
		"user, group, service account": func(_ *rbacv1.RoleRef, s *[]rbacv1.Subject) { *s = []rbacv1.Subject{alice, group, sa} },
		"no subjects":                  func(_ *rbacv1.RoleRef, s *[]rbacv1.Subject) { *s = nil },
		"roleRef ClusterRole":          func(r *rbacv1.RoleRef, _ *[]rbacv1.Subject) { *r = clusterRR },
		"roleRef bad kind":             func(r *rbacv1.RoleRef, _ *[]rbacv1.Subject) { r.Kind = "Pod" },
		"roleRef no kind":              func(r *rbacv1.RoleRef, _ *[]rbacv1.Subject) { r.Kind = "" },
		"roleRef bad apiGroup":         func(r *rbacv1.RoleRef, _ *[]rbacv1.Subject) { r.APIGroup = "apps" },
		"roleRef no name":              func(r *rbacv1.RoleRef, _ *[]rbacv1.Subject) { r.Name = "" },
		"roleRef name with a slash":    func(r *rbacv1.RoleRef, _ *[]rbacv1.Subject) { r.Name = "a/b" },
		"roleRef name '..'":            func(r *rbacv1.RoleRef, _ *[]rbacv1.Subject) { r.Name = ".." },
		"subject bad kind": func(_ *rbacv1.RoleRef, s *[]rbacv1.Subject) {
			*s = []rbacv1.Subject{{Kind: "Robot", Name: "r2"}}
		},
		"subject no kind": func(_ *rbacv1.RoleRef, s *[]rbacv1.Subject) { *s = []rbacv1.Subject{{Name: "x"}} },
		"subject no name": func(_ *rbacv1.RoleRef, s *[]rbacv1.Subject) { *s = []rbacv1.Subject{{Kind: "User"}} },
		"service account without namespace": func(_ *rbacv1.RoleRef, s *[]rbacv1.Subject) {
			*s = []rbacv1.Subject{{Kind: "ServiceAccount", Name: "robot"}}
		},
		"service account bad name": func(_ *rbacv1.RoleRef, s *[]rbacv1.Subject) {
			*s = []rbacv1.Subject{{Kind: "ServiceAccount", Name: "Robot_1", Namespace: "ns"}}
		},
		"service account with rbac apiGroup": func(_ *rbacv1.RoleRef, s *[]rbacv1.Subject) {
			*s = []rbacv1.Subject{{Kind: "ServiceAccount", Name: "robot", Namespace: "ns", APIGroup: rbacv1.GroupName}}
		},
		"service account no name": func(_ *rbacv1.RoleRef, s *[]rbacv1.Subject) {
			*s = []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "ns"}}
		},
		"user bad apiGroup": func(_ *rbacv1.RoleRef, s *[]rbacv1.Subject) {
			*s = []rbacv1.Subject{{Kind: "User", Name: "bob", APIGroup: "apps"}}
		},
		"group bad apiGroup": func(_ *rbacv1.RoleRef, s *[]rbacv1.Subject) {
			*s = []rbacv1.Subject{{Kind: "Group", Name: "g", APIGroup: "v1"}}
		},
		"user with odd name": func(_ *rbacv1.RoleRef, s *[]rbacv1.Subject) {
			*s = []rbacv1.Subject{{Kind: "User", Name: "system:node:n1"}, {Kind: "User", Name: "Alice Smith/x"}}
		},
		"second subject bad": func(_ *rbacv1.RoleRef, s *[]rbacv1.Subject) {
			*s = []rbacv1.Subject{alice, {Kind: "ServiceAccount", Name: "robot", Namespace: "other"}, {Kind: "Bot"}}
		},
	}
}

func TestRBACBindingsMatchUpstream(t *testing.T) {
	rbdef, crbdef := rolebinding.Definition(), clusterrolebinding.Definition()
	check := func(t *testing.T, meta metav1.ObjectMeta, ref rbacv1.RoleRef, subjects []rbacv1.Subject) {
		meta.Namespace = "ns"
		rb := &rbacv1.RoleBinding{ObjectMeta: meta, RoleRef: ref, Subjects: subjects}
		theirs, ours := rb.DeepCopy(), rb.DeepCopy()
		legacyscheme.Scheme.Default(theirs)
		rbdef.Default(ours)
		if !reflect.DeepEqual(theirs, ours) {
			t.Errorf("RoleBinding defaults:\n upstream %+v\n ours     %+v", theirs, ours)
		}
		internal := &rbac.RoleBinding{}
		toInternal(t, theirs, internal)
		sameRBACErrors(t, rbdef, ours, rbacvalidation.ValidateRoleBinding(internal))

		meta.Namespace = ""
		crb := &rbacv1.ClusterRoleBinding{ObjectMeta: meta, RoleRef: ref, Subjects: subjects}
		ctheirs, cours := crb.DeepCopy(), crb.DeepCopy()
		legacyscheme.Scheme.Default(ctheirs)
		crbdef.Default(cours)
		if !reflect.DeepEqual(ctheirs, cours) {
			t.Errorf("ClusterRoleBinding defaults:\n upstream %+v\n ours     %+v", ctheirs, cours)
		}
		cinternal := &rbac.ClusterRoleBinding{}
		toInternal(t, ctheirs, cinternal)
		sameRBACErrors(t, crbdef, cours, rbacvalidation.ValidateClusterRoleBinding(cinternal))
	}
	for name, mutate := range bindingCases() {
		t.Run(name, func(t *testing.T) {
			ref, subjects := roleRef, []rbacv1.Subject{alice}
			mutate(&ref, &subjects)
			check(t, metav1.ObjectMeta{Name: "b"}, ref, subjects)
		})
	}
	for name, meta := range metaCases() {
		t.Run("meta/"+name, func(t *testing.T) { check(t, meta, clusterRR, []rbacv1.Subject{sa}) })
	}
}

// TestRBACBindingUpdatesMatchUpstream: roleRef is fixed once created; the
// subjects may change.
func TestRBACBindingUpdatesMatchUpstream(t *testing.T) {
	rbdef, crbdef := rolebinding.Definition(), clusterrolebinding.Definition()
	cases := map[string]func(*rbacv1.RoleRef, *[]rbacv1.Subject){
		"subjects changed":       func(_ *rbacv1.RoleRef, s *[]rbacv1.Subject) { *s = []rbacv1.Subject{group, sa} },
		"roleRef name changed":   func(r *rbacv1.RoleRef, _ *[]rbacv1.Subject) { r.Name = "edit" },
		"roleRef kind changed":   func(r *rbacv1.RoleRef, _ *[]rbacv1.Subject) { r.Kind = "Role" },
		"roleRef to a bad kind":  func(r *rbacv1.RoleRef, _ *[]rbacv1.Subject) { r.Kind = "Node" },
		"roleRef apiGroup empty": func(r *rbacv1.RoleRef, _ *[]rbacv1.Subject) { r.APIGroup = "" },
		"unchanged":              func(*rbacv1.RoleRef, *[]rbacv1.Subject) {},
		"bad subject added":      func(_ *rbacv1.RoleRef, s *[]rbacv1.Subject) { *s = append(*s, rbacv1.Subject{Kind: "X"}) },
	}
	ctx := context.Background()
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			meta := metav1.ObjectMeta{Name: "b", Namespace: "ns", ResourceVersion: "1"}
			old := &rbacv1.RoleBinding{ObjectMeta: meta, RoleRef: clusterRR, Subjects: []rbacv1.Subject{alice}}
			legacyscheme.Scheme.Default(old)
			ref, subjects := old.RoleRef, append([]rbacv1.Subject(nil), old.Subjects...)
			mutate(&ref, &subjects)
			obj := &rbacv1.RoleBinding{ObjectMeta: meta, RoleRef: ref, Subjects: subjects}
			theirs, ours := obj.DeepCopy(), obj.DeepCopy()
			legacyscheme.Scheme.Default(theirs)
			rbdef.Default(ours)
			internalOld, internalNew := &rbac.RoleBinding{}, &rbac.RoleBinding{}
			toInternal(t, old.DeepCopy(), internalOld)
			toInternal(t, theirs, internalNew)
			sameRBACUpdateErrors(t, rbdef, ours, old, rolebindingstrategy.Strategy.ValidateUpdate(ctx, internalNew, internalOld))

			meta.Namespace = ""
			cold := &rbacv1.ClusterRoleBinding{ObjectMeta: meta, RoleRef: old.RoleRef, Subjects: old.Subjects}
			cobj := &rbacv1.ClusterRoleBinding{ObjectMeta: meta, RoleRef: ref, Subjects: subjects}
			ctheirs, cours := cobj.DeepCopy(), cobj.DeepCopy()
			legacyscheme.Scheme.Default(ctheirs)
			crbdef.Default(cours)
			cinternalOld, cinternalNew := &rbac.ClusterRoleBinding{}, &rbac.ClusterRoleBinding{}
			toInternal(t, cold.DeepCopy(), cinternalOld)
			toInternal(t, ctheirs, cinternalNew)
			sameRBACUpdateErrors(t, crbdef, cours, cold, clusterrolebindingstrategy.Strategy.ValidateUpdate(ctx, cinternalNew, cinternalOld))
		})
	}
}

// TestRBACStrategiesMatchUpstream compares the strategy switches upstream's
// four strategies set with our definitions'.
func TestRBACStrategiesMatchUpstream(t *testing.T) {
	type strategy interface {
		NamespaceScoped() bool
		AllowCreateOnUpdate() bool
		AllowUnconditionalUpdate() bool
	}
	for _, c := range []struct {
		def      *resource.Definition
		upstream strategy
	}{
		{role.Definition(), rolestrategy.Strategy},
		{clusterrole.Definition(), clusterrolestrategy.Strategy},
		{rolebinding.Definition(), rolebindingstrategy.Strategy},
		{clusterrolebinding.Definition(), clusterrolebindingstrategy.Strategy},
	} {
		d, u := c.def, c.upstream
		if d.Namespaced != u.NamespaceScoped() || d.AllowCreateOnUpdate != u.AllowCreateOnUpdate() ||
			d.DisallowUnconditionalUpdate == u.AllowUnconditionalUpdate() || d.Status != nil || d.Generation {
			t.Errorf("%s: ours namespaced %v createOnUpdate %v unconditional %v status %v generation %v; upstream %v %v %v, no status, no generation",
				d.Kind, d.Namespaced, d.AllowCreateOnUpdate, !d.DisallowUnconditionalUpdate, d.Status != nil, d.Generation,
				u.NamespaceScoped(), u.AllowCreateOnUpdate(), u.AllowUnconditionalUpdate())
		}
	}
}

// sameRBACErrors is sameErrors comparing the detail too: the RBAC checks
// are few and their messages are what users read.
func sameRBACErrors(t *testing.T, def *resource.Definition, ours runtime.Object, upstream field.ErrorList) {
	t.Helper()
	compareDetails(t, ourErrors(t, def, ours), upstream)
}

// sameRBACUpdateErrors is sameUpdateErrors comparing the detail too.
// Upstream's ValidateXUpdate is its create validation (object meta
// included) plus ValidateObjectMetaUpdate plus the roleRef check: the same
// list as ours.
func sameRBACUpdateErrors(t *testing.T, def *resource.Definition, ours, old runtime.Object, upstream field.ErrorList) {
	t.Helper()
	compareDetails(t, ourUpdateErrors(t, def, ours, old), upstream)
}

func compareDetails(t *testing.T, ours, upstream field.ErrorList) {
	t.Helper()
	got, want := details(ours), details(upstream)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("details:\n ours     %q\n upstream %q", got, want)
	}
}

func details(errs field.ErrorList) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Field+": "+string(e.Type)+": "+e.Detail)
	}
	sort.Strings(out)
	return out
}
