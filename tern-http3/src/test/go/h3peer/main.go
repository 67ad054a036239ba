// Command tern-h3-peer is a gRPC peer over HTTP/3 that shares nothing with Tern: connect-go
// (connectrpc.com/connect) speaking the gRPC protocol, over quic-go's HTTP/3 client and server
// (github.com/quic-go/quic-go/http3), with the grpc.testing messages of grpc-go's interop package.
// tern-interop's Http3GoPeerInteropTest runs it against Tern both ways.
//
//	tern-h3-peer client --addr=127.0.0.1:PORT --ca=CA.pem --server_host_override=NAME --cases=a,b
//	    runs each named interop case against the grpc.testing.TestService at ADDR over HTTP/3,
//	    printing "PASS case" or "FAIL case: why" per case; exits with status 1 if any failed.
//	tern-h3-peer server --cert=CERT.pem --key=KEY.pem [--port=N]
//	    serves grpc.testing.TestService over HTTP/3 on UDP port N of 127.0.0.1 (default 0: a free
//	    one the OS picks), printing
//	    "LISTENING PORT" once it is bound; on SIGTERM shuts down gracefully (GOAWAY, then waits
//	    for the calls under way and for clients to close), printing "SHUTTING DOWN", then
//	    "SHUT DOWN".
//
// Cases and handlers follow gRPC's interop test descriptions (grpc/grpc doc/interop-test-descriptions.md).
package main

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "client":
		err = runClientCommand(os.Args[2:])
	case "server":
		err = runServerCommand(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: tern-h3-peer client --addr=HOST:PORT --ca=FILE "+
		"[--server_host_override=NAME] --cases=a,b | server --cert=FILE --key=FILE [--port=N]")
	os.Exit(2)
}

func runClientCommand(args []string) error {
	flags := flag.NewFlagSet("client", flag.ContinueOnError)
	addr := flags.String("addr", "", "the server's host:port (UDP)")
	ca := flags.String("ca", "", "PEM file of the CA the server's certificate must chain to")
	hostOverride := flags.String("server_host_override", "", "the name checked in the server's certificate")
	cases := flags.String("cases", "", "comma-separated interop case names")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *addr == "" || *ca == "" || *cases == "" {
		return fmt.Errorf("--addr, --ca and --cases are required")
	}
	pem, err := os.ReadFile(*ca)
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return fmt.Errorf("no certificate in %s", *ca)
	}
	tlsConfig := &tls.Config{RootCAs: roots, ServerName: *hostOverride, MinVersion: tls.VersionTLS13}
	if failed := runClient(*addr, tlsConfig, strings.Split(*cases, ","), os.Stdout); failed > 0 {
		os.Exit(1)
	}
	return nil
}

func runServerCommand(args []string) error {
	flags := flag.NewFlagSet("server", flag.ContinueOnError)
	certFile := flags.String("cert", "", "PEM certificate chain of the server")
	keyFile := flags.String("key", "", "PEM private key of the server")
	port := flags.Int("port", 0, "UDP port on 127.0.0.1 (0: a free one the OS picks)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *certFile == "" || *keyFile == "" {
		return fmt.Errorf("--cert and --key are required")
	}
	if *port < 0 || *port > 65535 {
		return fmt.Errorf("--port must be 0 to 65535, not %d", *port)
	}
	cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
	if err != nil {
		return err
	}
	return runServer(*port, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13})
}
