package exclusion

import "k8s.io/apimachinery/pkg/runtime/schema"

// Excluded returns the resources no admission policy sees.
func Excluded() []schema.GroupResource {
	return []schema.GroupResource{
		{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"},
		{Group: "authentication.k8s.io", Resource: "tokenreviews"},
		{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"},
		{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"},
		{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"},
		{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
	}
}
