package serviceaccounttoken

import (
	"bytes"
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	sa "github.com/svcplane/svcplane/internal/auth/serviceaccount"
	"github.com/svcplane/svcplane/internal/controller/worker"
)

// Controller fills the legacy token Secrets.
type Controller struct {
	client          kubernetes.Interface
	gen             *sa.Generator
	rootCA          []byte
	secrets         listers.SecretLister
	serviceAccounts listers.ServiceAccountLister
	synced          []cache.InformerSynced
	queue           workqueue.TypedRateLimitingInterface[cache.ObjectName]
}

// New returns a controller that signs with gen (issuer
// sa.LegacyIssuer) and writes rootCA as ca.crt.
func New(client kubernetes.Interface, secrets informers.SecretInformer, serviceAccounts informers.ServiceAccountInformer, gen *sa.Generator, rootCA []byte) *Controller {
	c := &Controller{
		client: client, gen: gen, rootCA: rootCA,
		secrets: secrets.Lister(), serviceAccounts: serviceAccounts.Lister(),
		synced: []cache.InformerSynced{secrets.Informer().HasSynced, serviceAccounts.Informer().HasSynced},
		queue:  worker.NewQueue[cache.ObjectName]("serviceaccount_tokens_secret"),
	}
	_, _ = secrets.Informer().AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: func(obj interface{}) bool {
			s, ok := obj.(*corev1.Secret)
			return ok && s.Type == corev1.SecretTypeServiceAccountToken
		},
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    c.enqueueSecret,
			UpdateFunc: func(_, obj interface{}) { c.enqueueSecret(obj) },
		},
	})
	_, _ = serviceAccounts.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueTokensOf,
		UpdateFunc: func(_, obj interface{}) { c.enqueueTokensOf(obj) },
		DeleteFunc: c.enqueueTokensOf,
	})
	return c
}

func (c *Controller) enqueueSecret(obj interface{}) {
	if s, ok := obj.(*corev1.Secret); ok {
		c.queue.Add(cache.MetaObjectToName(s))
	}
}

// enqueueTokensOf queues the token Secrets naming a ServiceAccount (so
// they are filled once it exists, and deleted with it).
func (c *Controller) enqueueTokensOf(obj interface{}) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	acct, ok := obj.(*corev1.ServiceAccount)
	if !ok {
		return
	}
	secrets, err := c.secrets.Secrets(acct.Namespace).List(everything)
	if err != nil {
		return
	}
	for _, s := range secrets {
		if s.Type == corev1.SecretTypeServiceAccountToken && s.Annotations[corev1.ServiceAccountNameKey] == acct.Name {
			c.queue.Add(cache.MetaObjectToName(s))
		}
	}
}

// Run processes the queue with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.Run(ctx, c.queue, workers, c.syncKey, c.synced...)
}

func (c *Controller) syncKey(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	return 0, c.sync(ctx, key)
}

// sync deletes a token Secret without its ServiceAccount, or fills what
// it lacks.
func (c *Controller) sync(ctx context.Context, key cache.ObjectName) error {
	secret, err := c.secrets.Secrets(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if secret.Type != corev1.SecretTypeServiceAccountToken || secret.DeletionTimestamp != nil {
		return nil
	}
	acct, err := c.serviceAccount(ctx, secret)
	if err != nil {
		return err
	}
	if acct == nil {
		klog.V(2).InfoS("Deleting token secret of a missing service account", "secret", klog.KObj(secret))
		uid := secret.UID
		err := c.client.CoreV1().Secrets(secret.Namespace).Delete(ctx, secret.Name,
			metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil
		}
		return err
	}
	if !c.needsFill(secret, acct) {
		return nil
	}
	return c.fill(ctx, secret, acct)
}

// serviceAccount returns the Secret's ServiceAccount, or nil when it does
// not exist or has another UID than the Secret's annotation (read from the
// API when the informer disagrees, so a just-created one is not missed).
func (c *Controller) serviceAccount(ctx context.Context, secret *corev1.Secret) (*corev1.ServiceAccount, error) {
	name, uid := secret.Annotations[corev1.ServiceAccountNameKey], secret.Annotations[corev1.ServiceAccountUIDKey]
	matches := func(a *corev1.ServiceAccount) bool { return uid == "" || string(a.UID) == uid }
	if a, err := c.serviceAccounts.ServiceAccounts(secret.Namespace).Get(name); err == nil && matches(a) {
		return a, nil
	}
	a, err := c.client.CoreV1().ServiceAccounts(secret.Namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !matches(a) {
		return nil, nil
	}
	return a, nil
}

func (c *Controller) needsFill(s *corev1.Secret, acct *corev1.ServiceAccount) bool {
	return len(s.Data[corev1.ServiceAccountTokenKey]) == 0 ||
		!bytes.Equal(s.Data[corev1.ServiceAccountNamespaceKey], []byte(s.Namespace)) ||
		(len(c.rootCA) > 0 && !bytes.Equal(s.Data[corev1.ServiceAccountRootCAKey], c.rootCA)) ||
		s.Annotations[corev1.ServiceAccountUIDKey] != string(acct.UID)
}

// fill writes the token (a new one only when there is none), ca.crt,
// namespace and the ServiceAccount's UID into the Secret; a conflict is
// retried from the informer's next copy.
func (c *Controller) fill(ctx context.Context, secret *corev1.Secret, acct *corev1.ServiceAccount) error {
	s := secret.DeepCopy()
	if s.Data == nil {
		s.Data = map[string][]byte{}
	}
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	if len(s.Data[corev1.ServiceAccountTokenKey]) == 0 {
		public, private := sa.LegacyClaims(acct, s)
		token, err := c.gen.GenerateToken(public, private)
		if err != nil {
			return err
		}
		s.Data[corev1.ServiceAccountTokenKey] = []byte(token)
	}
	s.Data[corev1.ServiceAccountNamespaceKey] = []byte(s.Namespace)
	if len(c.rootCA) > 0 {
		s.Data[corev1.ServiceAccountRootCAKey] = c.rootCA
	}
	s.Annotations[corev1.ServiceAccountNameKey] = acct.Name
	s.Annotations[corev1.ServiceAccountUIDKey] = string(acct.UID)
	_, err := c.client.CoreV1().Secrets(s.Namespace).Update(ctx, s, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		// Gone, or changed: the informer brings the next copy.
		return nil
	}
	return err
}

var everything = labels.Everything()
