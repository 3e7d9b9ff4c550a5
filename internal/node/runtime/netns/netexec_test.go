package netns

import (
	"bytes"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

func TestNetexecAnswers(t *testing.T) {
	var ready atomic.Bool
	ready.Store(true)
	var logs bytes.Buffer
	h := &netexecHandler{pio: &procIO{pod: &pod{hostname: "web-1"}, ctr: &ctr{}}, log: log.New(&logs, "", 0),
		exit: make(chan exitRequest, 1), ready: &ready, httpPort: 8080}
	srv := httptest.NewServer(h.mux())
	defer srv.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range []struct {
		path string
		code int
		body string
	}{
		{"/hostname", 200, "web-1"},
		{"/hostName", 200, "web-1"},
		{"/echo?msg=hi", 200, "hi"},
		{"/echo?msg=no&code=503", 503, "no"},
		{"/echo?code=x", 200, "argument 'code' must be an integer or empty, got \"x\"\n"},
		{"/serverport", 200, "8080"},
		{"/healthz", 200, ""},
		{"/readyz", 200, "ok"},
		{"/dial?host=1.2.3.4&port=80", 400, "request parameter not specified. <nil>\n"},
		{"/dial?request=hostname&host=1.2.3.4&port=80&tries=x", 400, "tries parameter is invalid. strconv.Atoi: parsing \"x\": invalid syntax\n"},
		{"/dial?request=hostname&host=1.2.3.4&port=80&protocol=sctp", 400, "unsupported protocol. sctp\n"},
		{"/dial?request=hostname&host=1.2.3.4&port=notaport", 400, "host and/or port param are invalid. lookup tcp/notaport: unknown port\n"},
		{"/exit?code=x", 200, "argument 'code' must be an integer [0-127] or empty, got \"x\"\n"},
	} {
		code, body := get(c.path)
		if code != c.code || body != c.body {
			t.Errorf("GET %s = %d %q, want %d %q", c.path, code, body, c.code, c.body)
		}
	}
	if _, body := get("/clientip"); body == "" {
		t.Error("/clientip answered nothing")
	}
	ready.Store(false)
	if code, _ := get("/healthz"); code != http.StatusPreconditionFailed {
		t.Errorf("/healthz while not ready: %d", code)
	}
	get("/exit?code=7")
	if e := <-h.exit; e.code != 7 {
		t.Errorf("/exit?code=7 asked for exit %d", e.code)
	}
	if !bytes.Contains(logs.Bytes(), []byte("GET /hostname")) {
		t.Errorf("requests are not logged as agnhost logs them: %q", logs.String())
	}
}
