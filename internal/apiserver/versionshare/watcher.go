package versionshare

import (
	"sync"

	"k8s.io/apimachinery/pkg/watch"
)

// watcher hands each event of a watch to observe before passing it on. Unlike
// watch.Filter it stops forwarding once stopped, so that its goroutine
// ends even when nobody reads the rest of the events.
type watcher struct {
	in      watch.Interface
	out     chan watch.Event
	stop    chan struct{}
	once    sync.Once
	observe func(watch.Event)
}

func newWatcher(in watch.Interface, observe func(watch.Event)) *watcher {
	w := &watcher{in: in, out: make(chan watch.Event), stop: make(chan struct{}), observe: observe}
	go w.loop()
	return w
}

func (w *watcher) ResultChan() <-chan watch.Event { return w.out }

func (w *watcher) Stop() {
	w.once.Do(func() { close(w.stop) })
	w.in.Stop()
}

func (w *watcher) loop() {
	defer close(w.out)
	for {
		select {
		case <-w.stop:
			return
		case e, ok := <-w.in.ResultChan():
			if !ok {
				return
			}
			w.observe(e)
			select {
			case w.out <- e:
			case <-w.stop:
				return
			}
		}
	}
}
