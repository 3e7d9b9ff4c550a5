package netns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/pflag"
)

// agnhost runs one subcommand of the agnhost test image in-process, with
// its flags and (for netexec and serve-hostname) the answers Services
// tests rely on. An unknown subcommand or flag exits 1 with cobra's words.
func agnhost(args []string) program {
	return func(ctx context.Context, io *procIO) int {
		if len(args) == 0 {
			fmt.Fprintln(io.stderr, "agnhost: a subcommand is required (netexec, serve-hostname, connect, pause)")
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
// error on stderr.
func parseFlags(fs *pflag.FlagSet, args []string, stderr io.Writer) bool {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return false
	}
	return true
}

// exitRequest ends a netexec run with a code (/exit, /shutdown, a fatal error).
type exitRequest struct{ code int }

func netexec(ctx context.Context, pio *procIO, args []string) int {
	fs := pflag.NewFlagSet("netexec", pflag.ContinueOnError)
	httpPort := fs.Int("http-port", 8080, "HTTP Listen Port")
	udpPort := fs.Int("udp-port", 8081, "UDP Listen Port")
	sctpPort := fs.Int("sctp-port", -1, "SCTP Listen Port")
	override := fs.String("http-override", "", "Override the HTTP handler")
	udpAddrs := fs.String("udp-listen-addresses", "", "UDP listen addresses")
	_ = fs.Int("delay-shutdown", 0, "Seconds to delay shutdown at SIGTERM")
	_ = fs.String("tls-cert-file", "", "")
	_ = fs.String("tls-private-key-file", "", "")
	if !parseFlags(fs, args, pio.stderr) {
		return 1
	}
	_ = sctpPort
	logger := log.New(pio.stderr, "", log.LstdFlags)
	exit := make(chan exitRequest, 4)
	var ready atomic.Bool
	h := &netexecHandler{pio: pio, log: logger, exit: exit, ready: &ready, httpPort: *httpPort}
	var handler http.Handler = h.mux()
	if *override != "" {
		mux := handler
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			req, err := http.NewRequestWithContext(r.Context(), "GET", *override, nil)
			if err != nil {
				http.Error(w, fmt.Sprintf("override request failed: %v", err), http.StatusInternalServerError)
				return
			}
			req.RemoteAddr = r.RemoteAddr
			mux.ServeHTTP(w, req)
		})
	}
	if *udpPort != -1 {
		addrs := []string{""}
		if *udpAddrs != "" {
			addrs = strings.Split(*udpAddrs, ",")
		}
		for _, a := range addrs {
			conn, err := pio.pod.listenPacket("udp", net.JoinHostPort(a, strconv.Itoa(*udpPort)))
			if err != nil {
				logger.Printf("Error occurred: failed to create listener for UDP address %s:%v", net.JoinHostPort(a, strconv.Itoa(*udpPort)), err)
				return 1
			}
			defer conn.Close()
			logger.Printf("Started UDP server on port %s %d", a, *udpPort)
			go h.serveUDP(conn, *udpPort)
		}
	}
	l, err := pio.pod.listen("tcp", ":"+strconv.Itoa(*httpPort))
	if err != nil {
		logger.Print(err)
		return 1
	}
	ready.Store(true)
	logger.Printf("Started HTTP server on port %d", *httpPort)
	return serveUntil(ctx, l, handler, exit)
}

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

type netexecHandler struct {
	pio      *procIO
	log      *log.Logger
	exit     chan exitRequest
	ready    *atomic.Bool
	httpPort int
}

func (h *netexecHandler) mux() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.log.Printf("GET /")
		fmt.Fprintf(w, "NOW: %v", time.Now())
	})
	m.HandleFunc("/clientip", func(w http.ResponseWriter, r *http.Request) {
		h.log.Printf("GET /clientip")
		fmt.Fprint(w, r.RemoteAddr)
	})
	m.HandleFunc("/serverport", func(w http.ResponseWriter, r *http.Request) {
		h.log.Printf("GET /serverport")
		fmt.Fprint(w, h.httpPort)
	})
	m.HandleFunc("/header", func(w http.ResponseWriter, r *http.Request) {
		if key := r.FormValue("key"); key != "" {
			fmt.Fprintf(w, "%s", r.Header.Get(key))
			return
		}
		data, _ := json.Marshal(r.Header)
		fmt.Fprintf(w, "%s", data)
	})
	m.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		msg, codeString := r.FormValue("msg"), r.FormValue("code")
		h.log.Printf("GET /echo?msg=%s&code=%s", msg, codeString)
		if codeString != "" {
			code, err := strconv.Atoi(codeString)
			if err != nil {
				fmt.Fprintf(w, "argument 'code' must be an integer or empty, got %q\n", codeString)
				return
			}
			w.WriteHeader(code)
		}
		fmt.Fprintf(w, "%s", msg)
	})
	m.HandleFunc("/exit", h.exitHandler)
	m.HandleFunc("/shutdown", func(w http.ResponseWriter, r *http.Request) {
		h.log.Printf("GET /shutdown")
		h.exit <- exitRequest{code: 0}
	})
	m.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		h.log.Printf("GET /healthz")
		if h.ready.Load() {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.WriteHeader(http.StatusPreconditionFailed)
	})
	m.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		h.log.Printf("GET /readyz")
		if h.ready.Load() {
			_, _ = w.Write([]byte("ok"))
			return
		}
		w.WriteHeader(http.StatusPreconditionFailed)
	})
	hostname := func(w http.ResponseWriter, r *http.Request) {
		h.log.Printf("GET %s", r.URL.Path)
		fmt.Fprint(w, h.pio.pod.hostname)
	}
	m.HandleFunc("/hostname", hostname)
	m.HandleFunc("/hostName", hostname)
	m.HandleFunc("/dial", h.dialHandler)
	m.HandleFunc("/shell", h.shellHandler)
	m.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		loc := r.FormValue("location")
		code := http.StatusFound
		if s := r.FormValue("code"); s != "" {
			c, err := strconv.Atoi(s)
			if err != nil {
				fmt.Fprintf(w, "argument 'code' must be an integer or empty, got %q\n", s)
				return
			}
			code = c
		}
		http.Redirect(w, r, loc, code)
	})
	return m
}

func (h *netexecHandler) exitHandler(w http.ResponseWriter, r *http.Request) {
	waitString, timeoutString, codeString := r.FormValue("wait"), r.FormValue("timeout"), r.FormValue("code")
	h.log.Printf("GET /exit?code=%s&timeout=%s&wait=%s", codeString, timeoutString, waitString)
	if _, err := time.ParseDuration(timeoutString); err != nil && timeoutString != "" {
		fmt.Fprintf(w, "argument 'timeout' must be a valid golang duration or empty, got %q\n", timeoutString)
		return
	}
	wait, err := time.ParseDuration(waitString)
	if err != nil && waitString != "" {
		fmt.Fprintf(w, "argument 'wait' must be a valid golang duration or empty, got %q\n", waitString)
		return
	}
	code, err := strconv.Atoi(codeString)
	if err != nil && codeString != "" {
		fmt.Fprintf(w, "argument 'code' must be an integer [0-127] or empty, got %q\n", codeString)
		return
	}
	go func() {
		time.Sleep(wait)
		h.exit <- exitRequest{code: code}
	}()
}

func (h *netexecHandler) dialHandler(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	host, port, request, protocol := q.Get("host"), q.Get("port"), q.Get("request"), q.Get("protocol")
	h.log.Printf("GET /dial?host=%s&protocol=%s&port=%s&request=%s&tries=%s", host, protocol, port, request, q.Get("tries"))
	tries := 1
	var err error
	if s := q.Get("tries"); s != "" {
		if tries, err = strconv.Atoi(s); err != nil {
			http.Error(w, fmt.Sprintf("tries parameter is invalid. %v", err), http.StatusBadRequest)
			return
		}
	}
	if request == "" {
		http.Error(w, "request parameter not specified. <nil>", http.StatusBadRequest)
		return
	}
	hostPort := net.JoinHostPort(host, port)
	var dial func(ctx context.Context) (string, error)
	switch strings.ToLower(protocol) {
	case "", "http":
		if _, err = net.ResolveTCPAddr("tcp", hostPort); err == nil {
			dial = func(ctx context.Context) (string, error) {
				return h.pio.pod.httpGet(ctx, "http://"+hostPort+"/"+request)
			}
		}
	case "udp":
		if _, err = net.ResolveUDPAddr("udp", hostPort); err == nil {
			dial = func(ctx context.Context) (string, error) { return h.pio.pod.udpRequest(ctx, hostPort, request) }
		}
	default:
		http.Error(w, fmt.Sprintf("unsupported protocol. %s", protocol), http.StatusBadRequest)
		return
	}
	if err != nil {
		http.Error(w, fmt.Sprintf("host and/or port param are invalid. %v", err), http.StatusBadRequest)
		return
	}
	errs, responses := []string{}, []string{}
	var last string
	for i := 0; i < tries; i++ {
		resp, err := dial(r.Context())
		last = resp
		if err != nil {
			errs = append(errs, err.Error())
		} else {
			responses = append(responses, resp)
		}
	}
	out := map[string][]string{}
	if last != "" {
		out["responses"] = responses
	}
	if len(errs) > 0 {
		out["errors"] = errs
	}
	b, _ := json.Marshal(out)
	fmt.Fprint(w, string(b))
}

func (h *netexecHandler) shellHandler(w http.ResponseWriter, r *http.Request) {
	cmd := r.FormValue("shellCommand")
	if cmd == "" {
		cmd = r.FormValue("cmd")
	}
	h.log.Printf("GET /shell?cmd=%s", cmd)
	out, err := h.pio.pod.combinedOutput(r.Context(), h.pio.ctr, []string{"sh", "-c", cmd})
	output := map[string]string{}
	if len(out) > 0 {
		output["output"] = string(out)
	}
	if err != nil {
		output["error"] = err.Error()
	}
	b, _ := json.Marshal(output)
	fmt.Fprint(w, string(b))
}

// serveUDP answers netexec's UDP commands: hostname, echo <text>,
// clientip, serverport.
func (h *netexecHandler) serveUDP(conn net.PacketConn, port int) {
	buf := make([]byte, 2048)
	for {
		n, from, err := conn.ReadFrom(buf)
		if err != nil {
			return
		}
		text := strings.ToLower(strings.TrimSpace(string(buf[:n])))
		var resp string
		switch {
		case text == "hostname":
			resp = h.pio.pod.hostname
		case strings.HasPrefix(text, "echo "):
			resp = strings.SplitN(text, " ", 2)[1]
		case text == "clientip":
			resp = from.String()
		case text == "serverport":
			resp = strconv.Itoa(port)
		default:
			continue
		}
		_, _ = conn.WriteTo([]byte(resp), from)
	}
}

func serveHostname(ctx context.Context, pio *procIO, args []string) int {
	fs := pflag.NewFlagSet("serve-hostname", pflag.ContinueOnError)
	doTCP := fs.Bool("tcp", false, "Serve raw over TCP.")
	doUDP := fs.Bool("udp", false, "Serve raw over UDP.")
	doHTTP := fs.Bool("http", true, "Serve HTTP.")
	doClose := fs.Bool("close", false, "Close connection per each HTTP request.")
	port := fs.Int("port", 9376, "Port number.")
	if !parseFlags(fs, args, pio.stderr) {
		return 1
	}
	logger := log.New(pio.stderr, "", log.LstdFlags)
	if *doHTTP && (*doTCP || *doUDP) {
		logger.Print("Can't server TCP/UDP mode and HTTP mode at the same time")
		return 1
	}
	name := pio.pod.hostname
	addr := ":" + strconv.Itoa(*port)
	exit := make(chan exitRequest, 4)
	if *doTCP {
		l, err := pio.pod.listen("tcp", addr)
		if err != nil {
			logger.Printf("Error from net.Listen(): %s", err)
			return 1
		}
		defer l.Close()
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				_, _ = c.Write([]byte(name))
				_ = c.Close()
			}
		}()
	}
	if *doUDP {
		conn, err := pio.pod.listenPacket("udp", addr)
		if err != nil {
			logger.Printf("Error from ListenUDP(): %s", err)
			return 1
		}
		defer conn.Close()
		go answerUDP(conn, name)
	}
	logger.Printf("Serving on port %d.", *port)
	if !*doHTTP {
		<-ctx.Done()
		return 0
	}
	l, err := pio.pod.listen("tcp", addr)
	if err != nil {
		logger.Print(err)
		return 1
	}
	return serveUntil(ctx, l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		logger.Printf("HTTP request from %s", r.RemoteAddr)
		if *doClose {
			w.Header().Add("Connection", "close")
		}
		fmt.Fprintf(w, "%s", name)
	}), exit)
}

// answerUDP replies name to every datagram.
func answerUDP(conn net.PacketConn, name string) {
	buf := make([]byte, 2048)
	for {
		_, from, err := conn.ReadFrom(buf)
		if err != nil {
			return
		}
		_, _ = conn.WriteTo([]byte(name), from)
	}
}

// defaultServer is any other image: HTTP answering the pod's name on each
// declared TCP containerPort, the name echoed on each UDP one.
func defaultServer(ctx context.Context, pio *procIO) int {
	logger := log.New(pio.stderr, "", log.LstdFlags)
	var tcp []net.Listener
	for _, p := range pio.ctr.spec.Ports {
		addr := ":" + strconv.Itoa(int(p.ContainerPort))
		switch p.Protocol {
		case "", "TCP":
			l, err := pio.pod.listen("tcp", addr)
			if err != nil {
				logger.Print(err)
				return 1
			}
			tcp = append(tcp, l)
		case "UDP":
			conn, err := pio.pod.listenPacket("udp", addr)
			if err != nil {
				logger.Print(err)
				return 1
			}
			defer conn.Close()
			go answerUDP(conn, pio.pod.hostname)
		}
	}
	name := pio.pod.hostname
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, name) })
	exit := make(chan exitRequest, len(tcp)+1)
	for _, l := range tcp {
		srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
		go func() { _ = srv.Serve(l) }()
		defer srv.Close()
	}
	logger.Printf("Serving %s on %d port(s)", name, len(pio.ctr.spec.Ports))
	select {
	case <-ctx.Done():
	case e := <-exit:
		return e.code
	}
	return 0
}

// connect is agnhost's connect: one TCP or UDP connection from the pod,
// exit 0 when it worked, else 1 and TIMEOUT, DNS, REFUSED, OTHER or
// UNKNOWN on stderr, as the Services tests check.
func connect(ctx context.Context, pio *procIO, args []string) int {
	fs := pflag.NewFlagSet("connect", pflag.ContinueOnError)
	timeout := fs.Duration("timeout", 0, "Maximum time before returning an error")
	protocol := fs.String("protocol", "tcp", "tcp or udp")
	udpData := fs.String("udp-data", "hostname", "The UDP payload send to the server")
	if !parseFlags(fs, args, pio.stderr) {
		return 1
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(pio.stderr, "Error: accepts 1 arg(s), received %d\n", fs.NArg())
		return 1
	}
	dest := fs.Arg(0)
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	switch *protocol {
	case "", "tcp":
		if _, _, err := net.SplitHostPort(dest); err != nil {
			fmt.Fprintf(pio.stderr, "UNKNOWN: %v\n", err)
			return 1
		}
		if _, err := net.ResolveTCPAddr("tcp", dest); err != nil {
			fmt.Fprintf(pio.stderr, "DNS: %v\n", err)
			return 1
		}
		conn, err := dialIn(ctx, pio.pod.ns, "tcp", dest)
		if err == nil {
			_ = conn.Close()
			return 0
		}
		var oe *net.OpError
		switch {
		case errors.As(err, &oe) && oe.Timeout(), errors.Is(err, context.DeadlineExceeded):
			fmt.Fprintf(pio.stderr, "TIMEOUT\n")
		case errors.Is(err, syscall.ECONNREFUSED):
			fmt.Fprintf(pio.stderr, "REFUSED\n")
		default:
			fmt.Fprintf(pio.stderr, "OTHER: %v\n", err)
		}
		return 1
	case "udp":
		if _, err := net.ResolveUDPAddr("udp", dest); err != nil {
			fmt.Fprintf(pio.stderr, "DNS: %v\n", err)
			return 1
		}
		conn, err := dialIn(ctx, pio.pod.ns, "udp", dest)
		if err != nil {
			fmt.Fprintf(pio.stderr, "OTHER: %v\n", err)
			return 1
		}
		defer conn.Close()
		if d, ok := ctx.Deadline(); ok {
			_ = conn.SetDeadline(d)
		}
		buf := make([]byte, 1024)
		_, err = conn.Write([]byte(*udpData + "\n"))
		n := 0
		if err == nil {
			n, err = conn.Read(buf)
		}
		var ne net.Error
		switch {
		case err == nil && n == 0:
			fmt.Fprintf(pio.stderr, "OTHER: No data received from the server. Cannot guarantee the server received the request.\n")
		case err == nil:
			return 0
		case errors.As(err, &ne) && ne.Timeout():
			fmt.Fprintf(pio.stderr, "TIMEOUT: %v\n", err)
		case strings.Contains(err.Error(), "connection refused"):
			fmt.Fprintf(pio.stderr, "REFUSED: %v\n", err)
		default:
			fmt.Fprintf(pio.stderr, "UNKNOWN: %v\n", err)
		}
		return 1
	}
	fmt.Fprintf(pio.stderr, "Unsupported protocol\n%s", *protocol)
	return 1
}
