package netns

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// resolvConfText is /etc/resolv.conf as the pod's containers see it.
func (p *pod) resolvConfText() (string, error) {
	file := "/etc/resolv.conf"
	if p.resolvConf != "" {
		file = p.resolvConf
	}
	b, err := os.ReadFile(file)
	return string(b), err
}

// dnsInfo is agnhost's dns-suffix (the search list) and dns-server-list
// (the first nameserver line's servers), comma-separated as it prints
// them; a resolv.conf without that line fails, as agnhost panics then.
func dnsInfo(_ context.Context, pio *procIO, keyword string) int {
	text, err := pio.pod.resolvConfText()
	if err != nil {
		fmt.Fprintln(pio.stderr, err)
		return 2
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, keyword) {
			fmt.Fprintln(pio.stdout, strings.Join(strings.Split(line, " ")[1:], ","))
			return 0
		}
	}
	fmt.Fprintln(pio.stderr, "panic: Could not find DNS search list!")
	return 2
}
