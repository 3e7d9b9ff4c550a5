package integration

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svcplane/svcplane/internal/bootstrap/kubernetesservice"
	"github.com/svcplane/svcplane/test/integration/framework"
)

// TestServersStartTogether starts N = 2..5 servers at the same moment on a
// fresh etcd keyspace (a new --etcd-prefix on one etcd), 20 rounds, and
// requires every one to become ready: each start-up step that creates a
// shared object (system namespaces, default ServiceCIDR, the kubernetes
// Service and endpoints, allocation maps, the controller-manager Lease)
// must tolerate another server creating it first.
func TestServersStartTogether(t *testing.T) {
	skipShort(t)
	base := framework.StartT(t)
	const rounds = 20
	failed, began := 0, time.Now()
	for round := 0; round < rounds; round++ {
		n := 2 + round%4
		servers := make([]*framework.Server, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				servers[i], errs[i] = framework.StartWith("", func(o *framework.Options) {
					o.EtcdServers = base.EtcdEndpoints
					o.EtcdPrefix = fmt.Sprintf("/round-%d", round)
					o.AdvertiseAddress = fmt.Sprintf("10.203.10.%d", i+1)
				})
			}(i)
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				failed++
				t.Errorf("round %d, server %d of %d: %v", round, i+1, n, err)
			}
		}
		stopErrs := make([]error, n)
		for i, s := range servers {
			if s != nil {
				wg.Add(1)
				go func() { defer wg.Done(); stopErrs[i] = s.Stop() }()
			}
		}
		wg.Wait()
		for _, err := range stopErrs {
			noErr(t, err)
		}
	}
	t.Logf("concurrent starts: %d/%d rounds had every server ready (%v)", rounds-failed, rounds, time.Since(began).Round(time.Second))
}

// TestKubernetesServiceKeyVanishes deletes the kubernetes Service's key in
// etcd underneath the server (a restore from backup, a manual edit): the
// Service must come back within the controller's interval, with its IP
// (the vanished Service's IPAddress is freed at once: it is old).
func TestKubernetesServiceKeyVanishes(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	s, err := framework.Start(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	c := s.Client
	eventually(t, "the kubernetes Service", func() bool {
		_, err := c.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
		return err == nil
	})
	ec := etcdClient(t, dir)
	defer ec.Close()
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := ec.Delete(cctx, "/registry/services/specs/default/kubernetes"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	eventually(t, "the kubernetes Service back", func() bool {
		svc, err := c.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
		return err == nil && svc.Spec.ClusterIP == "10.96.0.1"
	})
	took := time.Since(start)
	t.Logf("kubernetes Service back %v after its key vanished", took.Round(time.Millisecond))
	if took > kubernetesservice.Interval {
		t.Fatalf("the kubernetes Service came back after %v, beyond its %v interval", took, kubernetesservice.Interval)
	}
}
