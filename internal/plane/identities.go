package plane

import (
	"context"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/controller/manager"
)

// identityCertMaxAge is how long an in-process component's certificate
// lives (as the loopback certificate; a restart makes new ones).
const identityCertMaxAge = (3*365 + 1) * 24 * time.Hour

// identityConfig is loopback's client config (the server in this
// process) acting as id instead of system:masters: an in-memory client
// certificate from the cluster CA for id's user and groups. In-process
// components so get the identities and RBAC roles upstream gives their
// counterparts.
func (p *Plane) identityConfig(loopback *rest.Config, id manager.Identity) (*rest.Config, error) {
	certPEM, keyPEM, err := p.Server.CA().ClientPEM(id.User, id.Groups, identityCertMaxAge)
	if err != nil {
		return nil, err
	}
	cfg := rest.AnonymousClientConfig(loopback)
	cfg.CertData, cfg.KeyData = certPEM, keyPEM
	return cfg, nil
}

// waitAuthorized waits, up to timeout, until cfg's identity may do verb on
// a resource (group/resource) in namespace: at start the RBAC bootstrap
// policy and the authorizer's informers may not have caught up yet, and a
// component that begins before would log refusals.
func waitAuthorized(ctx context.Context, cfg *rest.Config, verb, group, resource, namespace string, timeout time.Duration) {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return
	}
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: group, Resource: resource, Namespace: namespace}}}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		r, err := client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		return err == nil && r.Status.Allowed, nil
	})
	if err != nil && ctx.Err() == nil {
		klog.InfoS("Not yet authorized; starting anyway", "verb", verb, "resource", resource, "namespace", namespace, "waited", timeout)
	}
}
