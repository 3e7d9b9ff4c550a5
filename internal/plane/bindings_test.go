package plane

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestApplyBinding(t *testing.T) {
	c := fake.NewClientset()
	for i := 0; i < 2; i++ { // applying again changes nothing
		if err := nodeSimulatorBinding.apply(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	b, err := c.RbacV1().ClusterRoleBindings().Get(context.Background(), "svcplane:node-simulators", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b.RoleRef.Kind != "ClusterRole" || b.RoleRef.Name != "system:node" || len(b.Subjects) != 1 ||
		b.Subjects[0].Kind != "Group" || b.Subjects[0].Name != "svcplane:node-simulators" {
		t.Errorf("binding %+v %+v", b.RoleRef, b.Subjects)
	}
}
