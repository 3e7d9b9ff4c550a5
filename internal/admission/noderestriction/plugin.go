package noderestriction

import (
	"context"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/svcplane/svcplane/internal/auth/node"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "NodeRestriction"

// Register adds the plugin to plugins.
func Register(plugins *admission.Plugins) {
	plugins.Register(PluginName, func(io.Reader) (admission.Interface, error) { return New(), nil })
}

// Plugin is the NodeRestriction admission plugin.
type Plugin struct {
	*admission.Handler
	pods  node.PodRecordLister
	nodes corelisters.NodeLister
}

var _ admission.MutationInterface = (*Plugin)(nil)

// New returns the plugin; it needs SetExternalKubeInformerFactory before
// use.
func New() *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create, admission.Update, admission.Delete)}
}

// SetExternalKubeInformerFactory takes the pod records (node.PodRecords:
// of an existing pod the plugin reads its UID and node) and the nodes
// lister.
func (p *Plugin) SetExternalKubeInformerFactory(f informers.SharedInformerFactory) {
	p.pods = node.PodRecords(f)
	p.nodes = f.Core().V1().Nodes().Lister()
}

// ValidateInitialization reports a missing informer factory.
func (p *Plugin) ValidateInitialization() error {
	if p.pods == (node.PodRecordLister{}) || p.nodes == nil {
		return fmt.Errorf("%s requires a pod and a node getter", PluginName)
	}
	return nil
}

var (
	podResource     = schema.GroupResource{Resource: "pods"}
	nodeResource    = schema.GroupResource{Resource: "nodes"}
	svcacctResource = schema.GroupResource{Resource: "serviceaccounts"}
	leaseResource   = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}
)

// Admit checks a node's request against its own objects.
func (p *Plugin) Admit(ctx context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	nodeName, isNode := node.Identity(a.GetUserInfo())
	if !isNode {
		return nil
	}
	if nodeName == "" {
		return admission.NewForbidden(a, fmt.Errorf("could not determine node from user %q", a.GetUserInfo().GetName()))
	}
	switch a.GetResource().GroupResource() {
	case podResource:
		switch a.GetSubresource() {
		case "":
			return p.admitPod(nodeName, a)
		case "status":
			return admitPodStatus(nodeName, a)
		case "eviction":
			return p.admitPodEviction(nodeName, a)
		default:
			return admission.NewForbidden(a, fmt.Errorf("unexpected pod subresource %q, only 'status' and 'eviction' are allowed", a.GetSubresource()))
		}
	case nodeResource:
		return admitNode(nodeName, a)
	case svcacctResource:
		return p.admitServiceAccount(nodeName, a)
	case leaseResource:
		return admitLease(nodeName, a)
	}
	return nil
}
