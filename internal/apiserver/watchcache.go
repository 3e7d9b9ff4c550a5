package apiserver

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericoptions "k8s.io/apiserver/pkg/server/options"
)

// WatchCacheSizes are the resources whose watch cache is not the default
// one: kube-apiserver's (pkg/kubeapiserver DefaultWatchCacheSizes; the
// drift test compares them). Events have none: they are many, short-lived
// and rarely watched, so their lists and watches are served by etcd and
// the server does not hold every Event in memory.
func WatchCacheSizes() map[schema.GroupResource]int {
	return map[schema.GroupResource]int{
		{Resource: "events"}:                         0,
		{Group: "events.k8s.io", Resource: "events"}: 0,
	}
}

// applyWatchCacheSizes sets WatchCacheSizes on o.
func applyWatchCacheSizes(o *genericoptions.EtcdOptions) error {
	sizes, err := genericoptions.WriteWatchCacheSizes(WatchCacheSizes())
	if err != nil {
		return err
	}
	o.WatchCacheSizes = sizes
	return nil
}
