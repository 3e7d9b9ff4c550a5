package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRunWatchingConfig: as kube-proxy, a write to the --config file
// stops the proxy with errConfigFileUpdated.
func TestRunWatchingConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.conf")
	if err := os.WriteFile(path, []byte("a"), 0o600); err != nil {
		t.Fatal(err)
	}
	running := make(chan struct{})
	result := make(chan error, 1)
	go func() {
		result <- runWatchingConfig(context.Background(), path, func(ctx context.Context) error {
			close(running)
			<-ctx.Done()
			return nil
		})
	}()
	<-running
	if err := os.WriteFile(path, []byte("b"), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-result:
		if !errors.Is(err, errConfigFileUpdated) {
			t.Errorf("got %v, want %v", err, errConfigFileUpdated)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the write did not stop the proxy")
	}
}

func TestRunWatchingConfigRunEnds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.conf")
	if err := os.WriteFile(path, []byte("a"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := runWatchingConfig(context.Background(), path, func(context.Context) error { return boom }); err != boom {
		t.Errorf("got %v", err)
	}
	if err := runWatchingConfig(context.Background(), "", func(context.Context) error { return boom }); err != boom {
		t.Errorf("no config file: got %v", err)
	}
	if err := runWatchingConfig(context.Background(), path+".missing", func(context.Context) error { return nil }); err == nil {
		t.Error("missing file: no error")
	}
}
