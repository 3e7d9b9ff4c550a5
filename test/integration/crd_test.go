package integration

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	restclient "k8s.io/client-go/rest"
)

// widgetsCRD has a structural schema with defaults, a CEL rule, the status
// and scale subresources and printer columns.
const widgetsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.crd.it.example.com
spec:
  group: crd.it.example.com
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList, shortNames: [wdg]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Color, type: string, jsonPath: .spec.color}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: What the widget should be.
            x-kubernetes-validations:
            - rule: "self.replicas <= self.maxReplicas"
              message: "replicas must not exceed maxReplicas"
            properties:
              replicas: {type: integer, default: 1}
              maxReplicas: {type: integer, default: 10, description: The most replicas the widget may have.}
              color: {type: string, default: blue}
          status:
            type: object
            properties:
              replicas: {type: integer}
`

var widgetsGVR = schema.GroupVersionResource{Group: "crd.it.example.com", Version: "v1", Resource: "widgets"}

func widget(name string, spec map[string]interface{}) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "crd.it.example.com/v1", "kind": "Widget",
		"metadata": map[string]interface{}{"name": name}, "spec": spec,
	}}
}

// TestCustomResourceDefinition creates a CRD and checks what its custom
// resources get from the server: discovery, pruning, defaulting, field
// validation (Strict, Warn, Ignore), a CEL rule, the status and scale
// subresources, printer columns, OpenAPI v2/v3 (kubectl explain) and
// server-side apply.
func TestCustomResourceDefinition(t *testing.T) {
	skipShort(t)
	took := createCRD(t, decodeCRD(t, widgetsCRD))
	t.Logf("widgets in aggregated and legacy discovery %v after the CRD was created", took.Round(time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("discovery took %v", took)
	}
	ns := newNamespace(t, server.Client)
	warn := &warningRecorder{}
	widgets := crdDynamicClient(t, warn).Resource(widgetsGVR).Namespace(ns)

	t.Run("pruning, defaulting and field validation", func(t *testing.T) {
		checkFieldValidation(t, ns, widgets, warn)
	})
	t.Run("CEL rule", func(t *testing.T) {
		_, err := widgets.Create(ctx, widget("too-many", map[string]interface{}{"replicas": int64(11)}), metav1.CreateOptions{})
		status, ok := err.(apierrors.APIStatus)
		if !ok || status.Status().Code != http.StatusUnprocessableEntity {
			t.Fatalf("replicas > maxReplicas: want 422, got %v", err)
		}
		causes := status.Status().Details.Causes
		if len(causes) != 1 || causes[0].Field != "spec" || !strings.Contains(causes[0].Message, "replicas must not exceed maxReplicas") {
			t.Fatalf("causes %+v", causes)
		}
	})
	t.Run("status subresource", func(t *testing.T) {
		checkStatusSubresource(t, widgets)
	})
	t.Run("scale subresource and printer columns with kubectl", func(t *testing.T) {
		get(widgets.Create(ctx, widget("scaled", map[string]interface{}{"replicas": int64(2)}), metav1.CreateOptions{}))(t)
		crdMustKubectl(t, "-n", ns, "scale", "widget", "scaled", "--replicas=4")
		scale := get(widgets.Get(ctx, "scaled", metav1.GetOptions{}, "scale"))(t)
		if r, _, _ := unstructured.NestedInt64(scale.Object, "spec", "replicas"); r != 4 || scale.GetKind() != "Scale" {
			t.Fatalf("scale after kubectl scale: %v", scale.Object)
		}
		out := crdMustKubectl(t, "-n", ns, "get", "wdg", "scaled")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		// The printer columns replace the default Age column.
		if len(lines) != 2 || !slices.Equal(strings.Fields(lines[0]), []string{"NAME", "REPLICAS", "COLOR"}) ||
			!slices.Equal(strings.Fields(lines[1])[:3], []string{"scaled", "4", "blue"}) {
			t.Fatalf("kubectl get wdg:\n%s", out)
		}
		// Over maxReplicas through /scale: the CEL rule still applies.
		if out, err := crdKubectl(t, "-n", ns, "scale", "widget", "scaled", "--replicas=40"); err == nil ||
			!strings.Contains(out, "replicas must not exceed maxReplicas") {
			t.Fatalf("kubectl scale past maxReplicas: %v\n%s", err, out)
		}
	})
	t.Run("OpenAPI v2 and v3, kubectl explain", func(t *testing.T) {
		checkOpenAPI(t)
	})
	t.Run("authorization and admission", func(t *testing.T) {
		checkAuthorizationAndAdmission(t, ns)
	})
	t.Run("server-side apply with kubectl", func(t *testing.T) {
		manifest := filepath.Join(t.TempDir(), "w.yaml")
		noErr(t, os.WriteFile(manifest, []byte("apiVersion: crd.it.example.com/v1\nkind: Widget\nmetadata: {name: applied}\nspec: {replicas: 3, color: red}\n"), 0o600))
		crdMustKubectl(t, "-n", ns, "apply", "--server-side", "-f", manifest)
		w := get(widgets.Get(ctx, "applied", metav1.GetOptions{}))(t)
		var managers []string
		for _, m := range w.GetManagedFields() {
			managers = append(managers, m.Manager+"/"+string(m.Operation))
		}
		if !slices.Contains(managers, "kubectl/Apply") {
			t.Fatalf("managed fields %v: want kubectl/Apply", managers)
		}
		// Another manager taking spec.color conflicts.
		conflicting := widget("applied", map[string]interface{}{"color": "green"})
		_, err := widgets.Apply(ctx, "applied", conflicting, metav1.ApplyOptions{FieldManager: "other"})
		if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), ".spec.color") {
			t.Fatalf("apply by another manager: want a conflict on .spec.color, got %v", err)
		}
	})
}

// checkFieldValidation: an unknown field is pruned with a warning (Warn,
// the default), refused (Strict, upstream's message), dropped silently
// (Ignore); defaults are filled in.
func checkFieldValidation(t *testing.T, ns string, widgets dynamic.ResourceInterface, warn *warningRecorder) {
	warn.take()
	w := get(widgets.Create(ctx, widget("pruned", map[string]interface{}{"replicas": int64(2), "foo": "bar"}), metav1.CreateOptions{}))(t)
	if got := warn.take(); !slices.Equal(got, []string{`unknown field "spec.foo"`}) {
		t.Errorf("warnings %q, want the unknown field", got)
	}
	spec, _, _ := unstructured.NestedMap(w.Object, "spec")
	want := map[string]interface{}{"replicas": int64(2), "maxReplicas": int64(10), "color": "blue"}
	if len(spec) != len(want) || spec["replicas"] != want["replicas"] || spec["maxReplicas"] != want["maxReplicas"] || spec["color"] != want["color"] {
		t.Errorf("spec %v, want unknown field pruned and defaults %v", spec, want)
	}

	_, err := widgets.Create(ctx, widget("strict", map[string]interface{}{"foo": "bar"}), metav1.CreateOptions{FieldValidation: "Strict"})
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `strict decoding error: unknown field "spec.foo"`) {
		t.Errorf("Strict: want 400 unknown field \"spec.foo\", got %v", err)
	}
	get(widgets.Create(ctx, widget("ignored", map[string]interface{}{"foo": "bar"}), metav1.CreateOptions{FieldValidation: "Ignore"}))(t)
	if got := warn.take(); len(got) != 0 {
		t.Errorf("Ignore: warnings %q", got)
	}
	// Duplicate fields: in a JSON create, and in an apply patch (YAML),
	// whose unknown fields are named by their path in the schema (the
	// conformance specs' wording).
	rc := server.Client.Discovery().RESTClient()
	path := "/apis/crd.it.example.com/v1/namespaces/" + ns + "/widgets"
	raw, err := rc.Post().AbsPath(path).Param("fieldValidation", "Strict").SetHeader("Content-Type", "application/json").
		Body([]byte(`{"apiVersion":"crd.it.example.com/v1","kind":"Widget","metadata":{"name":"dup"},"spec":{"color":"red","color":"green"}}`)).DoRaw(ctx)
	if !apierrors.IsBadRequest(err) || !strings.Contains(string(raw), `strict decoding error: duplicate field \"spec.color\"`) {
		t.Errorf("Strict create with a duplicate field: %v %s", err, raw)
	}
	for body, want := range map[string]string{
		"apiVersion: crd.it.example.com/v1\nkind: Widget\nmetadata:\n  name: dup\nspec:\n  color: red\n  color: green\n": `line 7: key \"color\" already set in map`,
		"apiVersion: crd.it.example.com/v1\nkind: Widget\nmetadata:\n  name: dup\nspec:\n  foo: bar\n":                   `.spec.foo: field not declared in schema`,
	} {
		raw, err := rc.Patch(types.ApplyPatchType).AbsPath(path).Name("dup").Param("fieldManager", "m").Param("fieldValidation", "Strict").
			Body([]byte(body)).DoRaw(ctx)
		if err == nil || !strings.Contains(string(raw), want) {
			t.Errorf("Strict apply of\n%s: want %s, got %v %s", body, want, err, raw)
		}
	}
}

// checkStatusSubresource: writes to the main resource ignore status,
// writes to /status ignore spec; only spec changes bump the generation.
func checkStatusSubresource(t *testing.T, widgets dynamic.ResourceInterface) {
	w := get(widgets.Create(ctx, widget("status", map[string]interface{}{"replicas": int64(1)}), metav1.CreateOptions{}))(t)
	noErr(t, unstructured.SetNestedField(w.Object, int64(5), "status", "replicas"))
	w = get(widgets.Update(ctx, w, metav1.UpdateOptions{}))(t)
	if _, found, _ := unstructured.NestedFieldNoCopy(w.Object, "status"); found {
		t.Fatalf("status written through the main resource: %v", w.Object["status"])
	}
	gen := w.GetGeneration()
	noErr(t, unstructured.SetNestedField(w.Object, int64(3), "status", "replicas"))
	noErr(t, unstructured.SetNestedField(w.Object, "red", "spec", "color"))
	w = get(widgets.UpdateStatus(ctx, w, metav1.UpdateOptions{}))(t)
	color, _, _ := unstructured.NestedString(w.Object, "spec", "color")
	replicas, _, _ := unstructured.NestedInt64(w.Object, "status", "replicas")
	if color != "blue" || replicas != 3 || w.GetGeneration() != gen {
		t.Fatalf("after a /status update: color %q (want blue), status.replicas %d (want 3), generation %d (want %d)",
			color, replicas, w.GetGeneration(), gen)
	}
	noErr(t, unstructured.SetNestedField(w.Object, "red", "spec", "color"))
	if w = get(widgets.Update(ctx, w, metav1.UpdateOptions{}))(t); w.GetGeneration() != gen+1 {
		t.Fatalf("a spec change: generation %d, want %d", w.GetGeneration(), gen+1)
	}
}

// checkOpenAPI: the kind is in /openapi/v3 (its group version's document)
// and /openapi/v2, and kubectl explain describes its fields.
func checkOpenAPI(t *testing.T) {
	rc := server.Client.Discovery().RESTClient()
	v3 := string(get(rc.Get().AbsPath("/openapi/v3/apis/crd.it.example.com/v1").DoRaw(ctx))(t))
	if !strings.Contains(v3, `"com.example.it.crd.v1.Widget"`) {
		t.Fatalf("/openapi/v3/apis/crd.it.example.com/v1 has no Widget definition")
	}
	if !strings.Contains(v3, "The most replicas the widget may have.") {
		t.Fatalf("/openapi/v3 lacks the schema's descriptions")
	}
	// The v2 controller merges CRDs in after a short delay.
	eventually(t, "Widget in /openapi/v2", func() bool {
		v2, err := rc.Get().AbsPath("/openapi/v2").SetHeader("Accept", "application/json").DoRaw(ctx)
		return err == nil && strings.Contains(string(v2), `"com.example.it.crd.v1.Widget"`) &&
			strings.Contains(string(v2), `"io.k8s.api.core.v1.Pod"`)
	})
	out := crdMustKubectl(t, "explain", "widget.spec")
	for _, want := range []string{"GROUP:      crd.it.example.com", "KIND:       Widget", "maxReplicas", "The most replicas the widget may have."} {
		if !strings.Contains(out, want) {
			t.Fatalf("kubectl explain widget.spec lacks %q:\n%s", want, out)
		}
	}
}

// checkAuthorizationAndAdmission: RBAC decides on custom resources as on
// any other (upstream's message, then allowed once a Role grants them),
// and NamespaceLifecycle refuses one in a namespace that does not exist.
func checkAuthorizationAndAdmission(t *testing.T, ns string) {
	cfg := restclient.CopyConfig(server.Config)
	cfg.Impersonate = restclient.ImpersonationConfig{UserName: "crd-it-user"}
	cfg.WarningHandler = restclient.NoWarnings{}
	widgets := get(dynamic.NewForConfig(cfg))(t).Resource(widgetsGVR).Namespace(ns)
	_, err := widgets.List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(),
		`User "crd-it-user" cannot list resource "widgets" in API group "crd.it.example.com" in the namespace "`+ns+`"`) {
		t.Fatalf("list by a user without rights: %v", err)
	}
	get(server.Client.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "widgets"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"crd.it.example.com"}, Resources: []string{"widgets"}, Verbs: []string{"list"}}}},
		metav1.CreateOptions{}))(t)
	get(server.Client.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "widgets"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "widgets"},
		Subjects: []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "crd-it-user"}}},
		metav1.CreateOptions{}))(t)
	eventually(t, "the Role to let crd-it-user list widgets", func() bool {
		_, err := widgets.List(ctx, metav1.ListOptions{})
		return err == nil
	})
	if _, err := widgets.Create(ctx, widget("x", nil), metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("create with only list granted: %v", err)
	}

	admin := crdDynamicClient(t, nil).Resource(widgetsGVR).Namespace("crd-it-no-such-namespace")
	_, err = admin.Create(ctx, widget("x", map[string]interface{}{}), metav1.CreateOptions{})
	if !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), `namespaces "crd-it-no-such-namespace" not found`) {
		t.Fatalf("create in a missing namespace: %v", err)
	}
}
