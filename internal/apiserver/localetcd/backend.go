package localetcd

import (
	"context"
	"errors"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/kubernetes"
	"go.etcd.io/etcd/server/v3/etcdserver"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3client"
	"k8s.io/apimachinery/pkg/runtime"
	genericfeatures "k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/etcd3"
	etcdfeature "k8s.io/apiserver/pkg/storage/feature"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

var errClosed = errors.New("embedded etcd storage is closed")

// Backend makes etcd3 stores over one in-process client of an embedded
// member. It is safe for concurrent use.
type Backend struct {
	client *kubernetes.Client

	mu        sync.Mutex
	compactor compactor
	interval  time.Duration
	closed    bool
}

// compactor is what etcd3.StartCompactorPerEndpoint returns.
type compactor interface {
	etcd3.Compactor
	Stop()
}

// New returns a Backend over member, which must be started and run in
// this process.
func New(member *etcdserver.EtcdServer) *Backend {
	c := v3client.New(member)
	// As k8s.io/apiserver's factory does: the stores' KV requests feed
	// the etcd latency metrics.
	c.KV = etcd3.NewETCDLatencyTracker(c.KV)
	kc := &kubernetes.Client{Client: c}
	kc.Kubernetes = kc
	// etcd3.New asks k8s.io/apiserver's feature checker whether the etcd
	// behind a client can answer watch progress requests (the watch
	// cache then serves consistent reads), by the Status of each of the
	// client's endpoints; the in-process client has none. Check the
	// member itself instead, under a name of its own.
	etcdfeature.DefaultFeatureSupportChecker.CheckClient(c.Ctx(), memberStatus{c}, storage.RequestWatchProgress)
	return &Backend{client: kc}
}

// memberStatus is the in-process member as the feature checker's client:
// one endpoint, answered by the member's own Status.
type memberStatus struct{ c *clientv3.Client }

func (m memberStatus) Endpoints() []string { return []string{"in-process"} }

func (m memberStatus) Status(ctx context.Context, _ string) (*clientv3.StatusResponse, error) {
	// The in-process maintenance client ignores the endpoint.
	return m.c.Status(ctx, "in-process")
}

// Client is the in-process client (for callers that need etcd itself).
func (b *Backend) Client() *clientv3.Client { return b.client.Client }

// Raw is factory.Create for the member: an etcd3 store of resourcePrefix
// under c.Prefix, with c's codec, transformer and lease settings, and
// k8s.io/apiserver's one compactor per etcd (c.CompactionInterval; 0:
// none) shared by all stores.
func (b *Backend) Raw(c *storagebackend.ConfigForResource, newFunc, newListFunc func() runtime.Object, resourcePrefix string) (storage.Interface, factory.DestroyFunc, error) {
	comp, err := b.compactorFor(c.CompactionInterval)
	if err != nil {
		return nil, nil, err
	}
	transformer := c.Transformer
	if transformer == nil {
		transformer = identity.NewEncryptCheckTransformer()
	}
	versioner := storage.APIObjectVersioner{}
	decoder := etcd3.NewDefaultDecoder(c.Codec, versioner)
	unsafeDelete := utilfeature.DefaultFeatureGate.Enabled(genericfeatures.AllowUnsafeMalformedObjectDeletion)
	if unsafeDelete {
		transformer = etcd3.WithCorruptObjErrorHandlingTransformer(transformer)
		decoder = etcd3.WithCorruptObjErrorHandlingDecoder(decoder)
	}
	store, err := etcd3.New(b.client, comp, c.Codec, newFunc, newListFunc, c.Prefix, resourcePrefix,
		c.GroupResource, transformer, c.LeaseManagerConfig, decoder, versioner)
	if err != nil {
		return nil, nil, err
	}
	var once sync.Once
	destroy := func() { once.Do(store.Close) }
	var s storage.Interface = store
	if unsafeDelete {
		s = etcd3.NewStoreWithUnsafeCorruptObjectDeletion(s, c.GroupResource)
	}
	return s, destroy, nil
}

// compactorFor starts the compactor on the first store that asks for
// one; a store asking for a shorter interval restarts it with that one,
// as k8s.io/apiserver's startCompactorOnce does. It returns nil for 0
// (etcd3.New then never compacts).
func (b *Backend) compactorFor(interval time.Duration) (etcd3.Compactor, error) {
	if interval == 0 {
		return nil, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errClosed
	}
	if b.compactor == nil || interval < b.interval {
		if b.compactor != nil {
			b.compactor.Stop()
		}
		b.compactor, b.interval = etcd3.StartCompactorPerEndpoint(b.client.Client, interval), interval
	}
	return b.compactor, nil
}

// Close stops the compactor and the client. Stores made before must
// have been destroyed.
func (b *Backend) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	if b.compactor != nil {
		b.compactor.Stop()
	}
	_ = b.client.Close()
}
