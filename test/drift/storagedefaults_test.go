package drift

import (
	"reflect"
	"testing"

	"k8s.io/kubernetes/pkg/controller/garbagecollector"
	"k8s.io/kubernetes/pkg/kubeapiserver"

	"github.com/svcplane/svcplane/internal/apiserver"
	ourgc "github.com/svcplane/svcplane/internal/controller/garbagecollector"
)

// TestWatchCacheSizesMatchUpstream: the resources without the default
// watch cache are kube-apiserver's (Events: none).
func TestWatchCacheSizesMatchUpstream(t *testing.T) {
	if got, want := apiserver.WatchCacheSizes(), kubeapiserver.DefaultWatchCacheSizes(); !reflect.DeepEqual(got, want) {
		t.Errorf("watch cache sizes %v, kube-apiserver's %v", got, want)
	}
}

// TestGarbageCollectorIgnoresWhatUpstreamIgnores: the collector leaves
// out the resources kube-controller-manager's leaves out by default.
func TestGarbageCollectorIgnoresWhatUpstreamIgnores(t *testing.T) {
	if got, want := ourgc.IgnoredResources(), garbagecollector.DefaultIgnoredResources(); !reflect.DeepEqual(got, want) {
		t.Errorf("ignored resources %v, kube-controller-manager's %v", got, want)
	}
}
