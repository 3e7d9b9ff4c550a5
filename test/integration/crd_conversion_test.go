package integration

import (
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// twoVersionCRD serves v1 (stored) and v2; v1 calls the field color, v2
// colour.
const twoVersionCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: paints.conversion.it.example.com
spec:
  group: conversion.it.example.com
  names: {plural: paints, singular: paint, kind: Paint, listKind: PaintList}
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
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {colour: {type: string}}}
`

// paintConverter is a conversion webhook (ConversionReview v1) that
// renames spec.color ⇄ spec.colour.
type paintConverter struct{ calls atomic.Int32 }

func (p *paintConverter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.calls.Add(1)
	var review apiextensionsv1.ConversionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "bad review", http.StatusBadRequest)
		return
	}
	resp := &apiextensionsv1.ConversionResponse{UID: review.Request.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	for _, raw := range review.Request.Objects {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw.Raw); err != nil {
			resp.Result = metav1.Status{Status: metav1.StatusFailure, Message: err.Error()}
			break
		}
		from, to := "color", "colour"
		if review.Request.DesiredAPIVersion == "conversion.it.example.com/v1" {
			from, to = to, from
		}
		if v, ok, _ := unstructured.NestedString(u.Object, "spec", from); ok {
			unstructured.RemoveNestedField(u.Object, "spec", from)
			_ = unstructured.SetNestedField(u.Object, v, "spec", to)
		}
		u.SetAPIVersion(review.Request.DesiredAPIVersion)
		out, _ := u.MarshalJSON()
		resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: out})
	}
	review.Response, review.Request = resp, nil
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&review)
}

// TestCRDConversion: a Webhook CRD's objects are converted by the webhook
// (created in one version, read in the other, both ways); a None CRD's only
// change apiVersion.
func TestCRDConversion(t *testing.T) {
	skipShort(t)
	converter := &paintConverter{}
	hook := httptest.NewTLSServer(converter)
	defer hook.Close()
	crd := decodeCRD(t, twoVersionCRD)
	crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{
			ConversionReviewVersions: []string{"v1"},
			ClientConfig: &apiextensionsv1.WebhookClientConfig{
				URL:      ptr.To(hook.URL + "/convert"),
				CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw}),
			},
		},
	}
	createCRD(t, crd)
	ns := newNamespace(t, server.Client)
	dyn := crdDynamicClient(t, nil)
	v1 := dyn.Resource(schema.GroupVersionResource{Group: "conversion.it.example.com", Version: "v1", Resource: "paints"}).Namespace(ns)
	v2 := dyn.Resource(schema.GroupVersionResource{Group: "conversion.it.example.com", Version: "v2", Resource: "paints"}).Namespace(ns)

	paint := func(version, field, value string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "conversion.it.example.com/" + version, "kind": "Paint",
			"metadata": map[string]interface{}{"name": version + "-made"}, "spec": map[string]interface{}{field: value},
		}}
	}
	get(v1.Create(ctx, paint("v1", "color", "red"), metav1.CreateOptions{}))(t)
	got := get(v2.Get(ctx, "v1-made", metav1.GetOptions{}))(t)
	if c, _, _ := unstructured.NestedString(got.Object, "spec", "colour"); c != "red" || got.GetAPIVersion() != "conversion.it.example.com/v2" {
		t.Fatalf("v1 object read as v2: %v", got.Object)
	}
	// Created as v2: stored as v1 (converted by the webhook), read back as v1.
	get(v2.Create(ctx, paint("v2", "colour", "blue"), metav1.CreateOptions{}))(t)
	got = get(v1.Get(ctx, "v2-made", metav1.GetOptions{}))(t)
	if c, _, _ := unstructured.NestedString(got.Object, "spec", "color"); c != "blue" {
		t.Fatalf("v2 object read as v1: %v", got.Object)
	}
	list := get(v2.List(ctx, metav1.ListOptions{}))(t)
	if len(list.Items) != 2 {
		t.Fatalf("v2 list: %d items", len(list.Items))
	}
	if converter.calls.Load() == 0 {
		t.Fatal("the webhook was never called")
	}

	// None: the same objects under another apiVersion.
	none := decodeCRD(t, strings.NewReplacer("paints.conversion", "inks.conversion", "plural: paints", "plural: inks",
		"singular: paint", "singular: ink", "kind: Paint", "kind: Ink", "listKind: PaintList", "listKind: InkList",
		"colour", "color").Replace(twoVersionCRD))
	createCRD(t, none)
	inkV1 := dyn.Resource(schema.GroupVersionResource{Group: "conversion.it.example.com", Version: "v1", Resource: "inks"}).Namespace(ns)
	inkV2 := dyn.Resource(schema.GroupVersionResource{Group: "conversion.it.example.com", Version: "v2", Resource: "inks"}).Namespace(ns)
	ink := paint("v2", "color", "green")
	ink.SetKind("Ink")
	get(inkV2.Create(ctx, ink, metav1.CreateOptions{}))(t)
	got = get(inkV1.Get(ctx, "v2-made", metav1.GetOptions{}))(t)
	if c, _, _ := unstructured.NestedString(got.Object, "spec", "color"); c != "green" || got.GetAPIVersion() != "conversion.it.example.com/v1" {
		t.Fatalf("None conversion: %v", got.Object)
	}
}
