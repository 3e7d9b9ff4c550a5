package serviceaccount

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"

	"gopkg.in/go-jose/go-jose.v2/jwt"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/audit"
	apiserverserviceaccount "k8s.io/apiserver/pkg/authentication/serviceaccount"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Labels upstream keeps on legacy token Secrets.
const (
	// InvalidSinceLabelKey marks a token the cleaner invalidated.
	InvalidSinceLabelKey = "kubernetes.io/legacy-token-invalid-since"
	// LastUsedLabelKey holds the day (UTC) the token last authenticated.
	LastUsedLabelKey = "kubernetes.io/legacy-token-last-used"
)

// LegacyValidator checks Secret-based tokens as upstream's legacy
// validator with --service-account-lookup: the Secret exists, is not being
// deleted and holds exactly this token; the ServiceAccount exists with the
// token's UID. Each use stamps the Secret's last-used label once a day.
type LegacyValidator struct {
	getter  Getter
	secrets typedcorev1.SecretsGetter
	clock   clock.PassiveClock
}

var _ Validator[LegacyPrivateClaims] = &LegacyValidator{}

// NewLegacyValidator returns a validator reading objects with getter and
// labelling Secrets with secrets (nil: no label).
func NewLegacyValidator(getter Getter, secrets typedcorev1.SecretsGetter, clk clock.PassiveClock) *LegacyValidator {
	return &LegacyValidator{getter: getter, secrets: secrets, clock: clk}
}

// Validate implements Validator.
func (v *LegacyValidator) Validate(ctx context.Context, tokenData string, public *jwt.Claims, private *LegacyPrivateClaims) (*apiserverserviceaccount.ServiceAccountInfo, error) {
	switch {
	case public.Subject == "":
		return nil, errors.New("sub claim is missing")
	case private.Namespace == "":
		return nil, errors.New("namespace claim is missing")
	case private.SecretName == "":
		return nil, errors.New("secretName claim is missing")
	case private.ServiceAccountName == "":
		return nil, errors.New("serviceAccountName claim is missing")
	case private.ServiceAccountUID == "":
		return nil, errors.New("serviceAccountUID claim is missing")
	}
	ns, name := private.Namespace, private.ServiceAccountName
	subNS, subName, err := apiserverserviceaccount.SplitUsername(public.Subject)
	if err != nil || subNS != ns || subName != name {
		return nil, errors.New("sub claim is invalid")
	}
	secret, err := v.getter.GetSecret(ctx, ns, private.SecretName)
	if err != nil || secret.DeletionTimestamp != nil {
		return nil, errors.New("Token has been invalidated")
	}
	if subtle.ConstantTimeCompare(secret.Data[corev1.ServiceAccountTokenKey], []byte(tokenData)) == 0 {
		return nil, errors.New("Token does not match server's copy")
	}
	sa, err := v.getter.GetServiceAccount(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	if sa.DeletionTimestamp != nil {
		return nil, fmt.Errorf("ServiceAccount %s/%s has been deleted", ns, name)
	}
	if string(sa.UID) != private.ServiceAccountUID {
		return nil, fmt.Errorf("ServiceAccount UID (%s) does not match claim (%s)", sa.UID, private.ServiceAccountUID)
	}
	if secret.Labels[InvalidSinceLabelKey] != "" {
		audit.AddAuditAnnotation(ctx, "authentication.k8s.io/legacy-token-invalidated", secret.Name+"/"+secret.Namespace)
		v.stampLastUsed(ctx, secret)
		return nil, fmt.Errorf("the token in secret %s/%s for service account %s/%s has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the '%s' label from the secret to temporarily allow use of this token", ns, secret.Name, ns, name, InvalidSinceLabelKey)
	}
	audit.AddAuditAnnotation(ctx, "authentication.k8s.io/legacy-token-manual-secret", secret.Name)
	v.stampLastUsed(ctx, secret)
	return &apiserverserviceaccount.ServiceAccountInfo{Namespace: ns, Name: name, UID: private.ServiceAccountUID}, nil
}

// stampLastUsed sets the last-used label to today (UTC) unless it says
// today or tomorrow already, as upstream.
func (v *LegacyValidator) stampLastUsed(ctx context.Context, secret *corev1.Secret) {
	if v.secrets == nil {
		return
	}
	now := v.clock.Now().UTC()
	today, tomorrow := now.Format("2006-01-02"), now.AddDate(0, 0, 1).Format("2006-01-02")
	if l := secret.Labels[LastUsedLabelKey]; l == today || l == tomorrow {
		return
	}
	patch, err := json.Marshal(map[string]interface{}{"metadata": map[string]interface{}{
		"uid": secret.UID, "labels": map[string]string{LastUsedLabelKey: today}}})
	if err != nil {
		return
	}
	if _, err := v.secrets.Secrets(secret.Namespace).Patch(ctx, secret.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		klog.Errorf("Failed to label legacy service account token %s/%s with last-used date, err: %v", secret.Name, secret.Namespace, err)
	}
}
