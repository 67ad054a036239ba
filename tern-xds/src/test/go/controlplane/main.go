// Command tern-xds-controlplane is the xDS control plane tern-xds's integration tests run against:
// go-control-plane's snapshot cache and ADS server (state of the world), plus a small HTTP
// endpoint through which a test sets a node's snapshot and reads back what the client sent.
//
// It listens on 127.0.0.1 only. At start it prints one line per listener, "ads-port=N" and
// "http-port=N" (ports of 0 are asked of the OS), then serves until it is killed.
//
// With -tls-cert and -tls-key (PEM files) the ADS port speaks TLS, as a control plane reached
// through a bootstrap's "tls" channel_creds (gRFC A65) does; with -tls-client-ca as well it requires
// a client certificate signed by one of that file's certificates (mTLS), and refuses the handshake
// of a client without one or with another.
//
// HTTP endpoint:
//
//	POST /snapshot  {"node": ID, "version": V, "listeners": [...], "routes": [...],
//	                 "clusters": [...], "endpoints": [...]}
//	                each resource the protojson of envoy.config.listener.v3.Listener,
//	                envoy.config.route.v3.RouteConfiguration, envoy.config.cluster.v3.Cluster and
//	                envoy.config.endpoint.v3.ClusterLoadAssignment; replaces the node's snapshot
//	                and pushes it to the node's open streams.
//	GET  /requests  every DiscoveryRequest received so far, in order, as a JSON array of
//	                {"stream", "node", "type_url", "version_info", "response_nonce",
//	                 "resource_names", "error_detail"} (error_detail is "" for an ACK or a
//	                subscription, the NACK's message otherwise).
//	GET  /streams   {"opened": N, "open": M, "client_certificates": [CN, ...]}: ADS streams
//	                opened since start, open now, and the subject common name of the client
//	                certificate each stream came with, in order ("" for none, or without TLS).
//	POST /lrs, GET /loadreports: the LRS server's settings and the load reports received (lrs.go).
//
// A NACK is not answered with the same snapshot again: go-control-plane's cache would answer a
// request whose version differs from the snapshot's at once, so a client NACKing a bad snapshot
// would receive it again in a tight loop. The wrapper cache below treats a NACK as having seen the
// current version, so the next response comes with the next snapshot (as Istio and Envoy's own
// management servers behave).
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	aggregatev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/aggregate/v3"
	faultv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/fault/v3"
	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
	routerv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	cswrrv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/client_side_weighted_round_robin/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"github.com/envoyproxy/go-control-plane/pkg/cache/types"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	"github.com/envoyproxy/go-control-plane/pkg/log"
	"github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	serverv3 "github.com/envoyproxy/go-control-plane/pkg/server/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// The extension types a listener's or cluster's Any may hold; imported so protojson resolves them.
// HttpProtocolOptions is for Envoy as a consumer: its clusters speak HTTP/2 to gRPC backends.
var (
	_ = &hcmv3.HttpConnectionManager{}
	_ = &routerv3.Router{}
	_ = &aggregatev3.ClusterConfig{}
	_ = &faultv3.HTTPFault{}
	_ = &cswrrv3.ClientSideWeightedRoundRobin{}
	_ = &rbacv3.RBAC{}
	_ = &rbacv3.RBACPerRoute{}
	_ = &upstreamhttpv3.HttpProtocolOptions{}
	_ = &tlsv3.DownstreamTlsContext{} // A29: a filter chain's and a cluster's transport_socket
	_ = &tlsv3.UpstreamTlsContext{}
)

// nackAwareCache answers a NACK as if the client had the snapshot's version (see the package doc).
type nackAwareCache struct {
	cachev3.SnapshotCache
}

func (c nackAwareCache) CreateWatch(req *cachev3.Request, sub cachev3.Subscription, out chan cachev3.Response) (func(), error) {
	if req.GetErrorDetail() != nil {
		if snap, err := c.GetSnapshot(c.nodeID(req)); err == nil {
			seen := proto.Clone(req).(*discoveryv3.DiscoveryRequest)
			seen.VersionInfo = snap.GetVersion(req.GetTypeUrl())
			req = seen
		}
	}
	return c.SnapshotCache.CreateWatch(req, sub, out)
}

func (c nackAwareCache) nodeID(req *cachev3.Request) string {
	return cachev3.IDHash{}.ID(req.GetNode())
}

type recordedRequest struct {
	Stream        int64    `json:"stream"`
	Node          string   `json:"node"`
	TypeURL       string   `json:"type_url"`
	VersionInfo   string   `json:"version_info"`
	ResponseNonce string   `json:"response_nonce"`
	ResourceNames []string `json:"resource_names"`
	ErrorDetail   string   `json:"error_detail"`
}

type recorder struct {
	mu                 sync.Mutex
	requests           []recordedRequest
	nodes              map[int64]string
	opened             int
	open               int
	clientCertificates []string
}

// clientCertificate is the subject common name of the client certificate the stream's connection
// presented, or "" when there is none.
func clientCertificate(ctx context.Context) string {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return ""
	}
	info, ok := p.AuthInfo.(credentials.TLSInfo)
	if !ok || len(info.State.PeerCertificates) == 0 {
		return ""
	}
	return info.State.PeerCertificates[0].Subject.CommonName
}

func (r *recorder) callbacks() serverv3.CallbackFuncs {
	return serverv3.CallbackFuncs{
		StreamOpenFunc: func(ctx context.Context, _ int64, _ string) error {
			cn := clientCertificate(ctx)
			r.mu.Lock()
			defer r.mu.Unlock()
			r.opened++
			r.open++
			r.clientCertificates = append(r.clientCertificates, cn)
			return nil
		},
		StreamClosedFunc: func(int64, *corev3.Node) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.open--
		},
		StreamRequestFunc: func(stream int64, req *discoveryv3.DiscoveryRequest) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			// Only a stream's first request must carry the node; later ones may leave it out.
			node := req.GetNode().GetId()
			if node != "" {
				r.nodes[stream] = node
			} else {
				node = r.nodes[stream]
			}
			names := req.GetResourceNames()
			if names == nil {
				names = []string{}
			}
			r.requests = append(r.requests, recordedRequest{
				Stream:        stream,
				Node:          node,
				TypeURL:       req.GetTypeUrl(),
				VersionInfo:   req.GetVersionInfo(),
				ResponseNonce: req.GetResponseNonce(),
				ResourceNames: names,
				ErrorDetail:   req.GetErrorDetail().GetMessage(),
			})
			return nil
		},
	}
}

type snapshotBody struct {
	Node      string            `json:"node"`
	Version   string            `json:"version"`
	Listeners []json.RawMessage `json:"listeners"`
	Routes    []json.RawMessage `json:"routes"`
	Clusters  []json.RawMessage `json:"clusters"`
	Endpoints []json.RawMessage `json:"endpoints"`
}

func decodeAll(raw []json.RawMessage, newMessage func() proto.Message) ([]types.Resource, error) {
	out := make([]types.Resource, 0, len(raw))
	for i, r := range raw {
		m := newMessage()
		if err := protojson.Unmarshal(r, m); err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", m.ProtoReflect().Descriptor().FullName(), i, err)
		}
		out = append(out, m)
	}
	return out, nil
}

func setSnapshot(snapshots cachev3.SnapshotCache, body []byte) error {
	var b snapshotBody
	if err := json.Unmarshal(body, &b); err != nil {
		return err
	}
	if b.Node == "" || b.Version == "" {
		return fmt.Errorf("node and version are required")
	}
	resources := map[resource.Type][]types.Resource{}
	kinds := []struct {
		typeURL string
		raw     []json.RawMessage
		make    func() proto.Message
	}{
		{resource.ListenerType, b.Listeners, func() proto.Message { return &listenerv3.Listener{} }},
		{resource.RouteType, b.Routes, func() proto.Message { return &routev3.RouteConfiguration{} }},
		{resource.ClusterType, b.Clusters, func() proto.Message { return &clusterv3.Cluster{} }},
		{resource.EndpointType, b.Endpoints, func() proto.Message { return &endpointv3.ClusterLoadAssignment{} }},
	}
	for _, k := range kinds {
		decoded, err := decodeAll(k.raw, k.make)
		if err != nil {
			return err
		}
		resources[k.typeURL] = decoded
	}
	snapshot, err := cachev3.NewSnapshot(b.Version, resources)
	if err != nil {
		return err
	}
	return snapshots.SetSnapshot(context.Background(), b.Node, snapshot)
}

func listen(port int) net.Listener {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "listen:", err)
		os.Exit(1)
	}
	return l
}

// serverOptions is the ADS server's TLS, if the flags ask for it (see the package doc).
func serverOptions(cert, key, clientCA string) ([]grpc.ServerOption, error) {
	if cert == "" && key == "" && clientCA == "" {
		return nil, nil
	}
	if cert == "" || key == "" {
		return nil, fmt.Errorf("-tls-cert and -tls-key must be given together")
	}
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		return nil, err
	}
	config := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	if clientCA != "" {
		pem, err := os.ReadFile(clientCA)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("-tls-client-ca %s: no PEM certificate", clientCA)
		}
		config.ClientCAs = pool
		config.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return []grpc.ServerOption{grpc.Creds(credentials.NewTLS(config))}, nil
}

func main() {
	adsPort := flag.Int("ads-port", 0, "port of the ADS server on 127.0.0.1 (0: one the OS picks)")
	httpPort := flag.Int("http-port", 0, "port of the HTTP control endpoint on 127.0.0.1 (0: one the OS picks)")
	tlsCert := flag.String("tls-cert", "", "PEM certificate chain of the ADS server (with -tls-key: TLS)")
	tlsKey := flag.String("tls-key", "", "PEM private key of -tls-cert")
	tlsClientCA := flag.String("tls-client-ca", "", "PEM roots of the client certificates the ADS server requires (mTLS)")
	flag.Parse()
	options, err := serverOptions(*tlsCert, *tlsKey, *tlsClientCA)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tls:", err)
		os.Exit(2)
	}

	quiet := log.LoggerFuncs{
		WarnFunc:  func(f string, a ...interface{}) { fmt.Fprintf(os.Stderr, "warn: "+f+"\n", a...) },
		ErrorFunc: func(f string, a ...interface{}) { fmt.Fprintf(os.Stderr, "error: "+f+"\n", a...) },
	}
	snapshots := cachev3.NewSnapshotCache(false, cachev3.IDHash{}, quiet)
	rec := &recorder{nodes: map[int64]string{}, requests: []recordedRequest{}, clientCertificates: []string{}}
	xds := serverv3.NewServer(context.Background(), nackAwareCache{snapshots}, rec.callbacks())

	adsListener := listen(*adsPort)
	httpListener := listen(*httpPort)

	grpcServer := grpc.NewServer(options...)
	discoveryv3.RegisterAggregatedDiscoveryServiceServer(grpcServer, xds)

	mux := http.NewServeMux()
	newLrsServer().register(grpcServer, mux) // LRS: see lrs.go
	mux.HandleFunc("POST /snapshot", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err == nil {
			err = setSnapshot(snapshots, body)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /requests", func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		out, err := json.Marshal(rec.requests)
		rec.mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	})
	mux.HandleFunc("GET /streams", func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		out, _ := json.Marshal(map[string]any{
			"opened": rec.opened, "open": rec.open, "client_certificates": rec.clientCertificates,
		})
		rec.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	})

	go func() {
		if err := http.Serve(httpListener, mux); err != nil {
			fmt.Fprintln(os.Stderr, "http:", err)
			os.Exit(1)
		}
	}()
	fmt.Printf("ads-port=%d\n", adsListener.Addr().(*net.TCPAddr).Port)
	fmt.Printf("http-port=%d\n", httpListener.Addr().(*net.TCPAddr).Port)
	os.Stdout.Sync()
	if err := grpcServer.Serve(adsListener); err != nil {
		fmt.Fprintln(os.Stderr, "ads:", err)
		os.Exit(1)
	}
}
