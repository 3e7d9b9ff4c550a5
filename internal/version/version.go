// Package version says which Kubernetes version svcplane presents itself as.
// kubectl and client-go parse /version, so it must be a real semantic
// version even in a plain `go build` without -ldflags.
package version

import (
	"strings"

	apimachineryversion "k8s.io/apimachinery/pkg/version"
	basecompatibility "k8s.io/component-base/compatibility"
	baseversion "k8s.io/component-base/version"
)

// Kubernetes is the version of the Kubernetes libraries (and so of the API)
// svcplane is built on.
const Kubernetes = "v1.36.3"

// Get returns the version info /version serves and `svcplane version`
// prints: k8s.io/component-base's, with the Kubernetes version filled in
// when the build did not set one with -ldflags.
func Get() apimachineryversion.Info {
	info := baseversion.Get()
	if strings.HasPrefix(info.GitVersion, "v0.0.0") {
		info.GitVersion = Kubernetes + "+svcplane"
		info.GitCommit = ""
	}
	parts := strings.SplitN(strings.TrimPrefix(Kubernetes, "v"), ".", 3)
	info.Major, info.Minor = parts[0], parts[1]
	return info
}

// EffectiveVersion wraps the generic server's effective version so that its
// Info (served at /version) is Get's.
type EffectiveVersion struct {
	basecompatibility.EffectiveVersion
}

// Info implements basecompatibility.EffectiveVersion.
func (e EffectiveVersion) Info() *apimachineryversion.Info {
	info := Get()
	if inner := e.EffectiveVersion.Info(); inner != nil {
		info.EmulationMajor, info.EmulationMinor = inner.EmulationMajor, inner.EmulationMinor
		info.MinCompatibilityMajor, info.MinCompatibilityMinor = inner.MinCompatibilityMajor, inner.MinCompatibilityMinor
	}
	return &info
}
