package resource

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func testDef() *Definition {
	return &Definition{
		GroupVersion: appsv1.SchemeGroupVersion, Kind: "ReplicaSet", Resource: "replicasets", Singular: "replicaset",
		Namespaced: true, Status: &StatusDefinition{}, Generation: true,
		New: func() runtime.Object { return &appsv1.ReplicaSet{} },
	}
}

func replicas(n int32) *int32 { return &n }

func TestStrategyStatusSplitAndGeneration(t *testing.T) {
	ctx := context.Background()
	s := newStrategy(runtime.NewScheme(), testDef())
	rs := &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Replicas: replicas(1)}, Status: appsv1.ReplicaSetStatus{Replicas: 9}}
	s.PrepareForCreate(ctx, rs)
	if rs.Status.Replicas != 0 || rs.Generation != 1 {
		t.Fatalf("create: status=%+v generation=%d", rs.Status, rs.Generation)
	}
	old := rs.DeepCopy()
	old.Status.Replicas = 4
	upd := old.DeepCopy()
	upd.Status.Replicas = 100
	upd.Labels = map[string]string{"a": "b"}
	s.PrepareForUpdate(ctx, upd, old)
	if upd.Status.Replicas != 4 || upd.Generation != 1 {
		t.Fatalf("metadata update: status=%d generation=%d", upd.Status.Replicas, upd.Generation)
	}
	upd.Spec.Replicas = replicas(3)
	s.PrepareForUpdate(ctx, upd, old)
	if upd.Generation != 2 {
		t.Fatalf("spec update: generation=%d, want 2", upd.Generation)
	}
	st := statusStrategy{s, s.def.Status}
	su := old.DeepCopy()
	su.Spec.Replicas = replicas(50)
	su.Status.Replicas = 5
	st.PrepareForUpdate(ctx, su, old)
	if *su.Spec.Replicas != 1 || su.Status.Replicas != 5 {
		t.Fatalf("status update: spec=%d status=%d", *su.Spec.Replicas, su.Status.Replicas)
	}
}

func TestStrategyValidatesNameWithDefinitionRule(t *testing.T) {
	s := newStrategy(runtime.NewScheme(), testDef())
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "Not_Valid", Namespace: "ns"}}
	errs := s.Validate(context.Background(), rs)
	if len(errs) == 0 || errs[0].Field != "metadata.name" {
		t.Fatalf("want a metadata.name error, got %v", errs)
	}
	rs.Name = "ok"
	if errs := s.Validate(context.Background(), rs); len(errs) != 0 {
		t.Fatalf("valid object: %v", errs)
	}
}

func TestTableConvertorListAndOmitName(t *testing.T) {
	def := testDef()
	def.Columns = []metav1.TableColumnDefinition{Column("Desired", "integer", 0, "")}
	def.Row = func(obj runtime.Object) []interface{} {
		return []interface{}{int64(*obj.(*appsv1.ReplicaSet).Spec.Replicas)}
	}
	list := &appsv1.ReplicaSetList{ListMeta: metav1.ListMeta{ResourceVersion: "7", Continue: "c"},
		Items: []appsv1.ReplicaSet{{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: appsv1.ReplicaSetSpec{Replicas: replicas(2)}}}}
	table, err := newTableConvertor(def).ConvertToTable(context.Background(), list, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(table.ColumnDefinitions) != 2 || table.ColumnDefinitions[0].Name != "Name" || table.ResourceVersion != "7" || table.Continue != "c" {
		t.Fatalf("table: %+v", table)
	}
	if len(table.Rows) != 1 || table.Rows[0].Cells[0] != "a" || table.Rows[0].Cells[1] != int64(2) {
		t.Fatalf("rows: %+v", table.Rows)
	}
	def.OmitNameColumn = true
	table, _ = newTableConvertor(def).ConvertToTable(context.Background(), &list.Items[0], &metav1.TableOptions{NoHeaders: true})
	if table.ColumnDefinitions != nil || len(table.Rows[0].Cells) != 1 {
		t.Fatalf("no headers / omitted name: %+v", table)
	}
}
