package replicaset

import (
	"errors"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

func TestSlowStartStopsAfterAFailingBatch(t *testing.T) {
	calls := 0
	made, err := slowStart(10, func() error {
		calls++
		if calls == 3 { // fails inside the second batch (calls 2-3)
			return errors.New("quota")
		}
		return nil
	})
	if err == nil || made != 3 || calls != 3 {
		t.Fatalf("made %d calls %d err %v; want batches 1+2 then stop", made, calls, err)
	}
	made, err = slowStart(10, func() error { return nil })
	if err != nil || made != 10 {
		t.Fatalf("made %d, %v", made, err)
	}
}

func TestExpectations(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	e := newExpectations(clk)
	e.expect("a/rs", 2, 0)
	if e.satisfied("a/rs") {
		t.Fatal("pending creations must hold the ReplicaSet back")
	}
	e.observe("a/rs", 2, 0)
	if !e.satisfied("a/rs") {
		t.Fatal("all creations observed")
	}
	e.expect("a/rs", 0, 1)
	clk.Step(expectationsTTL + time.Second)
	if !e.satisfied("a/rs") {
		t.Fatal("expectations must expire")
	}
}
