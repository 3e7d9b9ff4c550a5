package netns

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"strconv"

	"github.com/spf13/pflag"
)

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
