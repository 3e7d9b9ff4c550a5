package main

import (
	"context"
	"errors"

	"github.com/fsnotify/fsnotify"
)

// errConfigFileUpdated is kube-proxy's reason to exit when its --config
// file is written or renamed (a ConfigMap update): it restarts with the
// new one.
var errConfigFileUpdated = errors.New("content of the proxy server's configuration file was updated")

// watchConfigFile reports on the returned channel, once, that path was
// written or renamed (errConfigFileUpdated) or that watching it failed,
// until ctx ends.
func watchConfigFile(ctx context.Context, path string) (<-chan error, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if err := w.Add(path); err != nil {
		_ = w.Close()
		return nil, err
	}
	out := make(chan error, 1)
	go func() {
		defer w.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if ev.Has(fsnotify.Write) || ev.Has(fsnotify.Rename) {
					out <- errConfigFileUpdated
					return
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				out <- err
				return
			}
		}
	}()
	return out, nil
}

// runWatchingConfig runs run until it returns or, when configFile is
// set, until the file changes (kube-proxy's runLoop): then run's context
// is cancelled, and the change is the error once run has returned.
func runWatchingConfig(ctx context.Context, configFile string, run func(context.Context) error) error {
	if configFile == "" {
		return run(ctx)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	changed, err := watchConfigFile(ctx, configFile)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	select {
	case err := <-done:
		return err
	case err := <-changed:
		cancel()
		<-done
		return err
	}
}
