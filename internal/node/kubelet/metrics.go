package kubelet

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	corev1 "k8s.io/api/core/v1"
)

// The kubelet's own series (pkg/kubelet/metrics) that describe a node's
// pods, read from the agent's pods at each scrape.
var (
	nodeNameDesc = prometheus.NewDesc("kubelet_node_name",
		"[ALPHA] The node's name. The count is always 1.", []string{"node"}, nil)
	runningPodsDesc = prometheus.NewDesc("kubelet_running_pods",
		"[ALPHA] Number of pods that have a running pod sandbox", nil, nil)
	runningContainersDesc = prometheus.NewDesc("kubelet_running_containers",
		"[ALPHA] Number of containers currently running", []string{"container_state"}, nil)
)

// nodeCollector collects one node's kubelet series.
type nodeCollector struct {
	node string
	pods func(node string) []*corev1.Pod
}

func (c nodeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- nodeNameDesc
	ch <- runningPodsDesc
	ch <- runningContainersDesc
}

func (c nodeCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(nodeNameDesc, prometheus.GaugeValue, 1, c.node)
	running := 0
	states := map[string]int{"running": 0, "exited": 0, "created": 0}
	for _, p := range c.pods(c.node) {
		if p.Status.Phase == corev1.PodRunning {
			running++
		}
		for _, s := range p.Status.ContainerStatuses {
			states[containerState(s.State)]++
		}
	}
	ch <- prometheus.MustNewConstMetric(runningPodsDesc, prometheus.GaugeValue, float64(running))
	for state, n := range states {
		ch <- prometheus.MustNewConstMetric(runningContainersDesc, prometheus.GaugeValue, float64(n), state)
	}
}

// containerState is the CRI state a container status stands for.
func containerState(s corev1.ContainerState) string {
	switch {
	case s.Running != nil:
		return "running"
	case s.Terminated != nil:
		return "exited"
	}
	return "created"
}

// metricsHandler serves node's /metrics in the Prometheus text format.
func (s *Server) metricsHandler(node string) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(nodeCollector{node: node, pods: s.cfg.Pods})
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}
