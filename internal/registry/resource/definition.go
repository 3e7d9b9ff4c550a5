package resource

import (
	"context"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Definition states everything particular to one served resource.
type Definition struct {
	// GroupVersion and Kind of the served type; Resource is the plural name,
	// Singular the singular one.
	GroupVersion schema.GroupVersion
	Kind         string
	Resource     string
	Singular     string
	Namespaced   bool
	ShortNames   []string
	Categories   []string

	New     func() runtime.Object
	NewList func() runtime.Object

	// AlsoServedAt are further versions of the group the same storage is
	// served at (autoscaling/v1 horizontalpodautoscalers beside v2): New
	// is the storage version's type, and the scheme converts between it
	// and each of these on the way in and out, as kube-apiserver's
	// internal type.
	AlsoServedAt []schema.GroupVersion

	// EtcdPrefix overrides the key prefix under /registry (e.g. "minions"
	// for nodes, "services/specs" for services). Empty means Resource.
	EtcdPrefix string

	// StoredAs names another resource (and its storage version) this one
	// cohabits with: both share its etcd keys and storage encoding (events.k8s.io events are stored
	// as core events). Conversions registers the conversion functions
	// between this type and the stored one.
	StoredAs    *schema.GroupVersionResource
	Conversions func(*runtime.Scheme) error

	// KeepGenerateName makes metadata.generateName the name as is, without
	// a random suffix (upstream's IP addresses).
	KeepGenerateName bool

	// NameValidation checks metadata.name; nil means DNS-1123 subdomain.
	NameValidation apivalidation.ValidateNameFunc

	// Default fills in defaults; it is registered in the scheme so that it
	// runs on every decoded request body, as upstream's SetDefaults_* do.
	Default func(obj runtime.Object)

	// Canonicalize runs after a create or update passed validation (with
	// the generated name known).
	Canonicalize func(obj runtime.Object)

	// PrepareForCreate and PrepareForUpdate run before validation.
	PrepareForCreate func(ctx context.Context, obj runtime.Object)
	PrepareForUpdate func(ctx context.Context, obj, old runtime.Object)

	// Validate checks a whole object (metadata.name and the generic object
	// meta checks are done already). ValidateUpdate replaces it on update
	// (the new object and the transition); nil means Validate on the new
	// object. An update checks the metadata's transition, then (as
	// upstream's kinds do) the new object's metadata as on create, then
	// ValidateUpdate.
	Validate       func(ctx context.Context, obj runtime.Object) field.ErrorList
	ValidateUpdate func(ctx context.Context, obj, old runtime.Object) field.ErrorList

	// Warnings returns the warnings of a create (old nil) or update sent
	// back to the client; nil means none.
	Warnings func(ctx context.Context, obj, old runtime.Object) []string

	// UpdateMeta says which metadata checks the kind's own update check
	// runs (upstream's kinds differ; the client sees the duplicates).
	UpdateMeta UpdateMetaChecks

	// MetaValidation says which rules check the metadata: core's by
	// default.
	MetaValidation MetaValidation

	// Status describes the /status subresource; nil means none. The main
	// resource never changes status; /status never changes spec.
	Status *StatusDefinition
	// Subresources are further update-only subresources of the same
	// shape, by name (certificatesigningrequests/approval); none of them
	// changes spec.
	Subresources map[string]*StatusDefinition

	// Generation: bump metadata.generation when the spec changes (and set it
	// to 1 on create).
	Generation bool

	// KeepStatusOnCreate keeps a status given at create time (nodes, pods'
	// phase is set by PrepareForCreate instead); otherwise it is reset.
	KeepStatusOnCreate bool

	AllowCreateOnUpdate bool
	// DisallowUnconditionalUpdate requires a resourceVersion on update.
	DisallowUnconditionalUpdate bool

	// TTLSeconds, when non-zero, expires objects after that long (events).
	TTLSeconds uint64

	// OrphanByDefault makes a delete without a propagation policy orphan
	// the dependents (upstream's batch/v1 Jobs: OrphanDependents as their
	// DefaultGarbageCollectionPolicy).
	OrphanByDefault bool

	// CheckGracefulDelete decides whether a delete is graceful and sets
	// options.GracePeriodSeconds (pods); nil means deletes are immediate.
	CheckGracefulDelete func(ctx context.Context, obj runtime.Object, options *metav1.DeleteOptions) bool

	// OmitNameColumn leaves the NAME column out of the table (events print
	// their name only with -o wide).
	OmitNameColumn bool

	// Columns and Row give the Table output (kubectl get). The NAME column
	// comes first and is added by this package.
	Columns []metav1.TableColumnDefinition
	Row     func(obj runtime.Object) []interface{}

	// FieldLabels adds field selector attributes beyond metadata.name and
	// metadata.namespace.
	FieldLabels func(obj runtime.Object) fields.Set
	// FieldLabelNames and FieldLabelAliases are the field selector labels
	// the kind accepts beyond metadata.name (and metadata.namespace when
	// namespaced), as upstream's AddFieldLabelConversionFunc for the kind
	// lists them: a name selects the FieldLabels key of the same name, an
	// alias the key it maps to (events.k8s.io's regarding.kind selects
	// involvedObject.kind, pods' spec.host spec.nodeName). Any other label is
	// refused with upstream's "field label not supported: <label>".
	//
	// A kind with neither has no conversion function, as most kinds
	// upstream: the scheme's default accepts metadata.name and
	// metadata.namespace and refuses the rest with `"<label>" is not a
	// known field selector: only "metadata.name", "metadata.namespace"`.
	FieldLabelNames   []string
	FieldLabelAliases map[string]string
	// FieldLabelError formats the refusal of another label when the kind's
	// upstream words it otherwise (Jobs: `field label %q not supported
	// for Job`); empty means "field label not supported: %s".
	FieldLabelError string

	// IndexedField is the one field selector label the watch cache
	// indexes, as upstream's TriggerFunc and Indexers for the kind (pods:
	// spec.nodeName); IndexedValue gives an object's value of it. A list
	// or watch selecting one value by equality then reads the index and
	// is woken only for its objects, and every other watch of the kind
	// gets the cacher's larger event buffer (about a second of events, up
	// to 1,000 rather than 100), so that a busy watcher is not closed as
	// unresponsive at the first burst.
	IndexedField string
	IndexedValue func(obj runtime.Object) string
}

// MetaValidation names the metadata rules of a kind.
type MetaValidation int

const (
	// MetaCore is upstream's core ValidateObjectMeta: apimachinery's rules
	// and core's finalizer name rule.
	MetaCore MetaValidation = iota
	// MetaGeneric is apimachinery's rules only (upstream's leases).
	MetaGeneric
	// MetaNone leaves the metadata to the generic registry's check after
	// the kind's (upstream's core/v1 events: names are only path segments).
	MetaNone
)

// UpdateMetaChecks names the metadata checks of a kind's update check
// (beyond the generic registry's own, which every update runs).
type UpdateMetaChecks int

const (
	// UpdateMetaTransitionAndNew checks the transition and the new
	// metadata as on create (most kinds: ValidateObjectMetaUpdate and
	// ValidateX of the new object).
	UpdateMetaTransitionAndNew UpdateMetaChecks = iota
	// UpdateMetaTransition checks the transition only (leases).
	UpdateMetaTransition
	// UpdateMetaNew checks the new metadata as on create only
	// (endpointslices).
	UpdateMetaNew
)

// StatusDefinition describes a /status subresource.
type StatusDefinition struct {
	// PrepareForUpdate runs after spec has been copied from old.
	PrepareForUpdate func(ctx context.Context, obj, old runtime.Object)
	// ValidateUpdate checks a status update; nil means no extra checks.
	ValidateUpdate func(ctx context.Context, obj, old runtime.Object) field.ErrorList
	// Warnings, when set, are a status update's warnings (instead of the
	// main resource's update warnings).
	Warnings func(ctx context.Context, obj, old runtime.Object) []string
	// NoMetaCheck: the update runs no metadata check of its own (only
	// the generic registry's; upstream's cronjobs/status).
	NoMetaCheck bool
	// ResetFields are the paths server-side apply leaves to others; nil
	// means [spec].
	ResetFields [][]string
}

// GroupResource returns the definition's group and plural resource.
func (d *Definition) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: d.GroupVersion.Group, Resource: d.Resource}
}

// ServedVersions are the group versions the resource is served at: its
// own, then AlsoServedAt.
func (d *Definition) ServedVersions() []schema.GroupVersion {
	return append([]schema.GroupVersion{d.GroupVersion}, d.AlsoServedAt...)
}

// GroupVersionKind returns the served kind.
func (d *Definition) GroupVersionKind() schema.GroupVersionKind {
	return d.GroupVersion.WithKind(d.Kind)
}

// Prefix returns the etcd key prefix below /registry.
func (d *Definition) Prefix() string {
	if d.EtcdPrefix != "" {
		return d.EtcdPrefix
	}
	return d.Resource
}
