package objshare

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Group is what makes objects of one type siblings: the same namespace
// and the same controller (the UID of the ownerReference marked
// controller; empty for objects that have none, so a namespace's bare
// objects are siblings too).
type Group struct {
	Namespace  string
	Controller types.UID
}

// GroupOf returns obj's Group.
func GroupOf(obj metav1.Object) Group {
	g := Group{Namespace: obj.GetNamespace()}
	if ref := metav1.GetControllerOfNoCopy(obj); ref != nil {
		g.Controller = ref.UID
	}
	return g
}
