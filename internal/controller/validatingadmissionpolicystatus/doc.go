// Package validatingadmissionpolicystatus is kube-controller-manager's
// validatingadmissionpolicy-status-controller: it type-checks each
// ValidatingAdmissionPolicy's expressions against the OpenAPI schemas of
// the kinds the policy matches (and its paramKind) and writes the result
// to status.typeChecking.expressionWarnings, with status.observedGeneration,
// by server-side apply of /status as field manager
// "validatingadmissionpolicy-status". A policy whose observedGeneration is
// current is left alone. Type checking never changes what the policy
// admits: it only warns.
package validatingadmissionpolicystatus
