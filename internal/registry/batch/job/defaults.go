package job

import (
	"math"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/svcplane/svcplane/internal/registry/core/pod"
)

// Default fills a job's defaults as upstream's SetDefaults_Job (1.36
// gates: JobPodReplacementPolicy on) and the pod template's.
func Default(job *batchv1.Job) {
	s := &job.Spec
	one := func() *int32 { v := int32(1); return &v }
	if s.Completions == nil && s.Parallelism == nil {
		s.Completions, s.Parallelism = one(), one()
	}
	if s.Parallelism == nil {
		s.Parallelism = one()
	}
	if s.BackoffLimit == nil {
		v := int32(6)
		if s.BackoffLimitPerIndex != nil {
			v = math.MaxInt32
		}
		s.BackoffLimit = &v
	}
	if s.Template.Labels != nil && len(job.Labels) == 0 {
		job.Labels = s.Template.Labels
	}
	if s.CompletionMode == nil {
		m := batchv1.NonIndexedCompletion
		s.CompletionMode = &m
	}
	if s.Suspend == nil {
		f := false
		s.Suspend = &f
	}
	if s.PodReplacementPolicy == nil {
		p := batchv1.TerminatingOrFailed
		if s.PodFailurePolicy != nil {
			p = batchv1.Failed
		}
		s.PodReplacementPolicy = &p
	}
	if s.ManualSelector == nil {
		f := false
		s.ManualSelector = &f
	}
	DefaultTemplate(s)
}

// DefaultTemplate fills what a CronJob's job template gets too: the pod
// failure policy's condition statuses and the pod template's defaults.
func DefaultTemplate(s *batchv1.JobSpec) {
	if s.PodFailurePolicy != nil {
		for i := range s.PodFailurePolicy.Rules {
			for j := range s.PodFailurePolicy.Rules[i].OnPodConditions {
				if c := &s.PodFailurePolicy.Rules[i].OnPodConditions[j]; c.Status == "" {
					c.Status = corev1.ConditionTrue
				}
			}
		}
	}
	pod.DefaultPodSpec(&s.Template.Spec)
}
