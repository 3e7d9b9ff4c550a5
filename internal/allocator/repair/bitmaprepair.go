package repair

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/svcplane/svcplane/internal/allocator/bitmap"
	"github.com/svcplane/svcplane/internal/allocator/rangestore"
)

// Kind names what a BitmapRepair checks, for event reasons and messages.
type Kind struct {
	// Reason prefix ("ClusterIP" or "Port") and what one value is called.
	Reason, Noun string
	// Values returns the values of svc this map should hold, as offsets
	// (ok=false for a value outside the range) with their printable form.
	Values func(svc *corev1.Service) []Value
}

// Value is one allocated value of a Service.
type Value struct {
	Offset  uint64
	InRange bool
	Text    string
}

// BitmapRepair repairs one stored allocation map (NodePorts, or ClusterIPs
// in bitmap mode).
type BitmapRepair struct {
	client   kubernetes.Interface
	store    rangestore.Interface
	kind     Kind
	recorder Recorder
	leaked   leaks[uint64]
}

// NewBitmapRepair returns a repairer of store.
func NewBitmapRepair(client kubernetes.Interface, store rangestore.Interface, kind Kind, rec Recorder) *BitmapRepair {
	return &BitmapRepair{client: client, store: store, kind: kind, recorder: rec, leaked: leaks[uint64]{}}
}

// RunOnce makes one pass. It reads the map before the Services (as
// upstream's repair takes its snapshot first): a value set then and clear
// when the pass writes was released while the pass ran (its Service deleted
// after the list was served), so the pass leaves it free instead of taking
// it back. (A Service created and deleted between the two reads can still
// be taken back; the leak check frees it three passes later.)
func (r *BitmapRepair) RunOnce(ctx context.Context) error {
	before, err := r.store.Get(ctx)
	if err != nil {
		return fmt.Errorf("unable to read the %s block: %w", r.kind.Noun, err)
	}
	list, err := r.client.CoreV1().Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("unable to refresh the %s block: %w", r.kind.Noun, err)
	}
	owner := map[uint64]*corev1.Service{}
	for i := range list.Items {
		svc := &list.Items[i]
		for _, v := range r.kind.Values(svc) {
			switch {
			case !v.InRange:
				r.recorder.Warn(svc, r.kind.Reason+"OutOfRange", fmt.Sprintf("%s %s is not within the configured range; please recreate the service", r.kind.Noun, v.Text))
			case owner[v.Offset] != nil && owner[v.Offset] != svc:
				r.recorder.Warn(svc, r.kind.Reason+"AlreadyAllocated", fmt.Sprintf("%s %s was assigned to multiple services; please recreate the service", r.kind.Noun, v.Text))
			default:
				owner[v.Offset] = svc
			}
		}
	}
	var seen, freed map[uint64]bool
	err = r.store.Update(ctx, func(b *bitmap.Bitmap) error {
		// This may run more than once (compare-and-swap retries): it only
		// reads the leak counts; they change after the write succeeds.
		seen, freed = map[uint64]bool{}, map[uint64]bool{}
		for off, svc := range owner {
			if before.Has(off) && !b.Has(off) {
				continue // released during this pass
			}
			if b.Set(off) {
				r.recorder.Warn(svc, r.kind.Reason+"NotAllocated", fmt.Sprintf("%s %s is not allocated; repairing", r.kind.Noun, textOf(r.kind, svc, off)))
			}
		}
		for off := uint64(0); off < b.Size(); off++ {
			if b.Has(off) && owner[off] == nil {
				seen[off] = true
				if r.leaked.due(off) {
					b.Clear(off)
					freed[off] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for off := range freed {
		delete(seen, off)
	}
	r.leaked.record(seen)
	return nil
}

func textOf(k Kind, svc *corev1.Service, off uint64) string {
	for _, v := range k.Values(svc) {
		if v.InRange && v.Offset == off {
			return v.Text
		}
	}
	return fmt.Sprint(off)
}

// Leaked returns how many values are currently counted as leaked.
func (r *BitmapRepair) Leaked() int { return len(r.leaked) }
