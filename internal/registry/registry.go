// Package registry lists every resource svcplane serves. Each resource has
// its own package below (defaults, validation, table columns); the shared
// machinery is in registry/resource.
package registry

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svcplane/svcplane/internal/registry/admissionregistration/mutatingadmissionpolicy"
	"github.com/svcplane/svcplane/internal/registry/admissionregistration/mutatingadmissionpolicybinding"
	"github.com/svcplane/svcplane/internal/registry/admissionregistration/mutatingwebhookconfiguration"
	"github.com/svcplane/svcplane/internal/registry/admissionregistration/validatingadmissionpolicy"
	"github.com/svcplane/svcplane/internal/registry/admissionregistration/validatingadmissionpolicybinding"
	"github.com/svcplane/svcplane/internal/registry/admissionregistration/validatingwebhookconfiguration"
	"github.com/svcplane/svcplane/internal/registry/apps/deployment"
	"github.com/svcplane/svcplane/internal/registry/apps/replicaset"
	"github.com/svcplane/svcplane/internal/registry/autoscaling/horizontalpodautoscaler"
	"github.com/svcplane/svcplane/internal/registry/batch/cronjob"
	"github.com/svcplane/svcplane/internal/registry/batch/job"
	"github.com/svcplane/svcplane/internal/registry/certificates/certificatesigningrequest"
	"github.com/svcplane/svcplane/internal/registry/coordination/lease"
	"github.com/svcplane/svcplane/internal/registry/core/configmap"
	"github.com/svcplane/svcplane/internal/registry/core/endpoints"
	"github.com/svcplane/svcplane/internal/registry/core/event"
	"github.com/svcplane/svcplane/internal/registry/core/namespace"
	"github.com/svcplane/svcplane/internal/registry/core/node"
	"github.com/svcplane/svcplane/internal/registry/core/pod"
	"github.com/svcplane/svcplane/internal/registry/core/podtemplate"
	"github.com/svcplane/svcplane/internal/registry/core/replicationcontroller"
	"github.com/svcplane/svcplane/internal/registry/core/secret"
	"github.com/svcplane/svcplane/internal/registry/core/service"
	"github.com/svcplane/svcplane/internal/registry/core/serviceaccount"
	"github.com/svcplane/svcplane/internal/registry/discovery/endpointslice"
	eventsevent "github.com/svcplane/svcplane/internal/registry/events/event"
	"github.com/svcplane/svcplane/internal/registry/networking/ingress"
	"github.com/svcplane/svcplane/internal/registry/networking/ingressclass"
	"github.com/svcplane/svcplane/internal/registry/networking/ipaddress"
	"github.com/svcplane/svcplane/internal/registry/networking/servicecidr"
	"github.com/svcplane/svcplane/internal/registry/node/runtimeclass"
	"github.com/svcplane/svcplane/internal/registry/policy/poddisruptionbudget"
	"github.com/svcplane/svcplane/internal/registry/rbac/clusterrole"
	"github.com/svcplane/svcplane/internal/registry/rbac/clusterrolebinding"
	"github.com/svcplane/svcplane/internal/registry/rbac/role"
	"github.com/svcplane/svcplane/internal/registry/rbac/rolebinding"
	"github.com/svcplane/svcplane/internal/registry/resource"
	"github.com/svcplane/svcplane/internal/registry/scheduling/priorityclass"
	"github.com/svcplane/svcplane/internal/registry/storage/csinode"
	"github.com/svcplane/svcplane/internal/registry/storage/storageclass"
)

// Definitions returns a fresh definition of every served resource.
func Definitions() []*resource.Definition {
	return []*resource.Definition{
		namespace.Definition(), service.Definition(), endpoints.Definition(), pod.Definition(),
		node.Definition(), event.Definition(), configmap.Definition(), secret.Definition(),
		serviceaccount.Definition(), replicationcontroller.Definition(), podtemplate.Definition(),
		deployment.Definition(), replicaset.Definition(),
		endpointslice.Definition(),
		lease.Definition(),
		ipaddress.Definition(), servicecidr.Definition(),
		eventsevent.Definition(),
		clusterrole.Definition(), clusterrolebinding.Definition(), role.Definition(), rolebinding.Definition(),
		validatingwebhookconfiguration.Definition(), mutatingwebhookconfiguration.Definition(),
		validatingadmissionpolicy.Definition(), validatingadmissionpolicybinding.Definition(),
		mutatingadmissionpolicy.Definition(), mutatingadmissionpolicybinding.Definition(),
		priorityclass.Definition(), runtimeclass.Definition(), csinode.Definition(), storageclass.Definition(),
		poddisruptionbudget.Definition(), ingress.Definition(), ingressclass.Definition(),
		certificatesigningrequest.Definition(metav1.Now), job.Definition(), cronjob.Definition(),
		horizontalpodautoscaler.Definition(),
	}
}
