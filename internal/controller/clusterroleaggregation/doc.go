// Package clusterroleaggregation is kube-controller-manager's
// clusterrole-aggregation controller: a ClusterRole with an
// aggregationRule gets, as its rules, the union of the rules of every other
// ClusterRole its selectors match (in name order, each rule once), written
// with server-side apply as field manager
// "clusterrole-aggregation-controller". This is how admin, edit and view
// gain the rules of ClusterRoles labelled aggregate-to-admin/edit/view.
package clusterroleaggregation
