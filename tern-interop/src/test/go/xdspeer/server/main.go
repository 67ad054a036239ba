// Command grpc-go185-xds-server is an xDS-enabled grpc.testing.TestService server on grpc-go
// v1.85.0, our own, for the mesh tests of tern-interop (XdsMutualTlsInteropTest). It takes the
// flags those tests give grpc-go's v1.64.1 xDS interop server:
//
//	--port               the TestService's port; an xDS-enabled server (xds.NewGRPCServer) on
//	                     127.0.0.1, so its Listener resource is named from 127.0.0.1:PORT and it
//	                     serves only once the control plane has sent that Listener
//	--maintenance_port   a plain server on 127.0.0.1 with the health and admin (CSDS, channelz)
//	                     services
//	--secure_mode        the TestService's TLS comes from the Listener's DownstreamTlsContext (xDS
//	                     server credentials, plaintext when the filter chain has none)
//	--host_name_override the hostname UnaryCall and EmptyCall answer with (default: the machine's)
//
// GRPC_XDS_BOOTSTRAP names the bootstrap; GRPC_EXPERIMENTAL_XDS_MTLS_SPIFFE=true lets a
// file_watcher's spiffe_trust_bundle_map_file be the roots (A87). Serving-mode changes are logged
// on stderr: "now serving 127.0.0.1:PORT" once the Listener has come, "not serving ..." with the
// reason. SIGTERM or SIGINT stops both servers.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/admin"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	xdscreds "google.golang.org/grpc/credentials/xds"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/xds"
)

var (
	port            = flag.Int("port", 8080, "port of the xDS-enabled TestService server on 127.0.0.1")
	maintenancePort = flag.Int("maintenance_port", 8081, "port of the plaintext health and admin server on 127.0.0.1")
	secureMode      = flag.Bool("secure_mode", false, "take the TestService's TLS from the control plane")
	hostNameFlag    = flag.String("host_name_override", "", "hostname the responses carry (default: the machine's)")
)

// testService answers EmptyCall and UnaryCall with its hostname, in the "hostname" response header
// and, for UnaryCall, in the response. It holds no mutable state.
type testService struct {
	testpb.UnimplementedTestServiceServer
	hostname string
}

func (s testService) EmptyCall(ctx context.Context, _ *testpb.Empty) (*testpb.Empty, error) {
	if err := grpc.SetHeader(ctx, metadata.Pairs("hostname", s.hostname)); err != nil {
		return nil, err
	}
	return &testpb.Empty{}, nil
}

func (s testService) UnaryCall(ctx context.Context, request *testpb.SimpleRequest) (*testpb.SimpleResponse, error) {
	if err := grpc.SetHeader(ctx, metadata.Pairs("hostname", s.hostname)); err != nil {
		return nil, err
	}
	response := &testpb.SimpleResponse{Hostname: s.hostname}
	if request.GetFillServerId() {
		response.ServerId = s.hostname
	}
	if size := request.GetResponseSize(); size > 0 {
		response.Payload = &testpb.Payload{Body: make([]byte, size)}
	}
	return response, nil
}

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "grpc-go185-xds-server:", err)
		os.Exit(1)
	}
}

func run() error {
	if *port == *maintenancePort {
		return fmt.Errorf("--port and --maintenance_port must differ (both %d)", *port)
	}
	hostname := *hostNameFlag
	if hostname == "" {
		var err error
		if hostname, err = os.Hostname(); err != nil {
			return fmt.Errorf("no --host_name_override and no host name: %v", err)
		}
	}

	var creds credentials.TransportCredentials = insecure.NewCredentials()
	if *secureMode {
		var err error
		creds, err = xdscreds.NewServerCredentials(xdscreds.ServerOptions{FallbackCreds: insecure.NewCredentials()})
		if err != nil {
			return err
		}
	}
	server, err := xds.NewGRPCServer(grpc.Creds(creds), xds.ServingModeCallback(
		func(addr net.Addr, args xds.ServingModeChangeArgs) {
			if args.Mode == connectivity.ServingModeServing {
				log.Printf("now serving %s", addr)
			} else {
				log.Printf("not serving %s: %v", addr, args.Err)
			}
		}))
	if err != nil {
		return err
	}
	testpb.RegisterTestServiceServer(server, testService{hostname: hostname})

	maintenance := grpc.NewServer()
	healthServer := health.NewServer()
	healthServer.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(maintenance, healthServer)
	cleanup, err := admin.Register(maintenance)
	if err != nil {
		return err
	}
	defer cleanup()

	listener, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		return err
	}
	maintenanceListener, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", *maintenancePort))
	if err != nil {
		listener.Close()
		return err
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-signals
		server.Stop()
		maintenance.Stop()
	}()
	go func() {
		if err := maintenance.Serve(maintenanceListener); err != nil {
			log.Printf("maintenance server: %v", err)
		}
	}()
	log.Printf("TestService on %s (secure_mode=%v), maintenance on %s", listener.Addr(), *secureMode, maintenanceListener.Addr())
	return server.Serve(listener)
}
