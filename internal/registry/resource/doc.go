// Package resource turns a small per-resource Definition (defaults,
// validation, table columns, field selectors, the watch cache index,
// status split) into
// k8s.io/apiserver generic registry stores and the REST handlers for their
// subresources.
//
// Every served resource is described by one Definition in its own package
// under internal/registry/<group>/<resource>; this package holds the parts
// they all share so that a resource package only states what is particular to
// its kind. Guarantees: on the main resource the status is never changed by an
// update (and is reset as the Definition says on create); on /status only the
// status (and metadata) change; metadata.generation is bumped only when the
// spec changes, for kinds that track it. The metadata is checked by the
// rules of upstream's kind (MetaValidation: core's, apimachinery's, or the
// generic registry's only) as often as upstream's update check does
// (UpdateMeta), so that clients see the same errors.
package resource
