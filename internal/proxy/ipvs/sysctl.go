package ipvs

import "errors"

// Sysctls are the kernel settings the mode needs, as upstream sets them:
// conntrack for IPVS connections (so iptables can masquerade them), and
// dropping connections to removed real servers and their persistence
// templates instead of black-holing them.
var Sysctls = []struct{ Path, Value string }{
	{"net/ipv4/vs/conntrack", "1"},
	{"net/ipv4/vs/expire_nodest_conn", "1"},
	{"net/ipv4/vs/expire_quiescent_template", "1"},
	{"net/ipv4/ip_forward", "1"},
}

// SetSysctls writes Sysctls through write (path relative to /proc/sys).
func SetSysctls(write func(path, value string) error) error {
	var errs []error
	for _, s := range Sysctls {
		errs = append(errs, write(s.Path, s.Value))
	}
	return errors.Join(errs...)
}
