package netns

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
)

// netexec is agnhost's netexec: HTTP on --http-port (the handlers below),
// UDP on --udp-port (-1: none), with upstream's flags; a port it cannot
// bind ends it with 1.
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
