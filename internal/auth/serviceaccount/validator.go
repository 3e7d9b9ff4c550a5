package serviceaccount

import (
	"context"
	"errors"
	"fmt"

	"gopkg.in/go-jose/go-jose.v2/jwt"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiserver/pkg/audit"
	apiserverserviceaccount "k8s.io/apiserver/pkg/authentication/serviceaccount"
	authenticationtokenjwt "k8s.io/apiserver/pkg/authentication/token/jwt"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Getter reads the objects a token names (upstream's
// ServiceAccountTokenGetter); errors are the API's (NotFound, …).
type Getter interface {
	GetServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)
	GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error)
	GetSecret(ctx context.Context, namespace, name string) (*corev1.Secret, error)
	GetNode(ctx context.Context, name string) (*corev1.Node, error)
}

// BoundValidator checks bound tokens (TokenRequest) as upstream's
// validator: the time claims (a minute of leeway), then the
// ServiceAccount and the bound object exist with the token's UIDs and were
// not deleted more than the leeway ago.
type BoundValidator struct {
	getter Getter
	clock  clock.PassiveClock
}

var _ Validator[PrivateClaims] = &BoundValidator{}

// NewBoundValidator returns a validator reading objects with getter.
func NewBoundValidator(getter Getter, clk clock.PassiveClock) *BoundValidator {
	return &BoundValidator{getter: getter, clock: clk}
}

var errInvalidated = errors.New("service account token has been invalidated")

// Validate implements Validator.
func (v *BoundValidator) Validate(ctx context.Context, _ string, public *jwt.Claims, private *PrivateClaims) (*apiserverserviceaccount.ServiceAccountInfo, error) {
	now := v.clock.Now()
	switch err := public.Validate(jwt.Expected{Time: now}); err {
	case nil:
	case jwt.ErrExpired:
		return nil, errors.New("service account token has expired")
	case jwt.ErrNotValidYet:
		return nil, errors.New("service account token is not valid yet")
	case jwt.ErrIssuedInTheFuture:
		return nil, errors.New("service account token is issued in the future")
	case jwt.ErrInvalidAudience, jwt.ErrInvalidID, jwt.ErrInvalidIssuer, jwt.ErrInvalidSubject:
		return nil, fmt.Errorf("service account token claims could not be validated: %w", err)
	default:
		return nil, errors.New("service account token claims could not be validated due to unexpected validation error")
	}
	deletedBefore := now.Add(-jwt.DefaultLeeway)
	k := private.Kubernetes
	ns := k.Namespace
	sa, err := v.getter.GetServiceAccount(ctx, ns, k.Svcacct.Name)
	if err != nil {
		klog.V(4).Infof("Could not retrieve service account %s/%s: %v", ns, k.Svcacct.Name, err)
		return nil, err
	}
	if string(sa.UID) != k.Svcacct.UID {
		return nil, fmt.Errorf("service account UID (%s) does not match claim (%s)", sa.UID, k.Svcacct.UID)
	}
	if sa.DeletionTimestamp != nil && sa.DeletionTimestamp.Time.Before(deletedBefore) {
		return nil, fmt.Errorf("service account %s/%s has been deleted", ns, k.Svcacct.Name)
	}
	if ref := k.Secret; ref != nil {
		s, err := v.getter.GetSecret(ctx, ns, ref.Name)
		if err != nil {
			return nil, errInvalidated
		}
		if ref.UID != string(s.UID) {
			return nil, fmt.Errorf("secret UID (%s) does not match service account secret ref claim (%s)", s.UID, ref.UID)
		}
		if s.DeletionTimestamp != nil && s.DeletionTimestamp.Time.Before(deletedBefore) {
			return nil, errInvalidated
		}
	}
	info := &apiserverserviceaccount.ServiceAccountInfo{Namespace: ns, Name: k.Svcacct.Name, UID: k.Svcacct.UID}
	if ref := k.Pod; ref != nil {
		p, err := v.getter.GetPod(ctx, ns, ref.Name)
		if err != nil {
			return nil, errInvalidated
		}
		if ref.UID != string(p.UID) {
			return nil, fmt.Errorf("pod UID (%s) does not match service account pod ref claim (%s)", p.UID, ref.UID)
		}
		if p.DeletionTimestamp != nil && p.DeletionTimestamp.Time.Before(deletedBefore) {
			return nil, errInvalidated
		}
		info.PodName, info.PodUID = ref.Name, ref.UID
	}
	if ref := k.Node; ref != nil {
		if k.Pod == nil {
			// Bound to the Node itself: it must still be there.
			n, err := v.getter.GetNode(ctx, ref.Name)
			if err != nil {
				return nil, errInvalidated
			}
			if ref.UID != string(n.UID) {
				return nil, fmt.Errorf("node UID (%s) does not match service account node ref claim (%s)", n.UID, ref.UID)
			}
			if n.DeletionTimestamp != nil && n.DeletionTimestamp.Time.Before(deletedBefore) {
				return nil, errInvalidated
			}
		}
		info.NodeName, info.NodeUID = ref.Name, ref.UID
	}
	if wa := k.WarnAfter; wa != nil && *wa != 0 && now.After(wa.Time()) {
		audit.AddAuditAnnotation(ctx, "authentication.k8s.io/stale-token",
			fmt.Sprintf("subject: %s, seconds after warning threshold: %d", public.Subject, now.Unix()-wa.Time().Unix()))
	}
	info.CredentialID = authenticationtokenjwt.CredentialIDForJTI(public.ID)
	return info, nil
}
