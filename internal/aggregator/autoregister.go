package aggregator

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/server/healthz"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	apiregistrationinformers "k8s.io/kube-aggregator/pkg/client/informers/externalversions/apiregistration/v1"
)

// onStartRegistration is what registering the delegate's group versions
// asks of the autoregister controller.
type onStartRegistration interface {
	AddAPIServiceToSyncOnStart(in *apiregistrationv1.APIService)
}

// localAPIServices registers, as kube-apiserver does, a local APIService
// for every group version the delegate lists (/api/v1 → "v1.",
// /apis/<group>/<version> → "<version>.<group>") that has a priority;
// one without is skipped (logged), so it cannot linger in the list. It
// returns the registered APIServices.
func localAPIServices(listed []string, r onStartRegistration, priorities map[schema.GroupVersion]Priority) []*apiregistrationv1.APIService {
	var out []*apiregistrationv1.APIService
	for _, path := range listed {
		var gv schema.GroupVersion
		switch parts := strings.Split(path, "/"); {
		case path == "/api/v1":
			gv = schema.GroupVersion{Version: "v1"}
		case strings.HasPrefix(path, "/apis/") && len(parts) == 4:
			gv = schema.GroupVersion{Group: parts[2], Version: parts[3]}
		default:
			continue
		}
		s := localAPIService(gv, priorities)
		if s == nil {
			continue
		}
		r.AddAPIServiceToSyncOnStart(s)
		out = append(out, s)
	}
	return out
}

func localAPIService(gv schema.GroupVersion, priorities map[schema.GroupVersion]Priority) *apiregistrationv1.APIService {
	p, ok := priorities[gv]
	if !ok {
		klog.InfoS("Skipping APIService creation: no priority for the group version", "groupVersion", gv)
		return nil
	}
	return &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: gv.Version + "." + gv.Group},
		Spec: apiregistrationv1.APIServiceSpec{
			Group: gv.Group, Version: gv.Version,
			GroupPriorityMinimum: p.Group, VersionPriority: p.Version,
		},
	}
}

// availableCheck is kube-apiserver's autoregister-completion check:
// healthy once each of names has been seen Available at least once.
type availableCheck struct {
	mu      sync.RWMutex
	pending map[string]bool
}

func newAvailableCheck(services []*apiregistrationv1.APIService, informer apiregistrationinformers.APIServiceInformer) (*availableCheck, error) {
	c := &availableCheck{pending: map[string]bool{}}
	for _, s := range services {
		c.pending[s.Name] = true
	}
	_, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.observe,
		UpdateFunc: func(_, cur interface{}) { c.observe(cur) },
	})
	return c, err
}

func (c *availableCheck) observe(obj interface{}) {
	s, ok := obj.(*apiregistrationv1.APIService)
	if !ok || !v1helper.IsAPIServiceConditionTrue(s, apiregistrationv1.Available) {
		return
	}
	c.mu.Lock()
	delete(c.pending, s.Name)
	c.mu.Unlock()
}

// check fails while an APIService is still pending, naming them.
func (c *availableCheck) check(*http.Request) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if len(c.pending) == 0 {
		return nil
	}
	names := make([]string, 0, len(c.pending))
	for n := range c.pending {
		names = append(names, n)
	}
	sort.Strings(names)
	return fmt.Errorf("missing APIService: %v", names)
}

func (c *availableCheck) healthChecker() healthz.HealthChecker {
	return healthz.NamedCheck("autoregister-completion", c.check)
}
