package apiserver

import (
	"fmt"

	genericoptions "k8s.io/apiserver/pkg/server/options"
	cliflag "k8s.io/component-base/cli/flag"
)

// StorageSecurity are kube-apiserver's options for reaching a TLS etcd,
// encrypting resources at rest and auditing requests, under its flag
// names.
type StorageSecurity struct {
	// EtcdCAFile, EtcdCertFile, EtcdKeyFile: the external etcd's CA and
	// this server's client certificate (--etcd-cafile, --etcd-certfile,
	// --etcd-keyfile).
	EtcdCAFile, EtcdCertFile, EtcdKeyFile string
	// EncryptionProviderConfig is an EncryptionConfiguration file
	// (--encryption-provider-config): aescbc, aesgcm, secretbox, identity.
	EncryptionProviderConfig string
	// EncryptionProviderConfigAutomaticReload reloads that file on change.
	EncryptionProviderConfigAutomaticReload bool
	// Audit is k8s.io/apiserver's audit options (--audit-policy-file,
	// --audit-log-path and its rotation flags, --audit-webhook-*).
	Audit *genericoptions.AuditOptions
}

// NewStorageSecurity returns kube-apiserver's defaults (no TLS to etcd, no
// encryption, no audit).
func NewStorageSecurity() StorageSecurity {
	return StorageSecurity{Audit: genericoptions.NewAuditOptions()}
}

// addStorageSecurityFlags registers the flags of o.StorageSecurity.
func (o *Options) addStorageSecurityFlags(fss *cliflag.NamedFlagSets) {
	s := &o.StorageSecurity
	fs := fss.FlagSet("etcd")
	fs.StringVar(&s.EtcdCAFile, "etcd-cafile", s.EtcdCAFile, "SSL Certificate Authority file used to secure etcd communication.")
	fs.StringVar(&s.EtcdCertFile, "etcd-certfile", s.EtcdCertFile, "SSL certification file used to secure etcd communication.")
	fs.StringVar(&s.EtcdKeyFile, "etcd-keyfile", s.EtcdKeyFile, "SSL key file used to secure etcd communication.")
	fs.StringVar(&s.EncryptionProviderConfig, "encryption-provider-config", s.EncryptionProviderConfig,
		"The file containing configuration for encryption providers to be used for storing secrets in etcd")
	fs.BoolVar(&s.EncryptionProviderConfigAutomaticReload, "encryption-provider-config-automatic-reload", s.EncryptionProviderConfigAutomaticReload,
		"Determines if the file set by --encryption-provider-config should be automatically reloaded if the disk contents change. "+
			"Setting this to true disables the ability to uniquely identify distinct KMS plugins via the API server healthz endpoints.")
	if s.Audit == nil {
		s.Audit = genericoptions.NewAuditOptions()
	}
	s.Audit.AddFlags(fss.FlagSet("auditing"))
}

// validateStorageSecurity checks the TLS and audit options.
func (o *Options) validateStorageSecurity() []error {
	s := o.StorageSecurity
	var errs []error
	if (s.EtcdCertFile == "") != (s.EtcdKeyFile == "") {
		errs = append(errs, fmt.Errorf("--etcd-certfile and --etcd-keyfile must be given together"))
	}
	if len(o.EtcdServers) == 0 && (s.EtcdCAFile != "" || s.EtcdCertFile != "") {
		errs = append(errs, fmt.Errorf("--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers (the embedded etcd is reached over its unix socket)"))
	}
	if s.Audit != nil {
		errs = append(errs, s.Audit.Validate()...)
	}
	return errs
}

// applyEtcdSecurity sets the etcd client's TLS files and the encryption
// config on etcdOpts.
func (s StorageSecurity) applyEtcdSecurity(etcdOpts *genericoptions.EtcdOptions) {
	t := &etcdOpts.StorageConfig.Transport
	t.TrustedCAFile, t.CertFile, t.KeyFile = s.EtcdCAFile, s.EtcdCertFile, s.EtcdKeyFile
	etcdOpts.EncryptionProviderConfigFilepath = s.EncryptionProviderConfig
	etcdOpts.EncryptionProviderConfigAutomaticReload = s.EncryptionProviderConfigAutomaticReload
}
