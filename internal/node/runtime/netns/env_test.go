package netns

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

func TestExpandFollowsTheKubeletsRules(t *testing.T) {
	vars := map[string]string{"A": "x", "B": "y"}
	for in, want := range map[string]string{
		"$(A)":         "x",
		"$(A)-$(B)":    "x-y",
		"$$(A)":        "$(A)",
		"$(C)":         "$(C)",
		"a$b":          "a$b",
		"$(A":          "$(A",
		"tail$":        "tail$",
		"$(A)$(A)$$$$": "xx$$",
	} {
		if got := expand(in, vars); got != want {
			t.Errorf("expand(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestServiceVarsAsTheKubeletWritesThem(t *testing.T) {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "my-web"}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.20",
		Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}, {Name: "dns-udp", Port: 53, Protocol: corev1.ProtocolUDP}}}}
	got := map[string]string{}
	for _, kv := range serviceVars(s) {
		got[kv[0]] = kv[1]
	}
	want := map[string]string{
		"MY_WEB_SERVICE_HOST": "10.96.0.20", "MY_WEB_SERVICE_PORT": "80",
		"MY_WEB_SERVICE_PORT_HTTP": "80", "MY_WEB_SERVICE_PORT_DNS_UDP": "53",
		"MY_WEB_PORT":              "tcp://10.96.0.20:80",
		"MY_WEB_PORT_80_TCP":       "tcp://10.96.0.20:80",
		"MY_WEB_PORT_80_TCP_PROTO": "tcp", "MY_WEB_PORT_80_TCP_PORT": "80", "MY_WEB_PORT_80_TCP_ADDR": "10.96.0.20",
		"MY_WEB_PORT_53_UDP": "udp://10.96.0.20:53", "MY_WEB_PORT_53_UDP_PROTO": "udp",
		"MY_WEB_PORT_53_UDP_PORT": "53", "MY_WEB_PORT_53_UDP_ADDR": "10.96.0.20",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d variables, want %d: %v", len(got), len(want), got)
	}
	headless := s.DeepCopy()
	headless.Spec.ClusterIP = corev1.ClusterIPNone
	if v := serviceVars(headless); v != nil {
		t.Errorf("headless Service got variables %v", v)
	}
}

func TestContainerEnv(t *testing.T) {
	client := fake.NewClientset(
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm"}, Data: map[string]string{"K": "from-cm", "Z": "z"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sec"}, Data: map[string][]byte{"pw": []byte("s3cret")}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.9", Ports: []corev1.ServicePort{{Port: 80, Protocol: "TCP"}}}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "far"}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.8", Ports: []corev1.ServicePort{{Port: 80, Protocol: "TCP"}}}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "kubernetes"}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.1", Ports: []corev1.ServicePort{{Name: "https", Port: 443, Protocol: "TCP"}}}},
	)
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "u1", Labels: map[string]string{"app": "a"}},
		Spec:   corev1.PodSpec{NodeName: "n0"},
		Status: corev1.PodStatus{PodIP: "10.244.0.5", HostIP: "10.250.0.2"}}
	c := &corev1.Container{Name: "c",
		EnvFrom: []corev1.EnvFromSource{{Prefix: "CM_", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}},
		Env: []corev1.EnvVar{
			{Name: "NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			{Name: "APP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['app']"}}},
			{Name: "IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
			{Name: "PW", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "sec"}, Key: "pw"}}},
			{Name: "OPT", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "gone"}, Key: "x", Optional: ptr.To(true)}}},
			{Name: "MEM", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory", Divisor: resource.MustParse("1Mi")}}},
			{Name: "GREETING", Value: "hi $(NAME) at $(WEB_SERVICE_HOST)"},
		},
		Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}},
	}
	env, err := containerEnv(context.Background(), client, p, c, "p")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"HOSTNAME=p", "CM_K=from-cm", "CM_Z=z", "NAME=p", "APP=a", "IP=10.244.0.5", "PW=s3cret",
		"OPT=", "MEM=64", "GREETING=hi p at 10.96.0.9", "WEB_SERVICE_HOST=10.96.0.9", "KUBERNETES_SERVICE_HOST=10.96.0.1",
		"KUBERNETES_SERVICE_PORT_HTTPS=443"} {
		if !slices.Contains(env, want) {
			t.Errorf("missing %s in %v", want, env)
		}
	}
	for _, e := range env {
		if len(e) > 4 && e[:4] == "FAR_" {
			t.Errorf("another namespace's Service leaked in: %s", e)
		}
	}
	p.Spec.EnableServiceLinks = ptr.To(false)
	env, _ = containerEnv(context.Background(), client, p, &corev1.Container{}, "p")
	if slices.Contains(env, "WEB_SERVICE_HOST=10.96.0.9") || !slices.Contains(env, "KUBERNETES_SERVICE_HOST=10.96.0.1") {
		t.Errorf("enableServiceLinks false: want only kubernetes' variables, got %v", env)
	}
	c.Env = []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "sec"}, Key: "nope"}}}}
	if _, err := containerEnv(context.Background(), client, p, c, "p"); err == nil || err.Error() != "couldn't find key nope in Secret ns/sec" {
		t.Errorf("missing key: %v", err)
	}
}
