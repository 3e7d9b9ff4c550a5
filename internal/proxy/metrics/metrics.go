package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the proxy's metrics.
type Metrics struct {
	SyncProxyRulesLatency        prometheus.Histogram
	SyncFullProxyRulesLatency    prometheus.Histogram
	SyncPartialProxyRulesLatency prometheus.Histogram
	SyncProxyRulesLastTimestamp  prometheus.Gauge
	NetworkProgrammingLatency    prometheus.Histogram
	SyncProxyRulesNoLocalEPs     *prometheus.GaugeVec
	ProxyHealthzTotal            *prometheus.CounterVec
	ProxyLivezTotal              *prometheus.CounterVec
	SyncProxyRulesChanges        prometheus.Counter
}

var buckets = prometheus.ExponentialBuckets(0.001, 2, 15)

// networkProgrammingBuckets are kube-proxy's: 0.25 s and 0.5 s, every
// second to 59 s, every 5 s to 115 s, every 30 s to 5 min.
func networkProgrammingBuckets() []float64 {
	b := prometheus.LinearBuckets(0.25, 0.25, 2)
	b = append(b, prometheus.LinearBuckets(1, 1, 59)...)
	b = append(b, prometheus.LinearBuckets(60, 5, 12)...)
	return append(b, prometheus.LinearBuckets(120, 30, 7)...)
}

// New creates and registers the metrics on reg.
func New(reg prometheus.Registerer) *Metrics {
	h := func(name, help string, b []float64) prometheus.Histogram {
		return prometheus.NewHistogram(prometheus.HistogramOpts{Subsystem: "kubeproxy", Name: name, Help: help, Buckets: b})
	}
	m := &Metrics{
		SyncProxyRulesLatency:        h("sync_proxy_rules_duration_seconds", "SyncProxyRules latency in seconds", buckets),
		SyncFullProxyRulesLatency:    h("sync_full_proxy_rules_duration_seconds", "SyncProxyRules latency in seconds for full resyncs", buckets),
		SyncPartialProxyRulesLatency: h("sync_partial_proxy_rules_duration_seconds", "SyncProxyRules latency in seconds for partial resyncs", buckets),
		SyncProxyRulesLastTimestamp: prometheus.NewGauge(prometheus.GaugeOpts{Subsystem: "kubeproxy",
			Name: "sync_proxy_rules_last_timestamp_seconds", Help: "The last time proxy rules were successfully synced"}),
		NetworkProgrammingLatency: h("network_programming_duration_seconds", "In Cluster Network Programming Latency in seconds",
			networkProgrammingBuckets()),
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
		m.SyncProxyRulesLastTimestamp, m.NetworkProgrammingLatency, m.SyncProxyRulesNoLocalEPs,
		m.ProxyHealthzTotal, m.ProxyLivezTotal, m.SyncProxyRulesChanges)
	return m
}

// ObserveSync records one successful sync that ended at now.
func (m *Metrics) ObserveSync(full bool, d time.Duration, changes int, now time.Time) {
	m.SyncProxyRulesLatency.Observe(d.Seconds())
	if full {
		m.SyncFullProxyRulesLatency.Observe(d.Seconds())
	} else {
		m.SyncPartialProxyRulesLatency.Observe(d.Seconds())
	}
	m.SyncProxyRulesLastTimestamp.Set(float64(now.UnixNano()) / 1e9)
	m.SyncProxyRulesChanges.Add(float64(changes))
}

// ObserveNetworkProgramming records, for each endpoint change trigger
// time a sync finished programming at now, the delay since it.
func (m *Metrics) ObserveNetworkProgramming(triggers []time.Time, now time.Time) {
	for _, t := range triggers {
		m.NetworkProgrammingLatency.Observe(now.Sub(t).Seconds())
	}
}

// ObserveHealthRequest counts one /healthz or /livez answer.
func (m *Metrics) ObserveHealthRequest(path, code string) {
	c := m.ProxyLivezTotal
	if path == "/healthz" {
		c = m.ProxyHealthzTotal
	}
	c.WithLabelValues(code).Inc()
}
