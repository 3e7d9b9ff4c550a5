package pod

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestProxyLocation: pods/proxy goes to the pod's IP and the given port,
// else the first declared container port, as upstream's ResourceLocation;
// a pod without a global unicast IP is refused.
func TestProxyLocation(t *testing.T) {
	pods := podGetter{
		"web": {Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "side"}, {Name: "app", Ports: []corev1.ContainerPort{{ContainerPort: 9376}, {ContainerPort: 80}}}}},
			Status: corev1.PodStatus{PodIP: "10.244.1.5", PodIPs: []corev1.PodIP{{IP: "10.244.1.5"}}}},
		"noports": {Status: corev1.PodStatus{PodIP: "10.244.1.6"}},
		"pending": {},
		"loop":    {Status: corev1.PodStatus{PodIP: "127.0.0.1"}},
	}
	r := &ProxyREST{Pods: pods}
	for _, tc := range []struct{ id, want, err string }{
		{"web", "//10.244.1.5:9376", ""},
		{"web:80", "//10.244.1.5:80", ""},
		{"https:web:443", "https://10.244.1.5:443", ""},
		{"noports", "//10.244.1.6", ""},
		{"pending", "", "address not allowed"},
		{"loop", "", "address not allowed"},
		{"gone", "", `pods "gone" not found`},
		{"a:b:c:d", "", `invalid pod request "a:b:c:d"`},
	} {
		u, err := r.location(context.Background(), tc.id)
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: %v, want %q", tc.id, err, tc.err)
			}
		case err != nil || u.String() != tc.want:
			t.Errorf("%s: %v, %v; want %s", tc.id, u, err, tc.want)
		}
	}
}
