// Package cronjob defines the batch/v1 cronjobs resource with /status as
// kube-apiserver serves it: upstream 1.36's defaults, validation (the
// schedule as kube-controller-manager parses it, with
// github.com/robfig/cron/v3 as upstream; time zones; the job template
// with a generated selector), warnings, generation and kube-apiserver's
// columns. No cronjob controller: as kube-apiserver without
// kube-controller-manager.
package cronjob
