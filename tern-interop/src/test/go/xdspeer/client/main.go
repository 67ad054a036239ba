// Command grpc-go185-xds-client is an xDS client of grpc.testing.TestService on grpc-go v1.85.0,
// our own, for the mesh tests of tern-interop (XdsMutualTlsInteropTest). It takes the flags those
// tests give grpc-go's v1.64.1 xDS interop client:
//
//	--server          the channels' target, e.g. xds:///svc (the xDS resolver is registered)
//	--stats_port      a plain server on 127.0.0.1 with the LoadBalancerStatsService
//	                  (GetClientStats) and the admin services (CSDS, channelz)
//	--qps             RPCs started per second (each --rpc kind once per tick), round robin over
//	--num_channels    channels to --server
//	--rpc             the RPCs sent, comma-separated: UnaryCall, EmptyCall
//	--secure_mode     TLS from the control plane (xDS client credentials, plaintext when the
//	                  cluster has none)
//	--print_response  prints each RPC's result on stdout: "UnaryCall: ok, from HOSTNAME" or
//	                  "UnaryCall: " and the error
//	--rpc_timeout     each RPC's deadline
//
// GRPC_XDS_BOOTSTRAP names the bootstrap; GRPC_EXPERIMENTAL_XDS_MTLS_SPIFFE=true lets a
// file_watcher's spiffe_trust_bundle_map_file be the roots (A87). SIGTERM or SIGINT stops it.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/admin"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	xdscreds "google.golang.org/grpc/credentials/xds"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	_ "google.golang.org/grpc/xds" // the xds:/// resolver and the xDS balancers
)

var (
	server        = flag.String("server", "localhost:8080", "target of the channels, e.g. xds:///svc")
	statsPort     = flag.Int("stats_port", 8081, "port of the stats and admin server on 127.0.0.1")
	qps           = flag.Int("qps", 1, "RPCs started per second, of each --rpc kind")
	numChannels   = flag.Int("num_channels", 1, "channels to --server, used round robin")
	rpcKinds      = flag.String("rpc", "UnaryCall", "the RPCs sent, comma-separated: UnaryCall, EmptyCall")
	secureMode    = flag.Bool("secure_mode", false, "take TLS from the control plane")
	printResponse = flag.Bool("print_response", false, "print each RPC's result on stdout")
	rpcTimeout    = flag.Duration("rpc_timeout", 20*time.Second, "deadline of each RPC")
)

// printer serialises the printed results of concurrent RPCs.
var printer = log.New(os.Stdout, "", 0)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "grpc-go185-xds-client:", err)
		os.Exit(1)
	}
}

func run() error {
	kinds := strings.Split(*rpcKinds, ",")
	for _, kind := range kinds {
		if kind != "UnaryCall" && kind != "EmptyCall" {
			return fmt.Errorf("--rpc: %q is neither UnaryCall nor EmptyCall", kind)
		}
	}
	if *qps <= 0 || *numChannels <= 0 || *rpcTimeout <= 0 {
		return fmt.Errorf("--qps (%d), --num_channels (%d) and --rpc_timeout (%v) must be positive", *qps, *numChannels, *rpcTimeout)
	}
	var creds credentials.TransportCredentials = insecure.NewCredentials()
	if *secureMode {
		var err error
		creds, err = xdscreds.NewClientCredentials(xdscreds.ClientOptions{FallbackCreds: insecure.NewCredentials()})
		if err != nil {
			return err
		}
	}
	var clients []testpb.TestServiceClient
	for range *numChannels {
		conn, err := grpc.NewClient(*server, grpc.WithTransportCredentials(creds))
		if err != nil {
			return fmt.Errorf("--server %q: %v", *server, err)
		}
		defer conn.Close()
		clients = append(clients, testpb.NewTestServiceClient(conn))
	}

	stats := newRPCStats()
	statsServer := grpc.NewServer()
	testpb.RegisterLoadBalancerStatsServiceServer(statsServer, stats)
	cleanup, err := admin.Register(statsServer)
	if err != nil {
		return err
	}
	defer cleanup()
	listener, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", *statsPort))
	if err != nil {
		return err
	}
	go func() {
		if err := statsServer.Serve(listener); err != nil {
			log.Printf("stats server: %v", err)
		}
	}()
	defer statsServer.Stop()

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	ticker := time.NewTicker(time.Second / time.Duration(*qps))
	defer ticker.Stop()
	for tick := 0; ; tick++ {
		select {
		case <-ticker.C:
		case <-signals:
			return nil
		}
		client := clients[tick%len(clients)]
		for _, kind := range kinds {
			claimed := stats.started()
			go func() {
				ok, peer := call(client, kind)
				stats.finished(claimed, ok, peer)
			}()
		}
	}
}

// call makes one RPC of kind; returns whether it succeeded and the hostname that answered (the
// response's for UnaryCall, else the "hostname" response header).
func call(client testpb.TestServiceClient, kind string) (bool, string) {
	ctx, cancel := context.WithTimeout(context.Background(), *rpcTimeout)
	defer cancel()
	var header metadata.MD
	var peer string
	var err error
	if kind == "UnaryCall" {
		var response *testpb.SimpleResponse
		response, err = client.UnaryCall(ctx, &testpb.SimpleRequest{FillServerId: true}, grpc.Header(&header))
		peer = response.GetHostname()
	} else {
		_, err = client.EmptyCall(ctx, &testpb.Empty{}, grpc.Header(&header))
	}
	if err != nil {
		if *printResponse {
			printer.Printf("%s: %v", kind, err)
		}
		return false, ""
	}
	if values := header.Get("hostname"); peer == "" && len(values) > 0 {
		peer = values[0]
	}
	if *printResponse {
		printer.Printf("%s: ok, from %s", kind, peer)
	}
	return true, peer
}
