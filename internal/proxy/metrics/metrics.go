package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the proxy's metrics.
type Metrics struct {
	SyncProxyRulesLatency        prometheus.Histogram
	SyncFullProxyRulesLatency    prometheus.Histogram
	SyncPartialProxyRulesLatency prometheus.Histogram
	SyncProxyRulesLastTimestamp  prometheus.Gauge
	SyncProxyRulesNoLocalEPs     *prometheus.GaugeVec
	ProxyHealthzTotal            *prometheus.CounterVec
	ProxyLivezTotal              *prometheus.CounterVec
	SyncProxyRulesChanges        prometheus.Counter
}

var buckets = prometheus.ExponentialBuckets(0.001, 2, 15)

// New creates and registers the metrics on reg.
func New(reg prometheus.Registerer) *Metrics {
	h := func(name, help string) prometheus.Histogram {
		return prometheus.NewHistogram(prometheus.HistogramOpts{Subsystem: "kubeproxy", Name: name, Help: help, Buckets: buckets})
	}
	m := &Metrics{
		SyncProxyRulesLatency:        h("sync_proxy_rules_duration_seconds", "SyncProxyRules latency in seconds"),
		SyncFullProxyRulesLatency:    h("sync_full_proxy_rules_duration_seconds", "SyncProxyRules latency in seconds for full resyncs"),
		SyncPartialProxyRulesLatency: h("sync_partial_proxy_rules_duration_seconds", "SyncProxyRules latency in seconds for partial resyncs"),
		SyncProxyRulesLastTimestamp: prometheus.NewGauge(prometheus.GaugeOpts{Subsystem: "kubeproxy",
			Name: "sync_proxy_rules_last_timestamp_seconds", Help: "The last time proxy rules were successfully synced"}),
		SyncProxyRulesNoLocalEPs: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "kubeproxy",
			Name: "sync_proxy_rules_no_local_endpoints_total", Help: "Number of services with a Local traffic policy and no endpoints"},
			[]string{"traffic_policy"}),
		ProxyHealthzTotal: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "proxy_healthz_total",
			Subsystem: "kubeproxy", Help: "Cumulative proxy healthz HTTP status"}, []string{"code"}),
		ProxyLivezTotal: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "proxy_livez_total",
			Subsystem: "kubeproxy", Help: "Cumulative proxy livez HTTP status"}, []string{"code"}),
		SyncProxyRulesChanges: prometheus.NewCounter(prometheus.CounterOpts{Subsystem: "kubeproxy",
			Name: "sync_proxy_rules_nftables_changes_total", Help: "Objects and elements sent by syncs"}),
	}
	reg.MustRegister(m.SyncProxyRulesLatency, m.SyncFullProxyRulesLatency, m.SyncPartialProxyRulesLatency,
		m.SyncProxyRulesLastTimestamp, m.SyncProxyRulesNoLocalEPs, m.ProxyHealthzTotal, m.ProxyLivezTotal, m.SyncProxyRulesChanges)
	return m
}
