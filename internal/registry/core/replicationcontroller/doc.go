// Package replicationcontroller defines the core/v1 replicationcontrollers
// resource (short name rc, category all, with /status and /scale):
// upstream's v1 defaults (selector and metadata.labels from the template's
// labels, replicas 1), validation (ValidateReplicationController*), table
// columns and the status.replicas field label.
package replicationcontroller
