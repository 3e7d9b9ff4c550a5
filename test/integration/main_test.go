package integration

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/svcplane/svcplane/test/integration/framework"
)

// server is shared by the tests of this package that need no server of
// their own.
var server *framework.Server

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		// No server: every test says SKIP (skipShort) instead of the
		// package reporting ok with nothing run.
		fmt.Println("test/integration: -short: no server started; every test skips")
		os.Exit(m.Run())
	}
	s, err := framework.Start("")
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting server:", err)
		os.Exit(1)
	}
	server = s
	code := m.Run()
	if err := s.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping server:", err)
		code = 1
	}
	os.Exit(code)
}
