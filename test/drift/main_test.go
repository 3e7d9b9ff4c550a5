package drift

import (
	"os"
	"testing"

	"k8s.io/kubernetes/pkg/capabilities"
)

// TestMain configures upstream's code as kube-apiserver is configured in
// the clusters svcplane stands in for: --allow-privileged=true (kubeadm's
// setting; svcplane accepts privileged containers). The capability set
// can be set once per process, before any validation reads it.
func TestMain(m *testing.M) {
	capabilities.Setup(true, 0)
	os.Exit(m.Run())
}
