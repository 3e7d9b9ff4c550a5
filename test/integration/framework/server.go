package framework

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/svcplane/svcplane/internal/apiserver"
	"github.com/svcplane/svcplane/internal/plane"
	"github.com/svcplane/svcplane/internal/testutil"
)

// Server is a running test server: the API server with its controller
// manager, composed as `svcplane server` composes it (internal/plane).
type Server struct {
	*apiserver.Server
	// Options are the plane's options (the API server's, embedded, and the
	// controllers'); they shadow the embedded Server's.
	Options *Options
	// Config is the admin client configuration (from the written kubeconfig).
	Config *restclient.Config
	Client kubernetes.Interface
	stop   context.CancelFunc
	done   chan error
	// ownDir is the temporary data directory Start made, removed by Stop.
	ownDir string
}

// Options are the server and controller options a test may change.
type Options = plane.Options

// Start runs a server in dataDir (a temporary directory when empty) and
// waits until /readyz answers 200. Call Stop when done.
func Start(dataDir string) (*Server, error) { return StartWith(dataDir, nil) }

// StartWith is Start with a function that adjusts the options.
func StartWith(dataDir string, adjust func(*Options)) (*Server, error) {
	ownDir := ""
	if dataDir == "" {
		d, err := os.MkdirTemp("", "svcplane-it-")
		if err != nil {
			return nil, err
		}
		dataDir, ownDir = d, d
	}
	o := plane.NewServerOptions()
	o.DataDir, o.SecurePort, o.BindAddress = dataDir, 0, "127.0.0.1"
	if adjust != nil {
		adjust(o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p, err := plane.New(ctx, o)
	if err != nil {
		cancel()
		if ownDir != "" {
			_ = os.RemoveAll(ownDir)
		}
		return nil, err
	}
	s := p.Server
	ts := &Server{Server: s, Options: o, stop: cancel, done: make(chan error, 1), ownDir: ownDir}
	go func() { ts.done <- p.Run(ctx) }()
	if ts.Config, err = clientcmd.BuildConfigFromFlags("", s.Kubeconfig); err != nil {
		ts.Stop()
		return nil, err
	}
	ts.Config.QPS, ts.Config.Burst = -1, 0
	if ts.Client, err = kubernetes.NewForConfig(ts.Config); err != nil {
		ts.Stop()
		return nil, err
	}
	if err := ts.waitReady(60 * time.Second); err != nil {
		ts.Stop()
		return nil, err
	}
	return ts, nil
}

func (s *Server) waitReady(timeout time.Duration) error {
	var exited error
	err := testutil.Poll(timeout, func() error {
		select {
		case err := <-s.done:
			exited = fmt.Errorf("server exited: %v", err)
			return nil // no use waiting longer
		default:
		}
		if body, err := s.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(context.Background()); err != nil {
			return fmt.Errorf("%v: %s", err, body)
		}
		return nil
	})
	if exited != nil {
		return exited
	}
	if err != nil {
		return fmt.Errorf("not ready: %w", err)
	}
	return nil
}

// Stop shuts the server down, waits for it and removes the data
// directory Start made (one it was given stays).
func (s *Server) Stop() error {
	s.stop()
	select {
	case err := <-s.done:
		if s.ownDir != "" {
			_ = os.RemoveAll(s.ownDir)
		}
		return err
	case <-time.After(60 * time.Second):
		return fmt.Errorf("server did not stop within 60s")
	}
}

// StartT starts a server for one test and stops it at cleanup.
func StartT(t testing.TB) *Server {
	t.Helper()
	s, err := Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return s
}
