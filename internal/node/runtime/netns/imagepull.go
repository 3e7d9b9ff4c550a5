package netns

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// The kubelet's image pull back-off: 10 s doubling to 5 min.
const (
	pullBackoffInitial = 10 * time.Second
	pullBackoffMax     = 5 * time.Minute
)

// unpullable reports whether image is one Config.UnpullableImages says no
// registry has.
func (r *Runtime) unpullable(image string) bool {
	return r.cfg.UnpullableImages != nil && r.cfg.UnpullableImages.MatchString(image)
}

// pullBackOff keeps c waiting as a kubelet whose image pulls fail keeps
// it: ErrImagePull, then ImagePullBackOff until the next try (10 s
// doubling to 5 min), until the pod stops (false, as runContainer).
func (p *pod) pullBackOff(c *ctr) bool {
	backoff := pullBackoffInitial
	for {
		p.setWaiting(c, "ErrImagePull", fmt.Sprintf("Failed to pull image %q: rpc error: code = NotFound desc = "+
			"failed to pull and unpack image %q: not found (svcplane: the image matches --unpullable-images)", c.spec.Image, c.spec.Image))
		// The kubelet's next sync finds the pull backing off.
		select {
		case <-p.term.Done():
			return false
		case <-p.r.cfg.Clock.After(time.Second):
		}
		p.setWaiting(c, "ImagePullBackOff", fmt.Sprintf("Back-off pulling image %q", c.spec.Image))
		select {
		case <-p.term.Done():
			return false
		case <-p.r.cfg.Clock.After(backoff):
		}
		backoff = min(2*backoff, pullBackoffMax)
	}
}

func (p *pod) setWaiting(c *ctr, reason, msg string) {
	p.mu.Lock()
	c.state = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}
	c.ready, c.started = false, false
	p.mu.Unlock()
	p.changed()
}
