package netns

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// containerEnv is the environment a host-process container (or an exec
// in it) runs with, as the kubelet makes it: the Service variables of the
// pod's namespace (and `kubernetes` of default) unless enableServiceLinks
// is false, then envFrom and env in order, $(VAR) expanded from what came
// before; HOSTNAME is the pod's hostname and PATH the host's.
func containerEnv(ctx context.Context, client kubernetes.Interface, p *corev1.Pod, c *corev1.Container, hostname string) ([]string, error) {
	vars := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := vars[k]; !ok {
			order = append(order, k)
		}
		vars[k] = v
	}
	set("PATH", os.Getenv("PATH"))
	set("HOSTNAME", hostname)
	if client != nil {
		svcs, err := serviceEnv(ctx, client, p)
		if err != nil {
			return nil, err
		}
		for _, kv := range svcs {
			set(kv[0], kv[1])
		}
	}
	for _, from := range c.EnvFrom {
		data, err := envFromData(ctx, client, p.Namespace, from)
		if err != nil {
			return nil, err
		}
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			set(from.Prefix+k, data[k])
		}
	}
	for _, e := range c.Env {
		v := expand(e.Value, vars)
		if e.ValueFrom != nil {
			var err error
			if v, err = envValueFrom(ctx, client, p, c, e.ValueFrom); err != nil {
				return nil, err
			}
		}
		set(e.Name, v)
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+vars[k])
	}
	return out, nil
}

// expand replaces $(NAME) with NAME's value when defined ($$ is a $), as
// the kubelet's expansion does.
func expand(s string, vars map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			name := s[i+2 : i+2+end]
			if v, ok := vars[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+3+end])
			}
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}

func envFromData(ctx context.Context, client kubernetes.Interface, ns string, from corev1.EnvFromSource) (map[string]string, error) {
	if client == nil {
		return nil, nil
	}
	switch {
	case from.ConfigMapRef != nil:
		cm, err := client.CoreV1().ConfigMaps(ns).Get(ctx, from.ConfigMapRef.Name, metav1.GetOptions{})
		if err != nil {
			if from.ConfigMapRef.Optional != nil && *from.ConfigMapRef.Optional {
				return nil, nil
			}
			return nil, fmt.Errorf("configmap %q not found", from.ConfigMapRef.Name)
		}
		return cm.Data, nil
	case from.SecretRef != nil:
		s, err := client.CoreV1().Secrets(ns).Get(ctx, from.SecretRef.Name, metav1.GetOptions{})
		if err != nil {
			if from.SecretRef.Optional != nil && *from.SecretRef.Optional {
				return nil, nil
			}
			return nil, fmt.Errorf("secret %q not found", from.SecretRef.Name)
		}
		out := map[string]string{}
		for k, v := range s.Data {
			out[k] = string(v)
		}
		return out, nil
	}
	return nil, nil
}

func envValueFrom(ctx context.Context, client kubernetes.Interface, p *corev1.Pod, c *corev1.Container, from *corev1.EnvVarSource) (string, error) {
	switch {
	case from.FieldRef != nil:
		return fieldValue(p, from.FieldRef.FieldPath)
	case from.ResourceFieldRef != nil:
		return resourceValue(c, from.ResourceFieldRef), nil
	case from.ConfigMapKeyRef != nil && client != nil:
		ref := from.ConfigMapKeyRef
		cm, err := client.CoreV1().ConfigMaps(p.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err == nil {
			if v, ok := cm.Data[ref.Key]; ok {
				return v, nil
			}
			err = fmt.Errorf("couldn't find key %s in ConfigMap %s/%s", ref.Key, p.Namespace, ref.Name)
		}
		if ref.Optional != nil && *ref.Optional {
			return "", nil
		}
		return "", err
	case from.SecretKeyRef != nil && client != nil:
		ref := from.SecretKeyRef
		s, err := client.CoreV1().Secrets(p.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err == nil {
			if v, ok := s.Data[ref.Key]; ok {
				return string(v), nil
			}
			err = fmt.Errorf("couldn't find key %s in Secret %s/%s", ref.Key, p.Namespace, ref.Name)
		}
		if ref.Optional != nil && *ref.Optional {
			return "", nil
		}
		return "", err
	}
	return "", nil
}

// fieldValue is the downward API's value of path for p.
func fieldValue(p *corev1.Pod, path string) (string, error) {
	if k, ok := subscript(path, "metadata.labels"); ok {
		return p.Labels[k], nil
	}
	if k, ok := subscript(path, "metadata.annotations"); ok {
		return p.Annotations[k], nil
	}
	switch path {
	case "metadata.name":
		return p.Name, nil
	case "metadata.namespace":
		return p.Namespace, nil
	case "metadata.uid":
		return string(p.UID), nil
	case "spec.nodeName":
		return p.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return p.Spec.ServiceAccountName, nil
	case "status.hostIP":
		return p.Status.HostIP, nil
	case "status.hostIPs":
		var ips []string
		for _, ip := range p.Status.HostIPs {
			ips = append(ips, ip.IP)
		}
		return strings.Join(ips, ","), nil
	case "status.podIP":
		return p.Status.PodIP, nil
	case "status.podIPs":
		var ips []string
		for _, ip := range p.Status.PodIPs {
			ips = append(ips, ip.IP)
		}
		return strings.Join(ips, ","), nil
	}
	return "", fmt.Errorf("unsupported fieldPath: %s", path)
}

// subscript parses prefix['key'].
func subscript(path, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(path, prefix+"['")
	if !ok || !strings.HasSuffix(rest, "']") {
		return "", false
	}
	return strings.TrimSuffix(rest, "']"), true
}

// resourceValue is a container's request or limit in the divisor's unit,
// rounded up (0 when unset).
func resourceValue(c *corev1.Container, ref *corev1.ResourceFieldSelector) string {
	kind, name, _ := strings.Cut(ref.Resource, ".")
	list := c.Resources.Requests
	if kind == "limits" {
		list = c.Resources.Limits
	}
	q, ok := list[corev1.ResourceName(name)]
	if !ok {
		return "0"
	}
	div := ref.Divisor
	if div.IsZero() {
		if name == "cpu" {
			return strconv.FormatInt(q.MilliValue()/1000+min(1, q.MilliValue()%1000), 10)
		}
		return strconv.FormatInt(q.Value(), 10)
	}
	v := (q.MilliValue() + div.MilliValue() - 1) / div.MilliValue()
	return strconv.FormatInt(v, 10)
}

// serviceEnv is the kubelet's Service variables for p: the Services of
// its namespace (when enableServiceLinks) and `kubernetes` of default.
func serviceEnv(ctx context.Context, client kubernetes.Interface, p *corev1.Pod) ([][2]string, error) {
	byName := map[string]*corev1.Service{}
	if k, err := client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, "kubernetes", metav1.GetOptions{}); err == nil {
		byName[k.Name] = k
	}
	if p.Spec.EnableServiceLinks == nil || *p.Spec.EnableServiceLinks {
		list, err := client.CoreV1().Services(p.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for i := range list.Items {
			byName[list.Items[i].Name] = &list.Items[i]
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	var out [][2]string
	for _, n := range names {
		out = append(out, serviceVars(byName[n])...)
	}
	return out, nil
}

// serviceVars are one Service's variables (none without a cluster IP).
func serviceVars(s *corev1.Service) [][2]string {
	ip := s.Spec.ClusterIP
	if ip == "" || ip == corev1.ClusterIPNone || len(s.Spec.Ports) == 0 {
		return nil
	}
	name := strings.ToUpper(strings.ReplaceAll(s.Name, "-", "_"))
	out := [][2]string{{name + "_SERVICE_HOST", ip}, {name + "_SERVICE_PORT", strconv.Itoa(int(s.Spec.Ports[0].Port))}}
	for _, sp := range s.Spec.Ports {
		if sp.Name != "" {
			out = append(out, [2]string{name + "_SERVICE_PORT_" + strings.ToUpper(strings.ReplaceAll(sp.Name, "-", "_")), strconv.Itoa(int(sp.Port))})
		}
	}
	first := s.Spec.Ports[0]
	hostPort := func(port int32) string {
		if strings.Contains(ip, ":") {
			return "[" + ip + "]:" + strconv.Itoa(int(port))
		}
		return ip + ":" + strconv.Itoa(int(port))
	}
	out = append(out, [2]string{name + "_PORT", strings.ToLower(string(first.Protocol)) + "://" + hostPort(first.Port)})
	for _, sp := range s.Spec.Ports {
		proto := strings.ToLower(string(sp.Protocol))
		prefix := fmt.Sprintf("%s_PORT_%d_%s", name, sp.Port, strings.ToUpper(proto))
		out = append(out, [2]string{prefix, proto + "://" + hostPort(sp.Port)},
			[2]string{prefix + "_PROTO", proto}, [2]string{prefix + "_PORT", strconv.Itoa(int(sp.Port))},
			[2]string{prefix + "_ADDR", ip})
	}
	return out
}
