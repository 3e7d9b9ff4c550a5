// Package admregutil holds what the admissionregistration.k8s.io/v1
// resources share: upstream's defaults (SetDefaults_* of
// pkg/apis/admissionregistration/v1), upstream's validation
// (pkg/apis/admissionregistration/validation) rewritten for the external v1
// types, with the same field paths and messages, and the kubectl get columns.
//
// The checks of CEL expressions (match conditions, validations, message
// expressions, audit annotations, variables, mutations) compile them with
// k8s.io/apiserver's admission CEL compiler in the environment upstream
// uses: expressions already stored in the old object are compiled in the
// stored-expressions environment, new ones in the new-expressions one.
//
// The nested module test/drift runs a corpus of configurations through
// upstream's validation and this package and compares field paths and
// messages.
package admregutil
