// Package storageclass defines the storage.k8s.io/v1 storageclasses
// resource (`sc`): upstream 1.36's defaults (reclaimPolicy Delete,
// volumeBindingMode Immediate), validation (provisioner, parameters,
// reclaim policy, binding mode, allowed topologies; the provisioner,
// parameters, reclaim policy and binding mode immutable), deprecated
// node label warnings and kube-apiserver's columns. No provisioner.
package storageclass
