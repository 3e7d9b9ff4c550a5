package localetcd

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/svcplane/svcplane/internal/etcd"
)

// stores starts an embedded member and returns two stores of ConfigMaps
// over it: k8s.io/apiserver's own (factory.Create, a gRPC client on the
// member's socket) and Backend's (in-process), with the same config.
func stores(t *testing.T) (upstream, local storage.Interface, b *Backend) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts an embedded etcd")
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	member, err := etcd.Start(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(member.Close)
	cf := serializer.NewCodecFactory(clientgoscheme.Scheme)
	info, _ := runtime.SerializerInfoForMediaType(cf.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	codec := cf.CodecForVersions(info.Serializer, info.Serializer, corev1.SchemeGroupVersion, corev1.SchemeGroupVersion)
	cfg := storagebackend.NewDefaultConfig("/registry", codec)
	cfg.CompactionInterval = 0
	cfg.Transport.ServerList = member.Endpoints
	rc := cfg.ForResource(schema.GroupResource{Resource: "configmaps"})
	newFunc := func() runtime.Object { return &corev1.ConfigMap{} }
	newList := func() runtime.Object { return &corev1.ConfigMapList{} }
	up, destroyUp, err := factory.Create(*rc, newFunc, newList, "/configmaps")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(destroyUp)
	b = New(member.Server())
	t.Cleanup(b.Close)
	loc, destroyLoc, err := b.Raw(rc, newFunc, newList, "/configmaps")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(destroyLoc)
	return up, loc, b
}

func cm(name, v string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Data: map[string]string{"k": v}}
}

func key(name string) string { return "/configmaps/ns/" + name }

// TestSameAnswersAsUpstreamStore writes through either store in turn
// and checks that both read back the same objects, lists, resource
// versions and errors.
func TestSameAnswersAsUpstreamStore(t *testing.T) {
	up, loc, _ := stores(t)
	ctx := context.Background()
	both := map[string]storage.Interface{"upstream": up, "local": loc}
	same := func(what string, read func(s storage.Interface) (runtime.Object, error)) {
		t.Helper()
		a, errA := read(up)
		b, errB := read(loc)
		if fmt.Sprint(errA) != fmt.Sprint(errB) || !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: upstream %v (err %v), local %v (err %v)", what, a, errA, b, errB)
		}
	}
	get := func(name string) func(storage.Interface) (runtime.Object, error) {
		return func(s storage.Interface) (runtime.Object, error) {
			out := &corev1.ConfigMap{}
			err := s.Get(ctx, key(name), storage.GetOptions{}, out)
			return out, err
		}
	}
	list := func(s storage.Interface) (runtime.Object, error) {
		out := &corev1.ConfigMapList{}
		err := s.GetList(ctx, "/configmaps/ns", storage.ListOptions{Recursive: true, Predicate: storage.Everything}, out)
		return out, err
	}

	for i, name := range []string{"a", "b", "c"} {
		via := []storage.Interface{up, loc}[i%2]
		if err := via.Create(ctx, key(name), cm(name, "1"), &corev1.ConfigMap{}, 0); err != nil {
			t.Fatal(err)
		}
		same("get "+name, get(name))
	}
	same("list", list)
	for via, s := range both {
		err := s.Create(ctx, key("a"), cm("a", "2"), &corev1.ConfigMap{}, 0)
		if !storage.IsExist(err) {
			t.Fatalf("create existing via %s: %v, want a key-exists error", via, err)
		}
	}
	for _, s := range []storage.Interface{loc, up} {
		out := &corev1.ConfigMap{}
		err := s.GuaranteedUpdate(ctx, key("b"), out, false, nil, func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, *uint64, error) {
			c := in.(*corev1.ConfigMap).DeepCopy()
			c.Data["k"] += "+"
			return c, nil, nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		same("get b after update", get("b"))
	}
	if err := loc.Delete(ctx, key("c"), &corev1.ConfigMap{}, nil, storage.ValidateAllObjectFunc, nil, storage.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	same("get deleted c", get("c"))
	same("list after delete", list)
	// A stale precondition fails the same way through both.
	for via, s := range both {
		uid := "not-the-uid"
		err := s.Delete(ctx, key("a"), &corev1.ConfigMap{}, storage.NewUIDPreconditions(uid), storage.ValidateAllObjectFunc, nil, storage.DeleteOptions{})
		if !storage.IsInvalidObj(err) {
			t.Fatalf("delete with a wrong UID via %s: %v, want an invalid-object error", via, err)
		}
	}
	same("stats", func(s storage.Interface) (runtime.Object, error) {
		st, err := s.Stats(ctx)
		return &corev1.ConfigMap{Data: map[string]string{"count": fmt.Sprint(st.ObjectCount)}}, err
	})
}

// TestSameWatchAsUpstreamStore watches through both stores from one
// resource version and compares the events; after a compaction both end
// a watch from before it with 410 Gone.
func TestSameWatchAsUpstreamStore(t *testing.T) {
	up, loc, b := stores(t)
	ctx := context.Background()
	first := &corev1.ConfigMap{}
	if err := up.Create(ctx, key("w"), cm("w", "0"), first, 0); err != nil {
		t.Fatal(err)
	}
	from := first.ResourceVersion
	watches := map[string]watch.Interface{}
	for name, s := range map[string]storage.Interface{"upstream": up, "local": loc} {
		w, err := s.Watch(ctx, "/configmaps/ns", storage.ListOptions{ResourceVersion: from, Recursive: true, Predicate: storage.Everything})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		watches[name] = w
	}
	for i := 1; i <= 3; i++ {
		s := []storage.Interface{up, loc}[i%2]
		if err := s.GuaranteedUpdate(ctx, key("w"), &corev1.ConfigMap{}, false, nil, func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, *uint64, error) {
			c := in.(*corev1.ConfigMap).DeepCopy()
			c.Data["k"] = fmt.Sprint(i)
			return c, nil, nil
		}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := loc.Delete(ctx, key("w"), &corev1.ConfigMap{}, nil, storage.ValidateAllObjectFunc, nil, storage.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	events := map[string][]string{}
	for name, w := range watches {
		for len(events[name]) < 4 {
			select {
			case e := <-w.ResultChan():
				c, ok := e.Object.(*corev1.ConfigMap)
				if !ok {
					t.Fatalf("%s watch: %s %v", name, e.Type, e.Object)
				}
				events[name] = append(events[name], fmt.Sprintf("%s %s rv=%s k=%s", e.Type, c.Name, c.ResourceVersion, c.Data["k"]))
			case <-time.After(10 * time.Second):
				t.Fatalf("%s watch: %d events, want 4: %v", name, len(events[name]), events[name])
			}
		}
	}
	if !reflect.DeepEqual(events["upstream"], events["local"]) {
		t.Fatalf("watch events differ:\nupstream %v\nlocal    %v", events["upstream"], events["local"])
	}
	t.Logf("events: %v", events["local"])

	// Compact past the first write: a watch from it is too old for both.
	latest, err := loc.GetCurrentResourceVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Client().Compact(ctx, int64(latest)); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]storage.Interface{"upstream": up, "local": loc} {
		w, err := s.Watch(ctx, "/configmaps/ns", storage.ListOptions{ResourceVersion: from, Recursive: true, Predicate: storage.Everything})
		if err != nil {
			t.Fatal(err)
		}
		select {
		case e := <-w.ResultChan():
			st, ok := e.Object.(*metav1.Status)
			if e.Type != watch.Error || !ok || !apierrors.IsResourceExpired(apierrors.FromObject(st)) && !apierrors.IsGone(apierrors.FromObject(st)) {
				t.Fatalf("%s watch from a compacted revision: %s %v, want a 410 error event", name, e.Type, e.Object)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s watch from a compacted revision: no event", name)
		}
		w.Stop()
	}
}

// TestMemberStatusAnswersTheFeatureCheck: the feature checker asks each
// endpoint's Status for the etcd version (progress requests need 3.4.31+
// or 3.5.13+); the in-process client must name an endpoint and answer.
func TestMemberStatusAnswersTheFeatureCheck(t *testing.T) {
	_, _, b := stores(t)
	m := memberStatus{b.Client()}
	eps := m.Endpoints()
	if len(eps) != 1 {
		t.Fatalf("endpoints %v, want one", eps)
	}
	st, err := m.Status(context.Background(), eps[0])
	if err != nil {
		t.Fatal(err)
	}
	v, err := version.ParseSemantic(st.Version)
	if err != nil {
		t.Fatal(err)
	}
	if !v.AtLeast(version.MustParseSemantic("3.5.13")) {
		t.Fatalf("member version %s, want 3.5.13 or later", v)
	}
}
