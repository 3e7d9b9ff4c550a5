// Package deployment is the Deployment controller: it keeps one ReplicaSet
// per pod template (named <deployment>-<pod-template-hash>, the hash also
// labelling its pods; the hash and name are kube-controller-manager's own,
// so one Deployment gets the same ReplicaSet name from either), rolls from the old ones to the new one with
// RollingUpdate (maxSurge rounded up, maxUnavailable down, both 0 meaning
// unavailable 1) or Recreate, records revisions in upstream's annotations
// (deployment.kubernetes.io/revision, desired-replicas, max-replicas) so
// that `kubectl rollout history|undo|status|restart|pause|resume` work,
// prunes ReplicaSets beyond revisionHistoryLimit and reports status with
// the Available and Progressing conditions. Shape: informers → queue keyed
// namespace/name → sync.
package deployment
