// Package pod defines the pods resource (with /status and /binding) and the
// pod-spec defaulting and validation that workload kinds share.
//
// Defaults and validation follow kube-apiserver 1.36's (its v1 defaulters
// and conversion, ValidatePodCreate, ValidatePodUpdate and the pod
// strategy's create-time changes) with its feature-gate defaults, written
// on the v1 types; test/drift's corpus runs both on the same pods and
// templates and requires the same errors (path, type, message) and the
// same stored objects.
//
// pods/proxy (ProxyREST) goes from the API server straight to the pod's
// IP, as kube-apiserver's; pods/log, exec, attach and portforward go to
// the node's kubelet API.
package pod
