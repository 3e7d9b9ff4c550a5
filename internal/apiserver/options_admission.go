package apiserver

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
	cliflag "k8s.io/component-base/cli/flag"
)

// addAdmissionFlags registers kube-apiserver's --enable-admission-plugins
// and --disable-admission-plugins over svcplane's plugins (all on by
// default; the order is always the recommended one).
func (o *Options) addAdmissionFlags(fss *cliflag.NamedFlagSets) {
	fs := fss.FlagSet("admission")
	names := admissionPluginNames()
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	fs.StringSliceVar(&o.EnableAdmissionPlugins, "enable-admission-plugins", o.EnableAdmissionPlugins, ""+
		"admission plugins that should be enabled in addition to default enabled ones ("+strings.Join(names, ", ")+"). "+
		"Comma-delimited list of admission plugins: "+strings.Join(sorted, ", ")+". "+
		"The order of plugins in this flag does not matter.")
	fs.StringSliceVar(&o.DisableAdmissionPlugins, "disable-admission-plugins", o.DisableAdmissionPlugins, ""+
		"admission plugins that should be disabled although they are in the default enabled plugins list ("+strings.Join(names, ", ")+"). "+
		"Comma-delimited list of admission plugins: "+strings.Join(sorted, ", ")+". "+
		"The order of plugins in this flag does not matter.")
}

// validateAdmission checks the plugin flags with kube-apiserver's words.
func (o *Options) validateAdmission() []error {
	var errs []error
	known := sets.New(admissionPluginNames()...)
	for _, n := range o.EnableAdmissionPlugins {
		if !known.Has(n) {
			errs = append(errs, fmt.Errorf("enable-admission-plugins plugin %q is unknown", n))
		}
	}
	for _, n := range o.DisableAdmissionPlugins {
		if !known.Has(n) {
			errs = append(errs, fmt.Errorf("disable-admission-plugins plugin %q is unknown", n))
		}
	}
	if both := sets.List(sets.New(o.EnableAdmissionPlugins...).Intersection(sets.New(o.DisableAdmissionPlugins...))); len(both) > 0 {
		errs = append(errs, fmt.Errorf("%v in enable-admission-plugins and disable-admission-plugins overlapped", both))
	}
	return errs
}

func admissionPluginNames() []string {
	names := make([]string, 0, len(admissionPlugins))
	for _, p := range admissionPlugins {
		names = append(names, p.name)
	}
	return names
}

// enabledAdmissionPlugins are the plugins in the recommended order less
// the disabled ones.
func (o *Options) enabledAdmissionPlugins() []admissionPlugin {
	off := sets.New(o.DisableAdmissionPlugins...)
	var out []admissionPlugin
	for _, p := range admissionPlugins {
		if !off.Has(p.name) {
			out = append(out, p)
		}
	}
	return out
}
