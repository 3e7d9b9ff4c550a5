package apiserver

import (
	"fmt"
	"reflect"
	"testing"
)

func TestAdmissionFlags(t *testing.T) {
	cases := map[string]struct {
		enable, disable []string
		errs            []string
		plugins         []string
	}{
		"default": {plugins: admissionPluginNames()},
		"webhooks off": {disable: []string{"ValidatingAdmissionWebhook", "MutatingAdmissionWebhook"},
			plugins: []string{"NamespaceLifecycle", "ServiceAccount", "NodeRestriction", "MutatingAdmissionPolicy", "ValidatingAdmissionPolicy"}},
		"enable a default one": {enable: []string{"NodeRestriction"}, plugins: admissionPluginNames()},
		"unknown": {enable: []string{"AlwaysPullImages"}, disable: []string{"PodSecurity"},
			errs: []string{`enable-admission-plugins plugin "AlwaysPullImages" is unknown`, `disable-admission-plugins plugin "PodSecurity" is unknown`}},
		"overlap": {enable: []string{"ServiceAccount"}, disable: []string{"ServiceAccount"},
			errs: []string{`[ServiceAccount] in enable-admission-plugins and disable-admission-plugins overlapped`}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			o := &Options{EnableAdmissionPlugins: c.enable, DisableAdmissionPlugins: c.disable}
			var errs []string
			for _, err := range o.validateAdmission() {
				errs = append(errs, err.Error())
			}
			if fmt.Sprint(errs) != fmt.Sprint(c.errs) {
				t.Errorf("errors %q, want %q", errs, c.errs)
			}
			if c.errs != nil {
				return
			}
			var got []string
			for _, p := range o.enabledAdmissionPlugins() {
				got = append(got, p.name)
			}
			if !reflect.DeepEqual(got, c.plugins) {
				t.Errorf("plugins %v, want %v", got, c.plugins)
			}
		})
	}
}
