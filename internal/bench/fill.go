package bench

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// fillWorkers is how many clients create a bench's objects at once.
const fillWorkers = 32

// fillBenchServices creates namespace ns and n selectorless ClusterIP
// Services svc-<i> in it, each with one EndpointSlice of eps ready
// endpoints (benchSlice), with fillWorkers clients at once.
func fillBenchServices(client kubernetes.Interface, ns string, n, eps, nodes int) error {
	ctx := context.Background()
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	return forEachParallel(n, fillWorkers, func(i int) error {
		if _, err := client.CoreV1().Services(ns).Create(ctx, benchService(i), metav1.CreateOptions{}); err != nil {
			return err
		}
		_, err := client.DiscoveryV1().EndpointSlices(ns).Create(ctx, benchSlice(i, eps, nodes), metav1.CreateOptions{})
		return err
	})
}

// forEachParallel calls fn(0..n-1) from workers goroutines and returns
// the first error (the others stop taking work).
func forEachParallel(n, workers int, fn func(i int) error) error {
	work := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := fn(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	go func() {
		defer close(work)
		for i := range n {
			select {
			case work <- i:
			case err := <-errs:
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// benchService is svc-<i>: one TCP port 80 named http, no selector.
func benchService(i int) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("svc-%d", i)},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
}

// benchSlice is svc-<i>'s EndpointSlice svc-<i>-1: eps ready endpoints
// 10.(128+j).(i/256).(i%256), on nodes node-<k> round-robin over the
// whole cluster's endpoints (no node names when nodes is 0).
func benchSlice(i, eps, nodes int) *discoveryv1.EndpointSlice {
	name := fmt.Sprintf("svc-%d", i)
	es := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: name + "-1",
		Labels: map[string]string{discoveryv1.LabelServiceName: name}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](80)}}}
	for j := range eps {
		ep := discoveryv1.Endpoint{
			Addresses:  []string{fmt.Sprintf("10.%d.%d.%d", 128+j, i/256%256, i%256)},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)},
			Hostname:   ptr.To(fmt.Sprintf("ep-%d", j)),
		}
		if nodes > 0 {
			ep.NodeName = ptr.To(fmt.Sprintf("node-%d", (i*eps+j)%nodes))
		}
		es.Endpoints = append(es.Endpoints, ep)
	}
	return es
}
