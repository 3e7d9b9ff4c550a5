package admregutil

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Complete fills in what every admissionregistration.k8s.io/v1 kind has
// upstream: the group version, cluster scope, metadata.generation (1 on
// create, bumped when the spec changes), no create on update, updates
// only with a resourceVersion, and the warning for names with the suffix
// reserved for manifest-based configurations.
func Complete(d *resource.Definition) *resource.Definition {
	d.GroupVersion = v1.SchemeGroupVersion
	d.Generation = true
	d.DisallowUnconditionalUpdate = true
	d.Categories = []string{"api-extensions"}
	d.Warnings = func(_ context.Context, obj, _ runtime.Object) []string {
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil
		}
		return StaticSuffixWarnings(m.GetName())
	}
	return d
}

// StaticConfigSuffix ends the names upstream reserves for manifest-based
// admission configurations (its ManifestBasedAdmissionControlConfig
// feature, alpha and off in 1.36: such names are warned about, not
// refused).
const StaticConfigSuffix = ".static.k8s.io"

// StaticSuffixWarnings returns upstream's warning for a reserved name.
func StaticSuffixWarnings(name string) []string {
	if !strings.HasSuffix(name, StaticConfigSuffix) {
		return nil
	}
	return []string{fmt.Sprintf("metadata.name: names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", StaticConfigSuffix)}
}

// WebhooksColumns are the webhook configurations' WEBHOOKS / AGE columns.
var WebhooksColumns = []metav1.TableColumnDefinition{
	resource.Column("Webhooks", "integer", 0, "Webhooks indicates the number of webhooks registered in this configuration"),
	resource.AgeColumn,
}

// PolicyColumns are a policy's count column (VALIDATIONS or MUTATIONS),
// PARAMKIND and AGE.
func PolicyColumns(count, description string) []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		resource.Column(count, "integer", 0, description),
		resource.Column("ParamKind", "string", 0, "ParamKind specifies the kind of resources used to parameterize this policy"),
		resource.AgeColumn,
	}
}

// ParamKindCell prints a policy's paramKind ("<unset>" when none).
func ParamKindCell(pk *v1.ParamKind) string {
	if pk == nil {
		return "<unset>"
	}
	return pk.APIVersion + "/" + pk.Kind
}

// BindingColumns are a policy binding's POLICYNAME / PARAMREF / AGE.
var BindingColumns = []metav1.TableColumnDefinition{
	resource.Column("PolicyName", "string", 0, "PolicyName indicates the policy definition which the policy binding binded to"),
	resource.Column("ParamRef", "string", 0, "ParamRef indicates the param resource which sets the configuration param"),
	resource.AgeColumn,
}

// ParamRefCell prints a binding's paramRef as upstream: namespace/name,
// */name when no namespace is given (the param may be cluster-scoped), the
// selector, or "<unset>".
func ParamRefCell(pr *v1.ParamRef) string {
	switch {
	case pr == nil:
		return "<unset>"
	case pr.Name != "" && pr.Namespace != "":
		return pr.Namespace + "/" + pr.Name
	case pr.Name != "":
		return "*/" + pr.Name
	case pr.Selector != nil:
		return pr.Selector.String()
	}
	return "<unset>"
}
