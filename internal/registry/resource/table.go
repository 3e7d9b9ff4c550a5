package resource

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// tableConvertor prints a Definition's columns for kubectl get.
type tableConvertor struct {
	columns []metav1.TableColumnDefinition
	row     func(obj runtime.Object) []interface{}
	name    bool
}

func newTableConvertor(def *Definition) *tableConvertor {
	var cols []metav1.TableColumnDefinition
	if !def.OmitNameColumn {
		cols = append(cols, metav1.TableColumnDefinition{
			Name: "Name", Type: "string", Format: "name",
			Description: metav1.ObjectMeta{}.SwaggerDoc()["name"],
		})
	}
	cols = append(cols, def.Columns...)
	row := def.Row
	if row == nil {
		cols = append(cols, AgeColumn)
		row = func(obj runtime.Object) []interface{} { return []interface{}{AgeOf(obj)} }
	}
	return &tableConvertor{columns: cols, row: row, name: !def.OmitNameColumn}
}

func (c *tableConvertor) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	table := &metav1.Table{}
	opts, ok := tableOptions.(*metav1.TableOptions)
	if !ok || !opts.NoHeaders {
		table.ColumnDefinitions = c.columns
	}
	add := func(obj runtime.Object) error {
		m, err := meta.Accessor(obj)
		if err != nil {
			return err
		}
		cells := c.row(obj)
		if c.name {
			cells = append([]interface{}{m.GetName()}, cells...)
		}
		table.Rows = append(table.Rows, metav1.TableRow{Cells: cells, Object: runtime.RawExtension{Object: obj}})
		return nil
	}
	if meta.IsListType(object) {
		if err := meta.EachListItem(object, add); err != nil {
			return nil, err
		}
		if l, err := meta.ListAccessor(object); err == nil {
			table.ResourceVersion = l.GetResourceVersion()
			table.Continue = l.GetContinue()
			table.RemainingItemCount = l.GetRemainingItemCount()
		}
		return table, nil
	}
	if err := add(object); err != nil {
		return nil, err
	}
	if m, err := meta.Accessor(object); err == nil {
		table.ResourceVersion = m.GetResourceVersion()
	}
	return table, nil
}

// AgeColumn is the AGE column every kind prints.
var AgeColumn = Column("Age", "string", 0, "CreationTimestamp is a timestamp representing the server time when this object was created.")

// Column returns a table column definition; priority 1 columns show only
// with -o wide.
func Column(name, typ string, priority int32, description string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: typ, Priority: priority, Description: description}
}

// AgeOf prints an object's age the way kubectl does ("5m", "<unknown>").
func AgeOf(obj runtime.Object) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return "<unknown>"
	}
	return Since(m.GetCreationTimestamp())
}

// Since prints the time since t, or "<unknown>" for a zero time.
func Since(t metav1.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(t.Time))
}

// Join prints a list the way upstream's printers do: "<none>" when empty.
func Join(items []string, sep string) string {
	if len(items) == 0 {
		return "<none>"
	}
	out := items[0]
	for _, s := range items[1:] {
		out += sep + s
	}
	return out
}

// Itoa prints an int32 for a table cell.
func Itoa(i int32) string { return fmt.Sprint(i) }
