package localetcd

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/svcplane/svcplane/internal/apiserver/versionshare"
)

// TestCachedServesEachVersionAsWritten: through the watch cache (whose
// versions share memory, versionshare), a watch replays every version of
// an object with its own values and a cached list and get answer as the
// store does, after writes that change one field and leave the others.
func TestCachedServesEachVersionAsWritten(t *testing.T) {
	up, _, b := stores(t)
	ctx := context.Background()
	cf := serializer.NewCodecFactory(clientgoscheme.Scheme)
	info, _ := runtime.SerializerInfoForMediaType(cf.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	cfg := storagebackend.NewDefaultConfig("/registry", cf.CodecForVersions(info.Serializer, info.Serializer, corev1.SchemeGroupVersion, corev1.SchemeGroupVersion))
	rc := cfg.ForResource(schema.GroupResource{Resource: "configmaps"})
	s, destroyStore, err := b.Raw(rc, func() runtime.Object { return &corev1.ConfigMap{} }, func() runtime.Object { return &corev1.ConfigMapList{} }, "/configmaps")
	if err != nil {
		t.Fatal(err)
	}
	cached, destroy, err := versionshare.NewCached(rc, s, destroyStore, "/configmaps",
		func(obj runtime.Object) (string, error) { return storage.NamespaceKeyFunc("/configmaps/", obj) },
		func() runtime.Object { return &corev1.ConfigMap{} }, func() runtime.Object { return &corev1.ConfigMapList{} },
		storage.DefaultNamespaceScopedAttr, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(destroy)

	first := &corev1.ConfigMap{}
	c := cm("v", "0")
	c.Labels = map[string]string{"app": "web"}
	c.Data["big"] = "unchanged"
	if err := up.Create(ctx, key("v"), c, first, 0); err != nil {
		t.Fatal(err)
	}
	// The cache answers once its reflector has listed.
	var w watch.Interface
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		var err error
		w, err = cached.Watch(ctx, "/configmaps/ns", storage.ListOptions{ResourceVersion: first.ResourceVersion, Recursive: true, Predicate: storage.Everything})
		return err == nil, nil
	}); err != nil {
		t.Fatal("the watch cache did not become ready:", err)
	}
	defer w.Stop()
	var want []string
	for i := 1; i <= 4; i++ {
		out := &corev1.ConfigMap{}
		if err := up.GuaranteedUpdate(ctx, key("v"), out, false, nil, func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, *uint64, error) {
			c := in.(*corev1.ConfigMap).DeepCopy()
			if i%2 == 1 {
				c.Data["k"] = fmt.Sprint(i)
			} else {
				c.Labels = map[string]string{"app": "web", "step": fmt.Sprint(i)}
			}
			return c, nil, nil
		}, nil); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("MODIFIED rv=%s data=%v labels=%v", out.ResourceVersion, out.Data, out.Labels))
	}
	var got []string
	for len(got) < len(want) {
		select {
		case e := <-w.ResultChan():
			obj := e.Object
			if co, ok := obj.(runtime.CacheableObject); ok {
				obj = co.GetObject() // the cache's serialization wrapper
			}
			c, ok := obj.(*corev1.ConfigMap)
			if !ok {
				t.Fatalf("watch: %s %v", e.Type, e.Object)
			}
			got = append(got, fmt.Sprintf("%s rv=%s data=%v labels=%v", e.Type, c.ResourceVersion, c.Data, c.Labels))
		case <-time.After(10 * time.Second):
			t.Fatalf("watch: %d events, want %d: %v", len(got), len(want), got)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("cached watch:\n got %v\nwant %v", got, want)
	}

	stored := &corev1.ConfigMap{}
	if err := up.Get(ctx, key("v"), storage.GetOptions{}, stored); err != nil {
		t.Fatal(err)
	}
	fromCache := &corev1.ConfigMap{}
	if err := cached.Get(ctx, key("v"), storage.GetOptions{ResourceVersion: "0"}, fromCache); err != nil {
		t.Fatal(err)
	}
	list := &corev1.ConfigMapList{}
	if err := cached.GetList(ctx, "/configmaps/ns", storage.ListOptions{ResourceVersion: "0", Recursive: true, Predicate: storage.Everything}, list); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromCache, stored) || len(list.Items) != 1 || !reflect.DeepEqual(&list.Items[0], stored) {
		t.Errorf("cache answers differ from the store's:\nstore %+v\nget   %+v\nlist  %+v", stored, fromCache, list.Items)
	}
}
