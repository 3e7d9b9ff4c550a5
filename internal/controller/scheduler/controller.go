package scheduler

import (
	"context"
	"encoding/json"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/controller/worker"
)

// Name is the schedulerName this scheduler serves.
const Name = corev1.DefaultSchedulerName

// BindConcurrency is how many binds may be in flight at once; placements
// are decided one at a time, in memory, and never wait for a bind.
const BindConcurrency = 32

// Scheduler binds pending pods.
type Scheduler struct {
	client kubernetes.Interface
	pods   corelisters.PodLister
	// pendingPods indexes the pending pods (pendingIndex), so that a
	// node change requeues them without listing every pod.
	pendingPods cache.Indexer
	synced      []cache.InformerSynced
	queue       workqueue.TypedRateLimitingInterface[string]
	recorder    record.EventRecorder
	// events records to the API while Run runs.
	events record.EventBroadcaster
	cache  *podCache
	binds  chan struct{} // semaphore of BindConcurrency
	// bind sends one binding; a field so tests can hold binds back.
	bind func(ctx context.Context, b *corev1.Binding) error
	// clock stamps conditions' lastTransitionTime.
	clock clock.Clock
}

// New returns a scheduler fed by the given informers.
func New(client kubernetes.Interface, pods coreinformers.PodInformer, nodes coreinformers.NodeInformer) *Scheduler {
	b := record.NewBroadcaster()
	s := &Scheduler{client: client, pods: pods.Lister(), events: b,
		synced:   []cache.InformerSynced{pods.Informer().HasSynced, nodes.Informer().HasSynced},
		recorder: b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: Name}),
		cache:    newPodCache(),
		binds:    make(chan struct{}, BindConcurrency),
		clock:    clock.RealClock{},
		queue:    worker.NewQueue[string]("scheduler")}
	s.bind = func(ctx context.Context, b *corev1.Binding) error {
		return client.CoreV1().Pods(b.Namespace).Bind(ctx, b, metav1.CreateOptions{})
	}
	seen := func(obj interface{}) {
		p, ok := obj.(*corev1.Pod)
		if !ok {
			return
		}
		s.cache.observe(p)
		if pending(p) {
			s.queue.Add(podKey(p))
		}
	}
	_, _ = pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: seen, UpdateFunc: func(_, obj interface{}) { seen(obj) },
		DeleteFunc: func(obj interface{}) {
			if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
				s.cache.forget(key)
			}
		},
	})
	if err := pods.Informer().AddIndexers(cache.Indexers{pendingIndex: pendingIndexFunc}); err == nil {
		s.pendingPods = pods.Informer().GetIndexer()
	} else {
		klog.V(2).InfoS("Scheduler lists every pod on node changes", "reason", err)
	}
	_, _ = nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: s.nodeChanged, UpdateFunc: func(_, obj interface{}) { s.nodeChanged(obj) },
		DeleteFunc: func(obj interface{}) {
			if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
				s.cache.deleteNode(key)
			}
		},
	})
	return s
}

// pending: an unbound pod of ours to place. A pod with scheduling gates
// waits outside the queue (upstream's SchedulingGates PreEnqueue plugin);
// the API server gave it PodScheduled=False SchedulingGated at creation,
// and removing its last gate is an update that queues it.
func pending(p *corev1.Pod) bool {
	return p.Spec.NodeName == "" && p.DeletionTimestamp == nil && len(p.Spec.SchedulingGates) == 0 &&
		(p.Spec.SchedulerName == "" || p.Spec.SchedulerName == Name) && !terminal(p)
}

// pendingIndex indexes the pending pods under one value.
const pendingIndex, pendingValue = "scheduler.svcplane.io/pending", "pending"

func pendingIndexFunc(obj interface{}) ([]string, error) {
	if p, ok := obj.(*corev1.Pod); ok && pending(p) {
		return []string{pendingValue}, nil
	}
	return nil, nil
}

// nodeChanged takes a node's new version into placement and queues the
// pending pods again (one may fit now).
func (s *Scheduler) nodeChanged(obj interface{}) {
	if n, ok := obj.(*corev1.Node); ok {
		s.cache.setNode(n)
		s.requeuePending()
	}
}

// requeuePending queues the pending pods again (a node came or changed:
// one may fit now).
func (s *Scheduler) requeuePending() {
	if s.pendingPods == nil {
		pods, _ := s.pods.List(labels.Everything())
		for _, p := range pods {
			if pending(p) {
				s.queue.Add(podKey(p))
			}
		}
		return
	}
	objs, _ := s.pendingPods.ByIndex(pendingIndex, pendingValue)
	for _, obj := range objs {
		if p, ok := obj.(*corev1.Pod); ok && pending(p) {
			s.queue.Add(podKey(p))
		}
	}
}

// schedule places one pod: the node is chosen in memory and the pod assumed
// there at once (so the next placement counts it), then bound in the
// background. retry reports that it fit nowhere.
func (s *Scheduler) schedule(ctx context.Context, key string) (retry bool, err error) {
	ns, name, _ := cache.SplitMetaNamespaceKey(key)
	pod, err := s.pods.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) || (err == nil && !pending(pod)) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if s.cache.isAssumed(key) {
		return false, nil // its bind is in flight or its binding not yet seen
	}
	node, reasons, total := s.cache.place(pod)
	if node == "" {
		return true, s.unschedulable(ctx, pod, failureMessage(total, reasons))
	}
	s.cache.assume(key, node, requestsOf(pod, false))
	select {
	case s.binds <- struct{}{}:
	case <-ctx.Done():
		s.cache.unassume(key)
		return false, ctx.Err()
	}
	go s.bindAssumed(ctx, pod, node)
	return false, nil
}

// unschedulable reports a pod that fits nowhere as upstream's
// handleSchedulingFailure: a FailedScheduling event and the condition
// PodScheduled=False Unschedulable with the same message, patched only
// when the condition changes.
func (s *Scheduler) unschedulable(ctx context.Context, pod *corev1.Pod, msg string) error {
	s.recorder.Event(pod, corev1.EventTypeWarning, "FailedScheduling", msg)
	cond := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
		Reason: corev1.PodReasonUnschedulable, Message: msg, ObservedGeneration: pod.Generation}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			if c.Status == cond.Status && c.Reason == cond.Reason && c.Message == cond.Message &&
				c.ObservedGeneration == cond.ObservedGeneration {
				return nil
			}
			if c.Status == cond.Status {
				cond.LastTransitionTime = c.LastTransitionTime
			}
		}
	}
	if cond.LastTransitionTime.IsZero() {
		cond.LastTransitionTime = metav1.NewTime(s.clock.Now())
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"uid": pod.UID},
		"status": map[string]any{"conditions": []corev1.PodCondition{cond}}})
	if err != nil {
		return err
	}
	_, err = s.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch,
		metav1.PatchOptions{}, "status")
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone, or a new pod of that name (its own sync follows)
	}
	return err
}

// bindAssumed binds an assumed pod; on failure the assumption is taken back
// and the pod tried again later.
func (s *Scheduler) bindAssumed(ctx context.Context, pod *corev1.Pod, node string) {
	defer func() { <-s.binds }()
	key := podKey(pod)
	err := s.bind(ctx, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: node},
	})
	switch {
	case err == nil:
		s.recorder.Eventf(pod, corev1.EventTypeNormal, "Scheduled", "Successfully assigned %s to %s", key, node)
	case apierrors.IsConflict(err) || apierrors.IsNotFound(err):
		s.cache.unassume(key) // bound by someone else meanwhile, or gone
	default:
		s.cache.unassume(key)
		klog.FromContext(ctx).Error(err, "Binding failed", "pod", key, "node", node)
		s.queue.AddRateLimited(key)
	}
}

// Run schedules until ctx ends: one worker decides placements (they depend
// on each other); binds run concurrently.
func (s *Scheduler) Run(ctx context.Context, workers int) {
	s.events.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: s.client.CoreV1().Events("")})
	defer s.events.Shutdown()
	worker.Run(ctx, s.queue, 1, s.syncKey, s.synced...)
}

func (s *Scheduler) syncKey(ctx context.Context, key string) (time.Duration, error) {
	retry, err := s.schedule(ctx, key)
	if err == nil && retry {
		return worker.Backoff, nil
	}
	return 0, err
}
