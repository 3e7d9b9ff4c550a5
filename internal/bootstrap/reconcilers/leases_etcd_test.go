package reconcilers

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage/storagebackend"

	"github.com/svcplane/svcplane/internal/etcd"
	"github.com/svcplane/svcplane/internal/testutil"
)

// TestEtcdLeaseOutlivesItsTTLWhileRefreshed runs the lease store on a real
// etcd with a 1 s TTL, refreshes it every ½ s for 3½ s (over three TTLs)
// and requires that the key was never deleted: the etcd3 store skips
// writes of unchanged bytes, so a refresh that wrote the same object would
// leave the first etcd lease to expire. Once refreshes stop, the key goes.
func TestEtcdLeaseOutlivesItsTTLWhileRefreshed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded etcd")
	}
	dir := t.TempDir()
	e, err := etcd.Start(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	codec := serializer.NewCodecFactory(scheme).LegacyCodec(corev1.SchemeGroupVersion)
	cfg := storagebackend.NewDefaultConfig("/registry", codec)
	cfg.Transport.ServerList = e.Endpoints
	s, destroy, err := generic.NewRawStorage(cfg.ForResource(schema.GroupResource{Resource: "apiServerIPInfo"}),
		func() runtime.Object { return &corev1.Endpoints{} }, nil, "/masterleases")
	if err != nil {
		t.Fatal(err)
	}
	defer destroy()
	leases := NewEtcdLeasesTTL(s, time.Second)

	ec, err := clientv3.New(clientv3.Config{Endpoints: e.Endpoints, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	watch := ec.Watch(ctx, "/registry"+LeasePrefix, clientv3.WithPrefix())

	const ip = "10.0.0.1"
	// Seven refreshes 500 ms apart keep the 1 s lease alive for 3.5 s (etcd
	// expires it on its own clock: this part cannot run on a fake one).
	refresh := time.NewTicker(500 * time.Millisecond)
	defer refresh.Stop()
	for i := 0; i < 7; i++ {
		if err := leases.Update(ctx, ip); err != nil {
			t.Fatal(err)
		}
		if ips, err := leases.List(ctx); err != nil || len(ips) != 1 {
			t.Fatalf("right after a refresh the lease list is %v (%v)", ips, err)
		}
		<-refresh.C
	}
	puts, deletes := 0, 0
	// drain counts the watch events that have arrived.
	drain := func() {
		for {
			select {
			case r := <-watch:
				for _, ev := range r.Events {
					if ev.Type == clientv3.EventTypeDelete {
						deletes++
					} else {
						puts++
					}
				}
			default:
				return
			}
		}
	}
	testutil.Eventually(t, 5*time.Second, "every refresh seen by the watch", func() bool { drain(); return puts >= 7 })
	if deletes != 0 {
		t.Fatalf("while refreshed: %d puts, %d deletes; want every refresh written and no delete", puts, deletes)
	}
	refreshed := puts
	// etcd expires a lease within about a second after its TTL.
	testutil.Eventually(t, 5*time.Second, "the key to expire", func() bool { drain(); return deletes > 0 })
	if deletes != 1 || puts != refreshed {
		t.Fatalf("after refreshes stopped: %d more puts, %d deletes; want none and the key expired once", puts-refreshed, deletes)
	}
}
