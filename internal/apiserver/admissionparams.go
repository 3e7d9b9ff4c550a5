package apiserver

import (
	"context"
	"fmt"

	admregv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/client-go/discovery"

	"github.com/svcplane/svcplane/internal/registry/admissionregistration/admregutil"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// guardAdmissionParams adds upstream's param authorization to the policy
// and binding kinds among defs: the writer of a paramKind or paramRef must
// be allowed to read the params (admregutil.ParamAuthorizer). Kinds are
// resolved with discovery, a binding's policy is read from its storage in
// byResource.
func guardAdmissionParams(defs []*resource.Definition, authz authorizer.Authorizer, d discovery.DiscoveryInterface, byResource map[string]map[string]rest.Storage) {
	get := func(ctx context.Context, resource, name string) (interface{}, error) {
		g, ok := byResource[resource+"."+admregv1.GroupName][resource].(rest.Getter)
		if !ok {
			return nil, fmt.Errorf("no storage for %s", resource)
		}
		return g.Get(ctx, name, &metav1.GetOptions{})
	}
	a := &admregutil.ParamAuthorizer{
		Authorizer: authz,
		Resolve:    admregutil.DiscoveryResolver(d),
		ParamKindOf: func(ctx context.Context, mutating bool, name string) (*admregv1.ParamKind, error) {
			if mutating {
				obj, err := get(ctx, "mutatingadmissionpolicies", name)
				if err != nil {
					return nil, err
				}
				return obj.(*admregv1.MutatingAdmissionPolicy).Spec.ParamKind, nil
			}
			obj, err := get(ctx, "validatingadmissionpolicies", name)
			if err != nil {
				return nil, err
			}
			return obj.(*admregv1.ValidatingAdmissionPolicy).Spec.ParamKind, nil
		},
	}
	a.Guard(defs)
}
