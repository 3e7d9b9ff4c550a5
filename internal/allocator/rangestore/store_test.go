package rangestore

import (
	"context"
	"errors"
	"testing"

	"github.com/svcplane/svcplane/internal/allocator/bitmap"
)

// TestMemoryKeepsFailedChangesOut checks the contract every store keeps: an
// error from fn writes nothing.
func TestMemoryKeepsFailedChangesOut(t *testing.T) {
	m := NewMemory(10)
	boom := errors.New("boom")
	err := m.Update(context.Background(), func(b *bitmap.Bitmap) error { b.Set(1); return boom })
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	b, _ := m.Get(context.Background())
	if b.Has(1) || m.Writes != 0 {
		t.Fatal("a failed update was written")
	}
}
