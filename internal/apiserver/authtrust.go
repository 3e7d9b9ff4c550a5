package apiserver

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/kubernetes"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/bootstrap/periodic"
)

// The ConfigMap kube-apiserver publishes for extension API servers
// (k8s.io/apiserver's delegating authentication reads it): which client
// CAs and which front proxy to trust.
const (
	authTrustNamespace = metav1.NamespaceSystem
	authTrustName      = "extension-apiserver-authentication"
	authTrustResync    = time.Minute
)

// authenticationTrust is what this server contributes to the ConfigMap.
type authenticationTrust struct {
	clientCA                                                                     []byte
	requestHeaderCA                                                              []byte
	usernameHeaders, uidHeaders, groupHeaders, extraHeaderPrefixes, allowedNames []string
}

func newAuthenticationTrust(clientCA dynamiccertificates.CAContentProvider, rh *authenticatorfactory.RequestHeaderConfig) authenticationTrust {
	t := authenticationTrust{clientCA: clientCA.CurrentCABundleContent()}
	if rh != nil {
		t.requestHeaderCA = rh.CAContentProvider.CurrentCABundleContent()
		t.usernameHeaders, t.uidHeaders = rh.UsernameHeaders.Value(), rh.UIDHeaders.Value()
		t.groupHeaders, t.extraHeaderPrefixes = rh.GroupHeaders.Value(), rh.ExtraHeaderPrefixes.Value()
		t.allowedNames = rh.AllowedClientNames.Value()
	}
	return t
}

// addAuthenticationTrustHook publishes t in kube-system/extension-
// apiserver-authentication and keeps it there (re-checked every minute),
// as kube-apiserver's cluster authentication trust controller. It does
// not hold up /readyz.
func addAuthenticationTrustHook(g *genericapiserver.GenericAPIServer, client kubernetes.Interface, t authenticationTrust) {
	g.AddPostStartHookOrDie("start-cluster-authentication-info-controller", func(hc genericapiserver.PostStartHookContext) error {
		sync := func(ctx context.Context) error { return syncAuthenticationTrust(ctx, client, t, time.Now()) }
		go func() {
			if periodic.Until(hc, clock.RealClock{}, "Unable to publish "+authTrustName, sync) != nil {
				return
			}
			periodic.Run(hc, clock.RealClock{}, authTrustResync, nil, "Unable to publish "+authTrustName, sync)
		}()
		return nil
	})
}

// syncAuthenticationTrust merges t into the ConfigMap (other servers'
// CAs and names stay) and writes it when it changed.
func syncAuthenticationTrust(ctx context.Context, client kubernetes.Interface, t authenticationTrust, now time.Time) error {
	cms := client.CoreV1().ConfigMaps(authTrustNamespace)
	cur, err := cms.Get(ctx, authTrustName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		cur = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: authTrustNamespace, Name: authTrustName}}
	} else if err != nil {
		return err
	}
	data, err := mergeAuthenticationTrust(cur.Data, t, now)
	if err != nil {
		return err
	}
	if equalStringMaps(data, cur.Data) {
		return nil
	}
	next := cur.DeepCopy()
	next.Data = data
	if next.ResourceVersion == "" {
		_, err = cms.Create(ctx, next, metav1.CreateOptions{})
	} else {
		_, err = cms.Update(ctx, next, metav1.UpdateOptions{})
	}
	return err
}

// mergeAuthenticationTrust returns the ConfigMap data with t added to
// existing, as upstream combines them: CA bundles are the union of the
// certificates (expired ones, with five minutes' slack, dropped), lists
// the union in order; the request-header keys are written only when
// some request-header CA is known, the UID headers only when there are
// some.
func mergeAuthenticationTrust(existing map[string]string, t authenticationTrust, now time.Time) (map[string]string, error) {
	data := map[string]string{}
	clientCA, err := mergeCABundles([]byte(existing["client-ca-file"]), t.clientCA, now)
	if err != nil {
		return nil, fmt.Errorf("client-ca-file: %w", err)
	}
	if len(clientCA) > 0 {
		data["client-ca-file"] = string(clientCA)
	}
	rhCA, err := mergeCABundles([]byte(existing["requestheader-client-ca-file"]), t.requestHeaderCA, now)
	if err != nil {
		return nil, fmt.Errorf("requestheader-client-ca-file: %w", err)
	}
	if len(rhCA) == 0 {
		return data, nil
	}
	data["requestheader-client-ca-file"] = string(rhCA)
	lists := []struct {
		key  string
		mine []string
	}{
		{"requestheader-username-headers", t.usernameHeaders},
		{"requestheader-uid-headers", t.uidHeaders},
		{"requestheader-group-headers", t.groupHeaders},
		{"requestheader-extra-headers-prefix", t.extraHeaderPrefixes},
		{"requestheader-allowed-names", t.allowedNames},
	}
	for _, l := range lists {
		var theirs []string
		if s := existing[l.key]; s != "" {
			if err := json.Unmarshal([]byte(s), &theirs); err != nil {
				return nil, fmt.Errorf("%s: %w", l.key, err)
			}
		}
		merged := unionStrings(theirs, l.mine)
		if l.key == "requestheader-uid-headers" && len(merged) == 0 {
			continue
		}
		b, err := json.Marshal(merged)
		if err != nil {
			return nil, err
		}
		data[l.key] = string(b)
	}
	return data, nil
}

func mergeCABundles(a, b []byte, now time.Time) ([]byte, error) {
	var certs []*x509.Certificate
	for _, bundle := range [][]byte{a, b} {
		if len(bytes.TrimSpace(bundle)) == 0 {
			continue
		}
		parsed, err := certutil.ParseCertsPEM(bundle)
		if err != nil {
			return nil, err
		}
		certs = append(certs, parsed...)
	}
	var out bytes.Buffer
	seen := map[string]bool{}
	for _, c := range certs {
		if !c.NotAfter.After(now.Add(-5*time.Minute)) || seen[string(c.Raw)] {
			continue
		}
		seen[string(c.Raw)] = true
		if err := pem.Encode(&out, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), nil
}

func unionStrings(a, b []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, s := range append(append([]string{}, a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func equalStringMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
