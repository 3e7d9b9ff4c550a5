package resource

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestAsInternal(t *testing.T) {
	yes := true
	q := resource.MustParse("1Gi")
	for _, c := range []struct {
		in   interface{}
		want string
	}{
		{corev1.Taint{Key: "k", Effect: corev1.TaintEffectNoSchedule}, `{"Key":"k","Value":"","Effect":"NoSchedule","TimeAdded":null}`},
		{&corev1.SecurityContext{Privileged: &yes, Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"X"}}},
			`{"Capabilities":{"Add":["X"],"Drop":null},"Privileged":true,"SELinuxOptions":null,"WindowsOptions":null,"RunAsUser":null,"RunAsGroup":null,"RunAsNonRoot":null,"ReadOnlyRootFilesystem":null,"AllowPrivilegeEscalation":null,"ProcMount":null,"SeccompProfile":null,"AppArmorProfile":null}`},
		{corev1.ResourceList{"memory": q}, `{"memory":"1Gi"}`},
		{intstr.FromString("25%"), `"25%"`},
		{(*corev1.Taint)(nil), `null`},
	} {
		got, err := json.Marshal(AsInternal(c.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("%T:\n got  %s\n want %s", c.in, got, c.want)
		}
	}
}
