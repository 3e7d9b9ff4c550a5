// Package exclusion lists the resources kube-apiserver keeps out of the
// admission policies (its pkg/kubeapiserver/admission/exclusion): the
// reviews, which persist nothing and which no ValidatingAdmissionPolicy or
// MutatingAdmissionPolicy may break. test/drift compares the list with
// upstream's.
package exclusion
