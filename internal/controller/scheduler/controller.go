package scheduler

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	"github.com/svcplane/svcplane/internal/controller/worker"
)

// Name is the schedulerName this scheduler serves.
const Name = corev1.DefaultSchedulerName

// Scheduler binds pending pods.
type Scheduler struct {
	client   kubernetes.Interface
	pods     corelisters.PodLister
	nodes    corelisters.NodeLister
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
	recorder record.EventRecorder
	// bound counts the pods this scheduler bound per node that the pod
	// informer may not show yet, so a burst still spreads.
	bound map[string]map[string]bool
}

// New returns a scheduler fed by the given informers.
func New(client kubernetes.Interface, pods coreinformers.PodInformer, nodes coreinformers.NodeInformer) *Scheduler {
	b := record.NewBroadcaster()
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	s := &Scheduler{client: client, pods: pods.Lister(), nodes: nodes.Lister(),
		synced:   []cache.InformerSynced{pods.Informer().HasSynced, nodes.Informer().HasSynced},
		recorder: b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: Name}),
		bound:    map[string]map[string]bool{},
		queue:    worker.NewQueue[string]("scheduler")}
	enqueue := func(obj interface{}) {
		if p, ok := obj.(*corev1.Pod); ok && pending(p) {
			if key, err := cache.MetaNamespaceKeyFunc(p); err == nil {
				s.queue.Add(key)
			}
		}
	}
	_, _ = pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj interface{}) { enqueue(obj) },
	})
	_, _ = nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(interface{}) { s.requeuePending() }, UpdateFunc: func(_, _ interface{}) { s.requeuePending() },
	})
	return s
}

func pending(p *corev1.Pod) bool {
	return p.Spec.NodeName == "" && p.DeletionTimestamp == nil &&
		(p.Spec.SchedulerName == "" || p.Spec.SchedulerName == Name) &&
		p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

func (s *Scheduler) requeuePending() {
	pods, _ := s.pods.List(labels.Everything())
	for _, p := range pods {
		if pending(p) {
			s.queue.Add(p.Namespace + "/" + p.Name)
		}
	}
}

// schedule places one pod; retry reports that it fit nowhere.
func (s *Scheduler) schedule(ctx context.Context, key string) (retry bool, err error) {
	ns, name, _ := cache.SplitMetaNamespaceKey(key)
	pod, err := s.pods.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) || (err == nil && !pending(pod)) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	nodes, err := s.nodes.List(labels.Everything())
	if err != nil {
		return false, err
	}
	node, reasons := pick(pod, nodes, s.podsPerNode())
	if node == "" {
		s.recorder.Event(pod, corev1.EventTypeWarning, "FailedScheduling", failureMessage(len(nodes), reasons))
		return true, nil
	}
	err = s.client.CoreV1().Pods(ns).Bind(ctx, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: node},
	}, metav1.CreateOptions{})
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return false, nil // bound by someone else meanwhile, or gone
	}
	if err != nil {
		return false, err
	}
	if s.bound[node] == nil {
		s.bound[node] = map[string]bool{}
	}
	s.bound[node][key] = true
	s.recorder.Eventf(pod, corev1.EventTypeNormal, "Scheduled", "Successfully assigned %s to %s", key, node)
	return false, nil
}

// podsPerNode counts the non-terminal pods on each node, including pods
// this scheduler bound that the informer has not shown yet.
func (s *Scheduler) podsPerNode() map[string]int {
	counts := map[string]int{}
	seen := map[string]bool{}
	pods, _ := s.pods.List(labels.Everything())
	for _, p := range pods {
		if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		key := p.Namespace + "/" + p.Name
		seen[key] = true
		counts[p.Spec.NodeName]++
		delete(s.bound[p.Spec.NodeName], key)
	}
	for node, keys := range s.bound {
		for key := range keys {
			if !seen[key] {
				counts[node]++
			}
		}
	}
	return counts
}

// Run schedules until ctx ends (one worker: placements depend on each other).
func (s *Scheduler) Run(ctx context.Context, workers int) {
	worker.Run(ctx, s.queue, 1, s.syncKey, s.synced...)
}

func (s *Scheduler) syncKey(ctx context.Context, key string) (time.Duration, error) {
	retry, err := s.schedule(ctx, key)
	if err == nil && retry {
		return worker.Backoff, nil
	}
	return 0, err
}
