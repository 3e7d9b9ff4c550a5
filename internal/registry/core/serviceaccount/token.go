package serviceaccount

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/audit"
	apiserverserviceaccount "k8s.io/apiserver/pkg/authentication/serviceaccount"
	authenticationtokenjwt "k8s.io/apiserver/pkg/authentication/token/jwt"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	sa "github.com/svcplane/svcplane/internal/auth/serviceaccount"
)

// Upstream's TokenRequest limits (pkg/apis/authentication/validation) and
// v1 default.
const (
	minTokenAgeSec           = 10 * 60
	maxTokenAgeSec           = 1 << 32
	defaultExpirationSeconds = 60 * 60
)

var tokenRequestGVK = authenticationv1.SchemeGroupVersion.WithKind("TokenRequest")

// TokenConfig is how the server issues tokens.
type TokenConfig struct {
	Generator *sa.Generator
	// Audiences are the API audiences: the default of a request, and the
	// audiences whose tokens may be extended.
	Audiences []string
	// MaxExpiration (--service-account-max-token-expiration, 0 for none)
	// shortens longer requests.
	MaxExpiration time.Duration
	// ExtendExpiration (--service-account-extend-token-expiration): a
	// pod-bound token of the default audiences asking for kubelet's
	// WarnOnlyBoundTokenExpirationSeconds lives MaxExtendedExpiration.
	ExtendExpiration      bool
	MaxExtendedExpiration time.Duration
	Clock                 clock.PassiveClock
	// NewJTI makes token IDs (uuid when nil).
	NewJTI func() string
}

// TokenREST is serviceaccounts/token. Pods, Secrets and Nodes are the
// bound objects' stores; the server sets them once every store exists.
type TokenREST struct {
	config               TokenConfig
	serviceAccounts      rest.Getter
	Pods, Secrets, Nodes rest.Getter
}

var (
	_ rest.NamedCreater                   = &TokenREST{}
	_ rest.GroupVersionKindProvider       = &TokenREST{}
	_ rest.SubresourceObjectMetaPreserver = &TokenREST{}
)

// NewTokenREST returns the token subresource over the serviceaccounts store.
func NewTokenREST(serviceAccounts rest.Getter, c TokenConfig) *TokenREST {
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	if c.NewJTI == nil {
		c.NewJTI = uuid.NewString
	}
	return &TokenREST{config: c, serviceAccounts: serviceAccounts}
}

func (r *TokenREST) New() runtime.Object { return &authenticationv1.TokenRequest{} }
func (r *TokenREST) Destroy()            {}

// GroupVersionKind is authentication.k8s.io/v1 TokenRequest.
func (r *TokenREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return tokenRequestGVK
}

// PreserveRequestObjectMetaSystemFieldsOnSubresourceCreate keeps the
// ServiceAccount's name, namespace and UID in the answer.
func (r *TokenREST) PreserveRequestObjectMetaSystemFieldsOnSubresourceCreate() bool { return true }

// Create issues a token for the ServiceAccount name.
func (r *TokenREST) Create(ctx context.Context, name string, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	req, ok := obj.(*authenticationv1.TokenRequest)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a TokenRequest: %T", obj))
	}
	namespace, ok := genericapirequest.NamespaceFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("namespace is required")
	}
	if req.Name != "" && req.Name != name {
		return nil, apierrors.NewInvalid(tokenRequestGVK.GroupKind(), name, field.ErrorList{
			field.Invalid(field.NewPath("metadata").Child("name"), req.Name, "must match the service account name if specified")})
	}
	if req.Namespace != "" && req.Namespace != namespace {
		return nil, apierrors.NewInvalid(tokenRequestGVK.GroupKind(), name, field.ErrorList{
			field.Invalid(field.NewPath("metadata").Child("namespace"), req.Namespace, "must match the service account namespace if specified")})
	}
	saObj, err := r.serviceAccounts.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	svcacct := saObj.(*corev1.ServiceAccount)
	if req.UID != "" && req.UID != svcacct.UID {
		return nil, apierrors.NewConflict(schema.GroupResource{Group: tokenRequestGVK.Group, Resource: tokenRequestGVK.Kind}, name,
			fmt.Errorf("the UID in the token request (%s) does not match the UID of the service account (%s)", req.UID, svcacct.UID))
	}
	if len(req.Spec.Audiences) == 0 {
		req.Spec.Audiences = r.config.Audiences
	}
	if req.Spec.ExpirationSeconds == nil {
		req.Spec.ExpirationSeconds = ptrTo(int64(defaultExpirationSeconds))
	}
	req.Name, req.Namespace, req.UID = svcacct.Name, svcacct.Namespace, svcacct.UID
	now := r.config.Clock.Now()
	req.CreationTimestamp = metav1.NewTime(now)
	req.Status = authenticationv1.TokenRequestStatus{}
	if errs := validateTokenRequest(req); len(errs) != 0 {
		return nil, apierrors.NewInvalid(tokenRequestGVK.GroupKind(), "", errs)
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	bound, err := r.bound(ctx, name, namespace, req.Spec.BoundObjectRef)
	if err != nil {
		return nil, err
	}
	if maxSec := int64(r.config.MaxExpiration / time.Second); maxSec > 0 && *req.Spec.ExpirationSeconds > maxSec {
		warning.AddWarning(ctx, "", fmt.Sprintf("requested expiration of %d seconds shortened to %d seconds", *req.Spec.ExpirationSeconds, maxSec))
		req.Spec.ExpirationSeconds = ptrTo(maxSec)
	}
	exp, warnAfter := *req.Spec.ExpirationSeconds, int64(0)
	if r.config.ExtendExpiration && bound.Pod != nil && exp == sa.WarnOnlyBoundTokenExpirationSeconds && r.isAPIAudiences(req.Spec.Audiences) {
		warnAfter, exp = exp, int64(r.config.MaxExtendedExpiration/time.Second)
	}
	public, private, err := sa.Claims(now, r.config.NewJTI(), svcacct, bound, exp, warnAfter, req.Spec.Audiences)
	if err != nil {
		return nil, err
	}
	token, err := r.config.Generator.GenerateToken(public, private)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("failed to generate token: %v", err))
	}
	out := req.DeepCopy()
	out.Status = authenticationv1.TokenRequestStatus{
		Token:               token,
		ExpirationTimestamp: metav1.NewTime(now.Add(time.Duration(*out.Spec.ExpirationSeconds) * time.Second)),
	}
	if public.ID != "" {
		audit.AddAuditAnnotation(ctx, apiserverserviceaccount.IssuedCredentialIDAuditAnnotationKey, authenticationtokenjwt.CredentialIDForJTI(public.ID))
	}
	return out, nil
}

// bound reads the object the token is to be bound to and checks its UID.
func (r *TokenREST) bound(ctx context.Context, saName, namespace string, ref *authenticationv1.BoundObjectReference) (sa.Bound, error) {
	var b sa.Bound
	if ref == nil {
		return b, nil
	}
	gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
	var uid types.UID
	switch {
	case gvk.Group == "" && gvk.Kind == "Pod":
		obj, err := get(ctx, r.Pods, "pods", ref.Name, namespace, gvk, &metav1.GetOptions{})
		if err != nil {
			return b, err
		}
		b.Pod = obj.(*corev1.Pod)
		if saName != b.Pod.Spec.ServiceAccountName {
			return b, apierrors.NewBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to pod running with different serviceaccount name.", saName))
		}
		uid = b.Pod.UID
		if nodeName := b.Pod.Spec.NodeName; nodeName != "" {
			nodeGVK := corev1.SchemeGroupVersion.WithKind("Node")
			obj, err := get(ctx, r.Nodes, "nodes", nodeName, "", nodeGVK, &metav1.GetOptions{ResourceVersion: "0"})
			if err != nil {
				obj, err = get(ctx, r.Nodes, "nodes", nodeName, "", nodeGVK, &metav1.GetOptions{})
			}
			switch {
			case apierrors.IsNotFound(err):
				klog.V(4).ErrorS(err, "failed fetching node for pod", "pod", klog.KObj(b.Pod), "podUID", b.Pod.UID, "nodeName", nodeName)
				b.Node = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}}
			case err != nil:
				return b, apierrors.NewInternalError(err)
			default:
				b.Node = obj.(*corev1.Node)
			}
		}
	case gvk.Group == "" && gvk.Kind == "Node":
		obj, err := get(ctx, r.Nodes, "nodes", ref.Name, "", gvk, &metav1.GetOptions{})
		if err != nil {
			return b, err
		}
		b.Node = obj.(*corev1.Node)
		uid = b.Node.UID
	case gvk.Group == "" && gvk.Kind == "Secret":
		obj, err := get(ctx, r.Secrets, "secrets", ref.Name, namespace, gvk, &metav1.GetOptions{})
		if err != nil {
			return b, err
		}
		b.Secret = obj.(*corev1.Secret)
		uid = b.Secret.UID
	default:
		return b, apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s", gvk.String()))
	}
	if ref.UID != "" && uid != ref.UID {
		return b, apierrors.NewConflict(schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}, ref.Name,
			fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
	}
	return b, nil
}

// get reads a bound object from its store with a request info naming it,
// as upstream's newContext.
func get(ctx context.Context, g rest.Getter, resource, name, namespace string, gvk schema.GroupVersionKind, opts *metav1.GetOptions) (runtime.Object, error) {
	if g == nil {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: resource}, name)
	}
	ctx = genericapirequest.WithNamespace(ctx, namespace)
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: "get", Namespace: namespace, Resource: resource, Name: name,
		Parts: []string{resource, name}, APIGroup: gvk.Group, APIVersion: gvk.Version,
	})
	return g.Get(ctx, name, opts)
}

func (r *TokenREST) isAPIAudiences(auds []string) bool {
	for _, a := range auds {
		found := false
		for _, b := range r.config.Audiences {
			if a == b {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// validateTokenRequest is upstream's ValidateTokenRequest.
func validateTokenRequest(tr *authenticationv1.TokenRequest) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec").Child("expirationSeconds")
	exp := *tr.Spec.ExpirationSeconds
	if exp < minTokenAgeSec {
		errs = append(errs, field.Invalid(p, exp, "may not specify a duration less than 10 minutes"))
	}
	if exp > maxTokenAgeSec {
		errs = append(errs, field.Invalid(p, exp, "may not specify a duration larger than 2^32 seconds"))
	}
	return errs
}

func ptrTo[T any](v T) *T { return &v }
