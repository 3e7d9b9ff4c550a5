package plane

import (
	"runtime/debug"
	"testing"
)

func TestApplyGCPercent(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)

	for _, tc := range []struct {
		name      string
		gogc      string
		want      int
		wantSet   bool
		runtimeAt int // what the runtime holds before the call
	}{
		{name: "no GOGC: the flag's value", gogc: "", want: 50, wantSet: true, runtimeAt: 100},
		{name: "GOGC set: the runtime's value stays", gogc: "200", want: 200, wantSet: false, runtimeAt: 200},
		{name: "GOGC=off stays off", gogc: "off", want: -1, wantSet: false, runtimeAt: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetGCPercent(tc.runtimeAt)
			got, set := ApplyGCPercent(50, func(k string) string {
				if k == "GOGC" {
					return tc.gogc
				}
				return ""
			})
			if got != tc.want || set != tc.wantSet {
				t.Errorf("ApplyGCPercent = %d, %v; want %d, %v", got, set, tc.want, tc.wantSet)
			}
			if now := debug.SetGCPercent(100); now != tc.want {
				t.Errorf("runtime's percent after the call: %d, want %d", now, tc.want)
			}
		})
	}
}

func TestValidGCPercent(t *testing.T) {
	for p, ok := range map[int]bool{9: false, 10: true, 50: true, 1000: true, 1001: false, -1: false} {
		if err := ValidGCPercent(p); (err == nil) != ok {
			t.Errorf("ValidGCPercent(%d) = %v, want ok=%v", p, err, ok)
		}
	}
}
