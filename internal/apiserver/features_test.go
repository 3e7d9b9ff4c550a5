package apiserver

import (
	"io"
	"testing"

	"github.com/spf13/pflag"
	genericfeatures "k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	cliflag "k8s.io/component-base/cli/flag"
)

// ListFromCacheSnapshot is off unless --feature-gates turns it on. (An
// unknown gate is refused by component-base's parser, which also keeps
// the bad entry in the process-wide gate: not tried here.)
func TestFeatureGates(t *testing.T) {
	if utilfeature.DefaultFeatureGate.Enabled(genericfeatures.ListFromCacheSnapshot) {
		t.Fatal("ListFromCacheSnapshot is on by default")
	}
	var fss cliflag.NamedFlagSets
	NewOptions().AddFlags(&fss)
	fs := pflag.NewFlagSet("server", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.AddFlagSet(fss.FlagSet("generic"))
	t.Cleanup(func() {
		if err := utilfeature.DefaultMutableFeatureGate.Set("ListFromCacheSnapshot=false"); err != nil {
			t.Error(err)
		}
	})
	if err := fs.Parse([]string{"--feature-gates=ListFromCacheSnapshot=true"}); err != nil {
		t.Fatal(err)
	}
	if !utilfeature.DefaultFeatureGate.Enabled(genericfeatures.ListFromCacheSnapshot) {
		t.Error("--feature-gates=ListFromCacheSnapshot=true left it off")
	}
}
