package iptext

import (
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	got := Split(`-m comment --comment "ns/web:p cluster IP" -d 10.96.0.10/32 -j KUBE-SVC-X`)
	want := []string{"-m", "comment", "--comment", "ns/web:p cluster IP", "-d", "10.96.0.10/32", "-j", "KUBE-SVC-X"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q", got)
	}
	if q := Quote("a b"); q != `"a b"` {
		t.Fatalf("quote: %s", q)
	}
	if Split(Quote(`x "y" z`))[0] != `x "y" z` {
		t.Fatalf("quote round trip")
	}
}

func TestParseSave(t *testing.T) {
	text := "# Generated\n*nat\n:PREROUTING ACCEPT [0:0]\n:KUBE-SERVICES - [0:0]\n-A PREROUTING -j KUBE-SERVICES\nCOMMIT\n"
	tables, err := ParseSave(text)
	if err != nil {
		t.Fatal(err)
	}
	nat := tables["nat"]
	if nat == nil || !slices.Equal(nat.Order, []string{"PREROUTING", "KUBE-SERVICES"}) || nat.Rules["PREROUTING"][0] != "-j KUBE-SERVICES" {
		t.Fatalf("got %+v", nat)
	}
	if _, err := Parse("bogus"); err == nil {
		t.Fatal("want error")
	}
}
