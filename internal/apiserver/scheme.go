package apiserver

import (
	"reflect"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/svcplane/svcplane/internal/queryparams"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// servedGroups lists every group version svcplane serves, with the function
// that registers its external types. A group's versions are listed in
// kube-apiserver's priority order (the first is preferred and stored); a
// kind that an earlier version of the group registers as __internal is
// that version's, and the later versions' type of it is converted
// (autoscaling/v2 horizontalpodautoscalers, v1 beside them).
var servedGroups = []struct {
	gv  schema.GroupVersion
	add func(*runtime.Scheme) error
	// sample is a type of the group version's API package; nil for the
	// reviews' groups, whose types are not registered as __internal.
	sample interface{}
}{
	{corev1.SchemeGroupVersion, corev1.AddToScheme, corev1.Pod{}},
	{appsv1.SchemeGroupVersion, appsv1.AddToScheme, appsv1.Deployment{}},
	{autoscalingv2.SchemeGroupVersion, autoscalingv2.AddToScheme, autoscalingv2.HorizontalPodAutoscaler{}},
	{autoscalingv1.SchemeGroupVersion, autoscalingv1.AddToScheme, autoscalingv1.Scale{}},
	{discoveryv1.SchemeGroupVersion, discoveryv1.AddToScheme, discoveryv1.EndpointSlice{}},
	{coordinationv1.SchemeGroupVersion, coordinationv1.AddToScheme, coordinationv1.Lease{}},
	{networkingv1.SchemeGroupVersion, networkingv1.AddToScheme, networkingv1.IPAddress{}},
	{eventsv1.SchemeGroupVersion, eventsv1.AddToScheme, eventsv1.Event{}},
	{rbacv1.SchemeGroupVersion, rbacv1.AddToScheme, rbacv1.Role{}},
	{authenticationv1.SchemeGroupVersion, authenticationv1.AddToScheme, nil},
	{authorizationv1.SchemeGroupVersion, authorizationv1.AddToScheme, nil},
	{admissionregistrationv1.SchemeGroupVersion, admissionregistrationv1.AddToScheme, admissionregistrationv1.ValidatingAdmissionPolicy{}},
	{schedulingv1.SchemeGroupVersion, schedulingv1.AddToScheme, schedulingv1.PriorityClass{}},
	{nodev1.SchemeGroupVersion, nodev1.AddToScheme, nodev1.RuntimeClass{}},
	{storagev1.SchemeGroupVersion, storagev1.AddToScheme, storagev1.CSINode{}},
	{policyv1.SchemeGroupVersion, policyv1.AddToScheme, policyv1.PodDisruptionBudget{}},
	{certificatesv1.SchemeGroupVersion, certificatesv1.AddToScheme, certificatesv1.CertificateSigningRequest{}},
	{batchv1.SchemeGroupVersion, batchv1.AddToScheme, batchv1.Job{}},
}

// NewScheme returns the scheme the server encodes, decodes, defaults and
// converts with. Each external type is registered a second time under
// {group, __internal}: the generic registry keeps objects in their "internal"
// form, and for us that form is the external Go type itself, so conversion is
// a copy.
func NewScheme(defs []*resource.Definition) (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	if err := addExternalTypes(scheme); err != nil {
		return nil, err
	}
	versions := map[string][]schema.GroupVersion{}
	var groups []string
	for _, g := range servedGroups {
		internal := schema.GroupVersion{Group: g.gv.Group, Version: runtime.APIVersionInternal}
		for kind, t := range scheme.KnownTypes(g.gv) {
			if !isOwnType(t, g.gv) || scheme.Recognizes(internal.WithKind(kind)) {
				continue
			}
			scheme.AddKnownTypeWithName(internal.WithKind(kind), reflect.New(t).Interface().(runtime.Object))
		}
		if versions[g.gv.Group] == nil {
			groups = append(groups, g.gv.Group)
		}
		versions[g.gv.Group] = append(versions[g.gv.Group], g.gv)
	}
	for _, group := range groups {
		if err := scheme.SetVersionPriority(versions[group]...); err != nil {
			return nil, err
		}
	}
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	unversioned := schema.GroupVersion{Group: "", Version: "v1"}
	scheme.AddUnversionedTypes(unversioned,
		&metav1.Status{}, &metav1.APIVersions{}, &metav1.APIGroupList{},
		&metav1.APIGroup{}, &metav1.APIResourceList{})
	if err := resource.AddToScheme(scheme, defs); err != nil {
		return nil, err
	}
	// The pods and nodes subresources' options come as query parameters.
	if err := queryparams.AddConversions(scheme); err != nil {
		return nil, err
	}
	return scheme, nil
}

// NewExternalScheme returns a scheme with only the external types. The
// OpenAPI definition namer uses it so that the GVK extensions it writes never
// mention __internal.
func NewExternalScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	if err := addExternalTypes(scheme); err != nil {
		return nil, err
	}
	return scheme, nil
}

func addExternalTypes(scheme *runtime.Scheme) error {
	for _, g := range servedGroups {
		if err := g.add(scheme); err != nil {
			return err
		}
	}
	return nil
}

// isOwnType reports whether t is declared in the API package of gv (and not
// one of the meta/v1 option types every group version also registers).
func isOwnType(t reflect.Type, gv schema.GroupVersion) bool {
	pkg := t.PkgPath()
	return pkg != reflect.TypeOf(metav1.ListOptions{}).PkgPath() && pkg != "" &&
		pkg == pkgPathOf(gv)
}

func pkgPathOf(gv schema.GroupVersion) string {
	for _, g := range servedGroups {
		if g.gv == gv && g.sample != nil {
			return reflect.TypeOf(g.sample).PkgPath()
		}
	}
	return ""
}

// NewCodecs returns the codec factory for scheme.
func NewCodecs(scheme *runtime.Scheme) serializer.CodecFactory {
	return serializer.NewCodecFactory(scheme)
}
