// Package drift is the drift guard of what svcplane writes itself where
// kube-apiserver's code lives in k8s.io/kubernetes (DESIGN.md): a nested
// module that imports k8s.io/kubernetes v1.36.3 (staging modules replaced
// by their v0.36.3 releases, as the module requires) and runs the same
// inputs through upstream's code and ours. It is its own module so that
// the main module's `go test ./...` neither downloads nor compiles
// k8s.io/kubernetes: run it with `make test-drift` (cd test/drift && go
// test ./...).
//
// The validation and defaulting of the served kinds are guarded by one
// data-driven corpus, testdata/corpus (its README says what each file
// covers): every case goes through upstream's defaulting and registry
// strategy and through svcplane's, and the errors and stored objects must
// be equal.
package drift
