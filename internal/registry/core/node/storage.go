package node

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the nodes resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: corev1.SchemeGroupVersion, Kind: "Node",
		Resource: "nodes", Singular: "node", ShortNames: []string{"no"},
		EtcdPrefix: "minions",
		New:        func() runtime.Object { return &corev1.Node{} },
		NewList:    func() runtime.Object { return &corev1.NodeList{} },
		Status: &resource.StatusDefinition{
			// Upstream's node status strategy: ValidateNodeUpdate.
			ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
				return validateTransition(obj.(*corev1.Node), old.(*corev1.Node))
			},
		},
		KeepStatusOnCreate: true,
		PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
			n := obj.(*corev1.Node)
			n.Spec.ConfigSource = nil
			n.Status.Config = nil
		},
		Default: func(obj runtime.Object) { Default(obj.(*corev1.Node)) },
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return validate(obj.(*corev1.Node))
		},
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			return validateUpdate(obj.(*corev1.Node), old.(*corev1.Node))
		},
		FieldLabelNames: []string{"spec.unschedulable"},
		FieldLabels: func(obj runtime.Object) fields.Set {
			return fields.Set{"spec.unschedulable": fmt.Sprint(obj.(*corev1.Node).Spec.Unschedulable)}
		},
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Status", "string", 0, "The status of the node"),
			resource.Column("Roles", "string", 0, "The roles of the node"),
			resource.AgeColumn,
			resource.Column("Version", "string", 0, "Kubelet Version reported by the node."),
			resource.Column("Internal-IP", "string", 1, "List of addresses reachable to the node."),
			resource.Column("External-IP", "string", 1, "List of addresses reachable to the node."),
			resource.Column("OS-Image", "string", 1, "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."),
			resource.Column("Kernel-Version", "string", 1, "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."),
			resource.Column("Container-Runtime", "string", 1, "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2)."),
		},
		Row: row,
	}
}

func row(obj runtime.Object) []interface{} {
	n := obj.(*corev1.Node)
	status := []string{"Unknown"}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			status[0] = "NotReady"
			if c.Status == corev1.ConditionTrue {
				status[0] = "Ready"
			}
		}
	}
	if n.Spec.Unschedulable {
		status = append(status, "SchedulingDisabled")
	}
	var roles []string
	for k := range n.Labels {
		switch {
		case strings.HasPrefix(k, "node-role.kubernetes.io/"):
			if r := strings.TrimPrefix(k, "node-role.kubernetes.io/"); r != "" {
				roles = append(roles, r)
			}
		case k == "kubernetes.io/role":
			roles = append(roles, n.Labels[k])
		}
	}
	sort.Strings(roles)
	version := n.Status.NodeInfo.KubeletVersion
	return []interface{}{strings.Join(status, ","), resource.Join(roles, ","), resource.AgeOf(obj), version,
		address(n, corev1.NodeInternalIP), address(n, corev1.NodeExternalIP),
		orUnknown(n.Status.NodeInfo.OSImage), orUnknown(n.Status.NodeInfo.KernelVersion),
		orUnknown(n.Status.NodeInfo.ContainerRuntimeVersion)}
}

func address(n *corev1.Node, t corev1.NodeAddressType) string {
	for _, a := range n.Status.Addresses {
		if a.Type == t {
			return a.Address
		}
	}
	return "<none>"
}

func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}
