package integration

import (
	"strings"
	"testing"

	admregv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const stampsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: stamps.admission.it.example.com
spec:
  group: admission.it.example.com
  names: {plural: stamps, singular: stamp, kind: Stamp, listKind: StampList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {color: {type: string}}}
`

// TestCustomResourceAdmissionPolicy: a ValidatingAdmissionPolicy matching
// a CRD's resource judges its custom resources (with the CRD's schema for
// type checking), as it does built-in ones: the admission chain is shared.
func TestCustomResourceAdmissionPolicy(t *testing.T) {
	skipShort(t)
	createCRD(t, decodeCRD(t, stampsCRD))
	c := server.Client
	ns := newNamespace(t, c)
	nsObj := get(c.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}))(t)
	if nsObj.Labels == nil {
		nsObj.Labels = map[string]string{}
	}
	nsObj.Labels["crd-admission-test"] = ns
	get(c.CoreV1().Namespaces().Update(ctx, nsObj, metav1.UpdateOptions{}))(t)

	policies := c.AdmissionregistrationV1().ValidatingAdmissionPolicies()
	get(policies.Create(ctx, &admregv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "crd-it-no-red-stamps"},
		Spec: admregv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admregv1.MatchResources{ResourceRules: []admregv1.NamedRuleWithOperations{{RuleWithOperations: admregv1.RuleWithOperations{
				Operations: []admregv1.OperationType{admregv1.Create, admregv1.Update},
				Rule:       admregv1.Rule{APIGroups: []string{"admission.it.example.com"}, APIVersions: []string{"v1"}, Resources: []string{"stamps"}}}}}},
			Validations: []admregv1.Validation{{Expression: "object.spec.color != 'red'", Message: "no red stamps"}},
		},
	}, metav1.CreateOptions{}))(t)
	t.Cleanup(func() { _ = policies.Delete(ctx, "crd-it-no-red-stamps", metav1.DeleteOptions{}) })
	bindings := c.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings()
	get(bindings.Create(ctx, &admregv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "crd-it-no-red-stamps"},
		Spec: admregv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "crd-it-no-red-stamps",
			ValidationActions: []admregv1.ValidationAction{admregv1.Deny},
			MatchResources: &admregv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"crd-admission-test": ns}}}},
	}, metav1.CreateOptions{}))(t)
	t.Cleanup(func() { _ = bindings.Delete(ctx, "crd-it-no-red-stamps", metav1.DeleteOptions{}) })

	stamps := crdDynamicClient(t, nil).Resource(schema.GroupVersionResource{Group: "admission.it.example.com", Version: "v1", Resource: "stamps"}).Namespace(ns)
	stamp := func(name, color string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "admission.it.example.com/v1", "kind": "Stamp",
			"metadata": map[string]interface{}{"name": name}, "spec": map[string]interface{}{"color": color}}}
	}
	const want = `ValidatingAdmissionPolicy 'crd-it-no-red-stamps' with binding 'crd-it-no-red-stamps' denied request: no red stamps`
	var err error
	eventually(t, "the policy denies a red Stamp", func() bool {
		_, err = stamps.Create(ctx, stamp("red", "red"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err != nil
	})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) {
		t.Fatalf("red Stamp: %v, want %q", err, want)
	}
	get(stamps.Create(ctx, stamp("blue", "blue"), metav1.CreateOptions{}))(t)

	// The policy's type checking knows the CRD's schema.
	eventually(t, "the policy is type checked", func() bool {
		p, err := policies.Get(ctx, "crd-it-no-red-stamps", metav1.GetOptions{})
		return err == nil && p.Status.TypeChecking != nil && p.Status.ObservedGeneration == p.Generation
	})
	if w := get(policies.Get(ctx, "crd-it-no-red-stamps", metav1.GetOptions{}))(t).Status.TypeChecking.ExpressionWarnings; len(w) != 0 {
		t.Errorf("type checking warnings %+v, want none", w)
	}
}
