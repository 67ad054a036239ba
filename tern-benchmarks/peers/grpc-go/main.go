// Command grpc-go-bench-server serves grpc-go's own benchmark service (the qps
// benchmark's grpc.testing.BenchmarkService, UnaryCall and StreamingCall, from
// google.golang.org/grpc/benchmark) on one loopback address, for bin/bench-compare's
// server-only part. The server options are the ones grpc-go's own benchmark server
// and qps worker pass (128 KiB read and write buffers); everything else is
// grpc-go's default. It prints one line once it listens and runs until SIGTERM or
// SIGINT.
//
//	grpc-go-bench-server --address=127.0.0.1:PORT
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/benchmark"
)

// The buffer size grpc-go's benchmark server (benchmark/server) and qps worker
// (benchmark/worker) give their servers.
const bufferSize = 128 * 1024

func main() {
	address := flag.String("address", "127.0.0.1:0", "host:port to listen on (port 0: one the system picks)")
	flag.Parse()
	listener, err := net.Listen("tcp", *address)
	if err != nil {
		fmt.Fprintf(os.Stderr, "grpc-go-bench-server: cannot listen on %s: %v\n", *address, err)
		os.Exit(1)
	}
	stop := benchmark.StartServer(
		benchmark.ServerInfo{Type: "protobuf", Listener: listener},
		grpc.WriteBufferSize(bufferSize),
		grpc.ReadBufferSize(bufferSize),
	)
	fmt.Printf("grpc-go benchmark server listening on %s\n", listener.Addr())
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	<-signals
	stop()
}
