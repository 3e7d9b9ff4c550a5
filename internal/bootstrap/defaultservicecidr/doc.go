// Package defaultservicecidr keeps the `kubernetes` ServiceCIDR: it mirrors
// --service-cluster-ip-range and is marked Ready, as kube-apiserver's
// default-servicecidr controller does. It is created before /readyz turns
// 200 and re-created if deleted.
package defaultservicecidr
