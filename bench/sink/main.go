// apns-sink: a small HTTP/2 server on golang.org/x/net/http2 that answers APNs-style requests,
// for two jobs: the default sink of bench/delivery (cheap, so the sender is what is measured),
// and an independent HTTP/2 peer for the lean transport's tests, with scripted behaviour
// chosen by the device token's prefix:
//
//	rst…   the handler aborts: RST_STREAM (INTERNAL_ERROR)
//	bad…   400 {"reason":"BadDeviceToken"}
//	big…   200 with a 40 KB header, so the answer needs CONTINUATION frames
//	away…  GOAWAY on this connection (graceful: streams received so far are answered), then 200
//	slow…  answered after 300 ms
//	drop…  the TCP connection is closed at once, every stream on it unanswered (with -track:
//	       only the token's first attempt; later ones are answered)
//	len…   200 with x-body-length (the bytes of the payload received)
//	anything else: 200 with an apns-id, as Apple answers
//
// -delay D answers every device request after D (Apple's round trip, e.g. 100ms: issue 37);
// -max-streams N advertises SETTINGS_MAX_CONCURRENT_STREAMS N per connection (Apple: about 500).
//
// Each connection is served by its own http2.Server, so "away" closes one connection only.
// GET /stats answers {"requests", "connections" (that carried a device request), "attempts"?};
// -track keeps attempts per token.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
)

var (
	requests    atomic.Int64
	connections atomic.Int64
	idCounter   atomic.Uint64
	trackMu     sync.Mutex
	attempts    = map[string]int{}
	track       bool
	bigHeader   = strings.Repeat("x", 40_000)
	delay       time.Duration
)

func apnsID() string {
	var b [16]byte
	n := idCounter.Add(1)
	for i := 0; i < 8; i++ {
		b[15-i] = byte(n >> (8 * i))
	}
	b[6] = 0x40
	b[8] = 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func stats(w http.ResponseWriter) {
	out := map[string]any{"requests": requests.Load(), "connections": connections.Load()}
	if track {
		trackMu.Lock()
		copied := make(map[string]int, len(attempts))
		for k, v := range attempts {
			copied[k] = v
		}
		trackMu.Unlock()
		out["attempts"] = copied
	}
	w.Header().Set("content-type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func handler(shutdown, seen, kill func()) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/stats" {
			stats(w)
			return
		}
		n, _ := io.Copy(io.Discard, r.Body)
		token, ok := strings.CutPrefix(r.URL.Path, "/3/device/")
		if r.Method != http.MethodPost || !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"reason":"BadPath"}`)
			return
		}
		requests.Add(1)
		seen()
		attempt := 1
		if track {
			trackMu.Lock()
			attempts[token]++
			attempt = attempts[token]
			trackMu.Unlock()
		}
		if strings.HasPrefix(token, "drop") && attempt == 1 {
			kill()
			return
		}
		id := r.Header.Get("apns-id")
		if id == "" {
			id = apnsID()
		}
		h := w.Header()
		h["apns-id"] = []string{id}
		switch {
		case strings.HasPrefix(token, "rst"):
			panic(http.ErrAbortHandler)
		case strings.HasPrefix(token, "bad"):
			h["content-type"] = []string{"application/json"}
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"reason":"BadDeviceToken"}`)
			return
		case strings.HasPrefix(token, "big"):
			h["x-pad"] = []string{bigHeader}
		case strings.HasPrefix(token, "away"):
			shutdown()
		case strings.HasPrefix(token, "slow"):
			time.Sleep(300 * time.Millisecond)
		}
		if delay > 0 {
			time.Sleep(delay)
		}
		if strings.HasPrefix(token, "len") {
			h["x-body-length"] = []string{strconv.FormatInt(n, 10)}
		}
		w.WriteHeader(http.StatusOK)
	}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	certFile := flag.String("cert", "", "server certificate (PEM)")
	keyFile := flag.String("key", "", "server key (PEM)")
	clientCA := flag.String("client-ca", "", "require client certificates signed by this CA (PEM)")
	maxStreams := flag.Uint("max-streams", 1000, "SETTINGS_MAX_CONCURRENT_STREAMS")
	window := flag.Int("window", 1<<20, "receive window per stream (SETTINGS_INITIAL_WINDOW_SIZE)")
	connWindow := flag.Int("conn-window", 1<<20, "receive window per connection")
	flag.DurationVar(&delay, "delay", 0, "answer each device request after this long (e.g. 100ms: Apple's round trip)")
	flag.BoolVar(&track, "track", false, "count attempts per token (tests; not for a million tokens)")
	flag.Parse()

	cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apns-sink:", err)
		os.Exit(2)
	}
	config := &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2"}}
	if *clientCA != "" {
		pem, err := os.ReadFile(*clientCA)
		if err != nil {
			fmt.Fprintln(os.Stderr, "apns-sink:", err)
			os.Exit(2)
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		config.ClientCAs = pool
		config.ClientAuth = tls.RequireAndVerifyClientCert
	}
	ln, err := tls.Listen("tcp", *addr, config)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apns-sink:", err)
		os.Exit(2)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	line, _ := json.Marshal(map[string]any{"url": fmt.Sprintf("https://127.0.0.1:%d", port), "port": port, "pid": os.Getpid()})
	fmt.Println(string(line))

	for {
		conn, err := ln.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, "apns-sink:", err)
			os.Exit(1)
		}
		go serve(conn.(*tls.Conn), uint32(*maxStreams), int32(*window), int32(*connWindow))
	}
}

func serve(conn *tls.Conn, maxStreams uint32, window, connWindow int32) {
	if err := conn.Handshake(); err != nil {
		conn.Close()
		return
	}
	hs := &http.Server{}
	h2 := &http2.Server{MaxConcurrentStreams: maxStreams, MaxUploadBufferPerStream: window, MaxUploadBufferPerConnection: connWindow}
	if err := http2.ConfigureServer(hs, h2); err != nil {
		conn.Close()
		return
	}
	var once sync.Once
	shutdown := func() {
		once.Do(func() {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = hs.Shutdown(ctx)
			}()
		})
	}
	// A connection counts once it carries a device request (not the tests' GET /stats).
	var counted sync.Once
	seen := func() { counted.Do(func() { connections.Add(1) }) }
	kill := func() { _ = conn.NetConn().Close() }
	h2.ServeConn(conn, &http2.ServeConnOpts{BaseConfig: hs, Handler: handler(shutdown, seen, kill)})
}
