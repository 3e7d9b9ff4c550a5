package service

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

var columns = []metav1.TableColumnDefinition{
	resource.Column("Type", "string", 0, "type determines how the Service is exposed."),
	resource.Column("Cluster-IP", "string", 0, "clusterIP is the IP address of the service and is usually assigned randomly."),
	resource.Column("External-IP", "string", 0, "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service."),
	resource.Column("Port(s)", "string", 0, "The list of ports that are exposed by this service."),
	resource.AgeColumn,
	resource.Column("Selector", "string", 1, "Route service traffic to pods with label keys and values matching this selector."),
}

func row(obj runtime.Object) []interface{} {
	svc := obj.(*corev1.Service)
	clusterIP := "<none>"
	if len(svc.Spec.ClusterIPs) > 0 {
		clusterIP = svc.Spec.ClusterIPs[0]
	} else if svc.Spec.ClusterIP != "" {
		clusterIP = svc.Spec.ClusterIP
	}
	selector := "<none>"
	if len(svc.Spec.Selector) > 0 {
		selector = labels.FormatLabels(svc.Spec.Selector)
	}
	return []interface{}{string(svc.Spec.Type), clusterIP, externalIP(svc), ports(svc.Spec.Ports),
		resource.AgeOf(obj), selector}
}

func externalIP(svc *corev1.Service) string {
	switch svc.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		if len(svc.Spec.ExternalIPs) > 0 {
			return strings.Join(svc.Spec.ExternalIPs, ",")
		}
		return "<none>"
	case corev1.ServiceTypeLoadBalancer:
		var ips []string
		for _, ing := range svc.Status.LoadBalancer.Ingress {
			if ing.IP != "" {
				ips = append(ips, ing.IP)
			} else if ing.Hostname != "" {
				ips = append(ips, ing.Hostname)
			}
		}
		ips = append(ips, svc.Spec.ExternalIPs...)
		if len(ips) == 0 {
			return "<pending>"
		}
		return strings.Join(ips, ",")
	case corev1.ServiceTypeExternalName:
		return svc.Spec.ExternalName
	}
	return "<unknown>"
}

func ports(ps []corev1.ServicePort) string {
	if len(ps) == 0 {
		return "<none>"
	}
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		s := fmt.Sprintf("%d/%s", p.Port, p.Protocol)
		if p.NodePort > 0 {
			s = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
		}
		out = append(out, s)
	}
	return strings.Join(out, ",")
}
