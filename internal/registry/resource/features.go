package resource

// StrictIPCIDRValidation is kube-apiserver 1.36's default of the feature
// gate of that name (beta, on): new IPs and CIDRs in legacy fields must be
// canonical (no leading zeros, no bits beyond the prefix).
const StrictIPCIDRValidation = true
