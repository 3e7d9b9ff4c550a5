package netns

import (
	"fmt"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// BenchmarkRunPod is one pause pod's setup (namespace, veth, addresses,
// routes, its container started) and teardown on a node, as root:
// go test -run x -bench RunPod ./internal/node/runtime/netns.
func BenchmarkRunPod(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("needs root for network namespaces")
	}
	host, err := newNS()
	if err != nil {
		b.Fatal(err)
	}
	defer host.Close()
	var r *Runtime
	if err := inNS(host, func() (err error) { r, err = New(Config{Bridge: "svcpb0"}); return err }); err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	if err := r.SetNode("n0", []string{"10.244.0.0/16"}, []string{"10.250.0.2"}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: fmt.Sprint(i), UID: types.UID(fmt.Sprint("u", i))},
			Spec: corev1.PodSpec{NodeName: "n0", Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
		if _, err := r.RunPod(p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N)/1000, "ms-setup/pod")
	b.StopTimer()
}
