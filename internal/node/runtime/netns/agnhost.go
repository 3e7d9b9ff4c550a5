package netns

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/spf13/pflag"
)

// agnhost runs one subcommand of the agnhost test image in-process, with
// its flags and (for netexec and serve-hostname) the answers Services
// tests rely on. An unknown subcommand or flag exits 1 with cobra's words.
func agnhost(args []string) program { return agnhostAs("/agnhost", args) }

// agnhostAs is agnhost run as argv0 (the image has /agnhost and its copy
// /agnhost-2; entrypoint-tester prints it).
func agnhostAs(argv0 string, args []string) program {
	return func(ctx context.Context, io *procIO) int {
		if len(args) == 0 {
			fmt.Fprintln(io.stderr, "agnhost: a subcommand is required (netexec, serve-hostname, connect, crd-conversion-webhook, test-webserver, entrypoint-tester, dns-suffix, dns-server-list, pause)")
			return 1
		}
		sub, rest := args[0], args[1:]
		switch sub {
		case "netexec":
			return netexec(ctx, io, rest)
		case "serve-hostname":
			return serveHostname(ctx, io, rest)
		case "connect":
			return connect(ctx, io, rest)
		case "crd-conversion-webhook":
			return crdConversionWebhook(ctx, io, rest)
		case "entrypoint-tester":
			fmt.Fprintf(io.stdout, "%v\n", append([]string{argv0}, args...))
			return 0
		case "test-webserver":
			return testWebserver(ctx, io, rest)
		case "dns-suffix":
			return dnsInfo(ctx, io, "search")
		case "dns-server-list":
			return dnsInfo(ctx, io, "nameserver")
		case "pause":
			fmt.Fprintln(io.stdout, "Paused")
			<-ctx.Done()
			return 0
		}
		fmt.Fprintf(io.stderr, "Error: unknown command %q for \"agnhost\"\nRun 'agnhost --help' for usage.\n", sub)
		return 1
	}
}

// parseFlags parses a subcommand's flags as cobra would, reporting an
// error on stderr. Every subcommand also takes the logging flags agnhost's
// root command has from component-base (-v, --vmodule,
// --log-flush-frequency); the built-ins log as they do at any verbosity.
func parseFlags(fs *pflag.FlagSet, args []string, stderr io.Writer) bool {
	fs.SetOutput(io.Discard)
	if fs.Lookup("v") == nil {
		fs.Int32P("v", "v", 0, "number for the log level verbosity")
		fs.String("vmodule", "", "comma-separated list of pattern=N settings for file-filtered logging")
		fs.Duration("log-flush-frequency", 5*time.Second, "Maximum number of seconds between log flushes")
	}
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return false
	}
	return true
}

// exitRequest ends a netexec run with a code (/exit, /shutdown, a fatal error).
type exitRequest struct{ code int }

// serveUntil serves HTTP on l until ctx ends (0) or an exit is asked for.
func serveUntil(ctx context.Context, l net.Listener, handler http.Handler, exit chan exitRequest) int {
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			exit <- exitRequest{code: 1}
		}
	}()
	code := 0
	select {
	case <-ctx.Done():
	case e := <-exit:
		code = e.code
	}
	_ = srv.Close()
	return code
}
