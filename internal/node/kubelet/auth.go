package kubelet

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// The kubelet's webhook authorization cache (--authorization-webhook-cache-
// authorized-ttl, -unauthorized-ttl) and token cache.
const (
	AllowCacheTTL = 5 * time.Minute
	DenyCacheTTL  = 30 * time.Second
	TokenCacheTTL = 2 * time.Minute
)

// DelegatingAuth returns the kubelet's authenticator (client certificates
// signed by clientCA, bearer tokens by TokenReview; no anonymous requests)
// and authorizer (SubjectAccessReview, cached) on client, the node's
// credentials.
func DelegatingAuth(client kubernetes.Interface, clientCA []byte) (authenticator.Request, authorizer.Authorizer, error) {
	ca, err := dynamiccertificates.NewStaticCAContent("client-ca-bundle", clientCA)
	if err != nil {
		return nil, nil, fmt.Errorf("kubelet API client CA: %w", err)
	}
	backoff := wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}
	authn, _, err := authenticatorfactory.DelegatingAuthenticatorConfig{
		TokenAccessReviewClient:            client.AuthenticationV1(),
		TokenAccessReviewTimeout:           10 * time.Second,
		WebhookRetryBackoff:                &backoff,
		CacheTTL:                           TokenCacheTTL,
		ClientCertificateCAContentProvider: ca,
	}.New()
	if err != nil {
		return nil, nil, err
	}
	authz, err := authorizerfactory.DelegatingAuthorizerConfig{
		SubjectAccessReviewClient: client.AuthorizationV1(),
		AllowCacheTTL:             AllowCacheTTL,
		DenyCacheTTL:              DenyCacheTTL,
		WebhookRetryBackoff:       &backoff,
	}.New()
	if err != nil {
		return nil, nil, err
	}
	return authn, authz, nil
}

// subresources are the nodes subresources a request needs one of, in
// the kubelet's order (KubeletFineGrainedAuthz, GA in 1.36): the
// fine-grained one first, then the coarse one.
func subresources(path string) []string {
	var out []string
	switch {
	case isSubpath(path, "/pods") || isSubpath(path, "/runningpods"):
		out = append(out, "pods")
	case isSubpath(path, "/healthz"):
		out = append(out, "healthz")
	case isSubpath(path, "/configz"):
		out = append(out, "configz")
	}
	switch {
	case isSubpath(path, "/stats"):
		out = append(out, "stats")
	case isSubpath(path, "/metrics"):
		out = append(out, "metrics")
	case isSubpath(path, "/logs"):
		out = append(out, "log")
	case isSubpath(path, "/checkpoint"):
		out = append(out, "checkpoint")
	case isSubpath(path, "/statusz"):
		out = append(out, "statusz")
	case isSubpath(path, "/flagz"):
		out = append(out, "configz")
	default:
		out = append(out, "proxy")
	}
	return out
}

func isSubpath(path, prefix string) bool {
	path, prefix = strings.TrimSuffix(path, "/"), strings.TrimSuffix(prefix, "/")
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

func verb(method string) string {
	switch method {
	case http.MethodPost:
		return "create"
	case http.MethodGet:
		return "get"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return ""
}

// attributes are the requests's authorization attributes on node, one per
// subresource that would allow it.
func attributes(u user.Info, r *http.Request, node string) []authorizer.Attributes {
	var out []authorizer.Attributes
	for _, sub := range subresources(r.URL.Path) {
		out = append(out, authorizer.AttributesRecord{User: u, Verb: verb(r.Method), APIVersion: "v1",
			Resource: "nodes", Subresource: sub, Name: node, ResourceRequest: true, Path: r.URL.Path})
	}
	return out
}

// withAuth authenticates and authorizes every request to node's endpoint
// as the kubelet's filter does, with its messages.
func (s *Server) withAuth(node string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, ok, err := s.cfg.Authenticator.AuthenticateRequest(r)
		if err != nil {
			klog.V(2).InfoS("Unable to authenticate the request", "node", node, "err", err)
		}
		if err != nil || !ok {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		attrs := attributes(resp.User, r, node)
		var subs []string
		for _, a := range attrs {
			subs = append(subs, a.GetSubresource())
			decision, _, err := s.cfg.Authorizer.Authorize(r.Context(), a)
			if err != nil {
				klog.ErrorS(err, "Authorization error", "user", a.GetUser().GetName(), "verb", a.GetVerb(), "subresource", a.GetSubresource())
				http.Error(w, fmt.Sprintf("Authorization error (user=%s, verb=%s, resource=%s, subresource=%s)",
					a.GetUser().GetName(), a.GetVerb(), a.GetResource(), a.GetSubresource()), http.StatusInternalServerError)
				return
			}
			if decision == authorizer.DecisionAllow {
				next.ServeHTTP(w, r)
				return
			}
		}
		klog.V(2).InfoS("Forbidden", "user", resp.User.GetName(), "verb", verb(r.Method), "subresources", subs)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, "Forbidden (user=%s, verb=%s, resource=%s, subresource(s)=%v)\n", resp.User.GetName(), verb(r.Method), "nodes", subs)
	})
}
