package serviceaccount

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// StaticGetter is a Getter over fixed objects, keyed "sa/<ns>/<name>",
// "pod/<ns>/<name>", "secret/<ns>/<name>" and "node/<name>"; a missing
// object is the API's NotFound, as the informer getter gives. Tests (ours
// and the drift module's, which hands it to upstream's validators too)
// use it.
type StaticGetter map[string]interface{}

var _ Getter = StaticGetter{}

func staticNotFound(resource, name string) error {
	return apierrors.NewNotFound(schema.GroupResource{Resource: resource}, name)
}

// GetServiceAccount returns "sa/<ns>/<name>".
func (s StaticGetter) GetServiceAccount(_ context.Context, ns, name string) (*corev1.ServiceAccount, error) {
	if o, ok := s["sa/"+ns+"/"+name]; ok {
		return o.(*corev1.ServiceAccount), nil
	}
	return nil, staticNotFound("serviceaccounts", name)
}

// GetPod returns "pod/<ns>/<name>".
func (s StaticGetter) GetPod(_ context.Context, ns, name string) (*corev1.Pod, error) {
	if o, ok := s["pod/"+ns+"/"+name]; ok {
		return o.(*corev1.Pod), nil
	}
	return nil, staticNotFound("pods", name)
}

// GetSecret returns "secret/<ns>/<name>".
func (s StaticGetter) GetSecret(_ context.Context, ns, name string) (*corev1.Secret, error) {
	if o, ok := s["secret/"+ns+"/"+name]; ok {
		return o.(*corev1.Secret), nil
	}
	return nil, staticNotFound("secrets", name)
}

// GetNode returns "node/<name>".
func (s StaticGetter) GetNode(_ context.Context, name string) (*corev1.Node, error) {
	if o, ok := s["node/"+name]; ok {
		return o.(*corev1.Node), nil
	}
	return nil, staticNotFound("nodes", name)
}
