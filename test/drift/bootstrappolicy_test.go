package drift

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/diff"
	genericfeatures "k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	zpagesfeatures "k8s.io/component-base/zpages/features"
	"k8s.io/kubernetes/pkg/features"
	upstream "k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"

	"github.com/svcplane/svcplane/internal/auth/bootstrappolicy"
)

var update = flag.Bool("update", false, "rewrite the bootstrap policy data file from upstream's bootstrap policy")

// upstreamPolicyPackage is where upstream's bootstrap policy lives.
const upstreamPolicyPackage = "k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"

// policyGates are the feature gates upstream's policy functions consult
// (TestBootstrapPolicyGatesListed keeps the list complete).
var policyGates = map[string]featuregate.Feature{
	"ClusterTrustBundle":                               features.ClusterTrustBundle,
	"DRADeviceTaintRules":                              features.DRADeviceTaintRules,
	"DRADeviceTaints":                                  features.DRADeviceTaints,
	"DRAExtendedResource":                              features.DRAExtendedResource,
	"DRAResourceClaimGranularStatusAuthorization":      features.DRAResourceClaimGranularStatusAuthorization,
	"DRAResourcePoolStatus":                            features.DRAResourcePoolStatus,
	"DRAWorkloadResourceClaims":                        features.DRAWorkloadResourceClaims,
	"DynamicResourceAllocation":                        features.DynamicResourceAllocation,
	"GenericWorkload":                                  features.GenericWorkload,
	"KubeletFineGrainedAuthz":                          features.KubeletFineGrainedAuthz,
	"KubeletServiceAccountTokenForCredentialProviders": features.KubeletServiceAccountTokenForCredentialProviders,
	"MultiCIDRServiceAllocator":                        features.MultiCIDRServiceAllocator,
	"PodCertificateRequest":                            features.PodCertificateRequest,
	"SELinuxChangePolicy":                              features.SELinuxChangePolicy,
	"StorageVersionMigrator":                           features.StorageVersionMigrator,
	"VolumeAttributesClass":                            features.VolumeAttributesClass,
	"WorkloadWithJob":                                  features.WorkloadWithJob,
	"APIServerIdentity":                                genericfeatures.APIServerIdentity,
	"StorageVersionAPI":                                genericfeatures.StorageVersionAPI,
	"ComponentFlagz":                                   zpagesfeatures.ComponentFlagz,
	"ComponentStatusz":                                 zpagesfeatures.ComponentStatusz,
}

// upstreamPolicy is what kube-apiserver v1.36.3's rbac/bootstrap-roles hook
// reconciles (pkg/registry/rbac/rest PostStartHook's PolicyData), under the
// default feature gates of this test binary, which are 1.36's.
func upstreamPolicy(t *testing.T) *bootstrappolicy.Policy {
	t.Helper()
	p := &bootstrappolicy.Policy{
		Source:                     upstreamPolicyPackage + " " + kubernetesVersion(t),
		FeatureGates:               map[string]bool{},
		ClusterRoles:               append(upstream.ClusterRoles(), upstream.ControllerRoles()...),
		ClusterRoleBindings:        append(upstream.ClusterRoleBindings(), upstream.ControllerRoleBindings()...),
		NamespaceRoles:             upstream.NamespaceRoles(),
		NamespaceRoleBindings:      upstream.NamespaceRoleBindings(),
		ClusterRolesToAggregate:    upstream.ClusterRolesToAggregate(),
		ClusterRoleBindingsToSplit: map[string]string{},
	}
	for name, gate := range policyGates {
		p.FeatureGates[name] = utilfeature.DefaultFeatureGate.Enabled(gate)
	}
	// Upstream carries a whole template binding per split; ours carries
	// its name, the template being the bootstrap binding of that name.
	for from, template := range upstream.ClusterRoleBindingsToSplit() {
		i := slices.IndexFunc(p.ClusterRoleBindings, func(b rbacv1.ClusterRoleBinding) bool { return b.Name == template.Name })
		if i < 0 || !apiequality.Semantic.DeepEqual(p.ClusterRoleBindings[i], template) {
			t.Fatalf("split template %q (from %q) is not one of the bootstrap ClusterRoleBindings", template.Name, from)
		}
		p.ClusterRoleBindingsToSplit[from] = template.Name
	}
	return p
}

// kubernetesVersion is the version of k8s.io/kubernetes this module builds.
func kubernetesVersion(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "k8s.io/kubernetes").Output()
	if err != nil {
		t.Fatalf("go list -m k8s.io/kubernetes: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestBootstrapPolicy compares svcplane's embedded bootstrap policy with
// upstream's: byte for byte with the data file upstream's would generate,
// and object by object through the package's Go API. With -update it
// rewrites the data file instead.
func TestBootstrapPolicy(t *testing.T) {
	want := upstreamPolicy(t)
	wantFile, err := bootstrappolicy.Encode(want)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "internal", "auth", "bootstrappolicy", bootstrappolicy.DataFile)
	if *update {
		if err := os.WriteFile(path, wantFile, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s: %d ClusterRoles, %d ClusterRoleBindings, %s", path, len(want.ClusterRoles), len(want.ClusterRoleBindings), namespaced(want))
		return // the package embeds the old file until it is rebuilt
	}
	gotFile, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gotFile, wantFile) {
		t.Errorf("%s differs from upstream's policy at %s; regenerate it with `cd test/drift && go test -run BootstrapPolicy -update`", path, firstDifference(gotFile, wantFile))
	}

	got := bootstrappolicy.Data()
	for name, v := range want.FeatureGates {
		if got.FeatureGates[name] != v {
			t.Errorf("feature gate %s: data says %v, 1.36's default is %v", name, got.FeatureGates[name], v)
		}
	}
	compareByName(t, "ClusterRole", bootstrappolicy.ClusterRoles(), want.ClusterRoles, func(r rbacv1.ClusterRole) string { return r.Name })
	compareByName(t, "ClusterRoleBinding", bootstrappolicy.ClusterRoleBindings(), want.ClusterRoleBindings, func(b rbacv1.ClusterRoleBinding) string { return b.Name })
	for _, ns := range unionKeys(got.NamespaceRoles, want.NamespaceRoles) {
		compareByName(t, "Role in "+ns, bootstrappolicy.NamespaceRoles()[ns], want.NamespaceRoles[ns], func(r rbacv1.Role) string { return r.Name })
	}
	for _, ns := range unionKeys(got.NamespaceRoleBindings, want.NamespaceRoleBindings) {
		compareByName(t, "RoleBinding in "+ns, bootstrappolicy.NamespaceRoleBindings()[ns], want.NamespaceRoleBindings[ns], func(b rbacv1.RoleBinding) string { return b.Name })
	}
	if !apiequality.Semantic.DeepEqual(got.ClusterRolesToAggregate, want.ClusterRolesToAggregate) {
		t.Errorf("ClusterRolesToAggregate: got %v, upstream %v", got.ClusterRolesToAggregate, want.ClusterRolesToAggregate)
	}
	if !apiequality.Semantic.DeepEqual(got.ClusterRoleBindingsToSplit, want.ClusterRoleBindingsToSplit) {
		t.Errorf("ClusterRoleBindingsToSplit: got %v, upstream %v", got.ClusterRoleBindingsToSplit, want.ClusterRoleBindingsToSplit)
	}
	t.Logf("%d ClusterRoles, %d ClusterRoleBindings, %s; gates %v", len(want.ClusterRoles), len(want.ClusterRoleBindings), namespaced(want), want.FeatureGates)
}

// TestBootstrapPolicyGatesListed fails when upstream's policy consults a
// feature gate policyGates (and so the data file) does not record.
func TestBootstrapPolicyGatesListed(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", upstreamPolicyPackage).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", upstreamPolicyPackage, err)
	}
	dir := strings.TrimSpace(string(out))
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	enabled := regexp.MustCompile(`\.Enabled\(\w+\.(\w+)\)`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range enabled.FindAllStringSubmatch(string(src), -1) {
			if _, ok := policyGates[m[1]]; !ok {
				t.Errorf("%s consults feature gate %s, which policyGates does not list", filepath.Base(f), m[1])
			}
		}
	}
}

func compareByName[T any](t *testing.T, kind string, got, want []T, name func(T) string) {
	t.Helper()
	if g, w := objectNames(got, name), objectNames(want, name); !slices.Equal(g, w) {
		t.Errorf("%s names (in order): got %v, upstream %v", kind, g, w)
		return
	}
	for i := range want {
		if !apiequality.Semantic.DeepEqual(got[i], want[i]) {
			t.Errorf("%s %q differs from upstream's (-ours +upstream):\n%s", kind, name(want[i]), diff.Diff(got[i], want[i]))
		}
	}
}

func objectNames[T any](objs []T, name func(T) string) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = name(o)
	}
	return out
}

func unionKeys[A, B any](a map[string]A, b map[string]B) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func namespaced(p *bootstrappolicy.Policy) string {
	var parts []string
	for _, ns := range unionKeys(p.NamespaceRoles, p.NamespaceRoleBindings) {
		parts = append(parts, fmt.Sprintf("%s: %d Roles, %d RoleBindings", ns, len(p.NamespaceRoles[ns]), len(p.NamespaceRoleBindings[ns])))
	}
	return strings.Join(parts, "; ")
}

// firstDifference names the first line where a and b differ.
func firstDifference(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: have %q, upstream's %q", i+1, x, y)
		}
	}
	return "no line (lengths differ)"
}
