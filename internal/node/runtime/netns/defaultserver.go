package netns

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"time"
)

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
