package proxytest

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// ProxyConfig is the part of the proxy configuration scenarios vary.
type ProxyConfig struct {
	ClusterCIDR   string `json:"clusterCIDR,omitempty"` // "" = none
	MasqueradeAll bool   `json:"masqueradeAll,omitempty"`
}

// Check is one packet and its expected fate.
type Check struct {
	Packet
	Want Fate
}

// Scenario is one entry of the shared table (testdata/scenarios/*.txtar).
type Scenario struct {
	Name string
	// File is the archive's base name; backends name their golden
	// rulesets after it.
	File        string
	Description string
	Config      ProxyConfig
	Objects     []runtime.Object
	Checks      []Check
}
