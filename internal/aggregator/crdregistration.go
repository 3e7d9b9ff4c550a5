package aggregator

import (
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions/apiextensions/v1"
	crdlisters "k8s.io/apiextensions-apiserver/pkg/client/listers/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// CRD APIServices' priorities (kube-apiserver's crdRegistrationController):
// after every built-in group; versions of one group in kube-aware order.
const (
	crdGroupPriority   = 1000
	crdVersionPriority = 100
)

// APIServiceRegistration is what the CRD controller asks of the
// autoregister controller (k8s.io/kube-aggregator's).
type APIServiceRegistration interface {
	AddAPIServiceToSync(in *apiregistrationv1.APIService)
	RemoveAPIServiceToSync(name string)
}

// CRDRegistration keeps an APIService for every group version some CRD
// serves (test/drift runs it beside upstream's on the same CRDs), as kube-apiserver's crdRegistrationController (which lives in
// k8s.io/kubernetes): queued by group version, each sync looks at every
// CRD of the group.
type CRDRegistration struct {
	lister       crdlisters.CustomResourceDefinitionLister
	synced       cache.InformerSynced
	registration APIServiceRegistration
	queue        workqueue.TypedRateLimitingInterface[schema.GroupVersion]
	initial      chan struct{}
}

// NewCRDRegistration registers with informer; Run starts the work.
func NewCRDRegistration(informer crdinformers.CustomResourceDefinitionInformer, r APIServiceRegistration) (*CRDRegistration, error) {
	c := &CRDRegistration{
		lister:       informer.Lister(),
		synced:       informer.Informer().HasSynced,
		registration: r,
		initial:      make(chan struct{}),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[schema.GroupVersion](),
			workqueue.TypedRateLimitingQueueConfig[schema.GroupVersion]{Name: "crd_autoregistration_controller"}),
	}
	_, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.enqueue,
		// Both: a version dropped from the CRD must lose its APIService.
		UpdateFunc: func(old, cur interface{}) { c.enqueue(old); c.enqueue(cur) },
		DeleteFunc: c.enqueue,
	})
	return c, err
}

func (c *CRDRegistration) enqueue(obj interface{}) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return
	}
	for _, v := range crd.Spec.Versions {
		c.queue.Add(schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name})
	}
}

// Run syncs every group version of the CRDs the informer first lists
// (then WaitForInitialSync returns), then follows changes with workers
// until stop closes.
func (c *CRDRegistration) Run(workers int, stop <-chan struct{}) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	if !cache.WaitForNamedCacheSync("crd-autoregister", stop, c.synced) {
		return
	}
	crds, err := c.lister.List(labels.Everything())
	if err != nil {
		utilruntime.HandleError(err)
	}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if err := c.sync(schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}); err != nil {
				utilruntime.HandleError(err)
			}
		}
	}
	close(c.initial)
	for range workers {
		go wait.Until(c.worker, time.Second, stop)
	}
	<-stop
}

// WaitForInitialSync blocks until Run has registered the first list.
func (c *CRDRegistration) WaitForInitialSync() { <-c.initial }

func (c *CRDRegistration) worker() {
	for c.processNextWorkItem() {
	}
}

func (c *CRDRegistration) processNextWorkItem() bool {
	gv, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(gv)
	if err := c.sync(gv); err != nil {
		utilruntime.HandleError(fmt.Errorf("%v failed with: %w", gv, err))
		c.queue.AddRateLimited(gv)
		return true
	}
	c.queue.Forget(gv)
	return true
}

// sync registers gv's APIService while some CRD serves gv, else removes it.
func (c *CRDRegistration) sync(gv schema.GroupVersion) error {
	name := gv.Version + "." + gv.Group
	crds, err := c.lister.List(labels.Everything())
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if crd.Spec.Group != gv.Group {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name == gv.Version && v.Served {
				c.registration.AddAPIServiceToSync(&apiregistrationv1.APIService{
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: apiregistrationv1.APIServiceSpec{
						Group: gv.Group, Version: gv.Version,
						GroupPriorityMinimum: crdGroupPriority, VersionPriority: crdVersionPriority,
					},
				})
				return nil
			}
		}
	}
	klog.V(4).InfoS("no CRD serves the group version any more", "apiService", name)
	c.registration.RemoveAPIServiceToSync(name)
	return nil
}
