package main

// The control plane's LRS server (envoy.service.load_stats.v3.LoadReportingService, gRFC A27):
// it answers each stream's first request with the clusters and interval the test set, and records
// every request's cluster_stats for the test to read.
//
// HTTP endpoint (see main.go):
//
//	POST /lrs          {"interval": "0.2s", "send_all_clusters": true, "clusters": [...],
//	                    "fail_streams": N}: how the next streams are answered (the defaults are
//	                    1s and send_all_clusters); the next N streams are ended with UNAVAILABLE
//	                    after their first request, unanswered.
//	GET  /loadreports  {"streams": S, "failed": F, "reports": [{"stream": N, "node": ID,
//	                    "cluster_stats": [...]}]}: LRS streams opened, streams failed on
//	                    purpose, and every request received, each ClusterStats as protojson.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	lrsv3 "github.com/envoyproxy/go-control-plane/envoy/service/load_stats/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/durationpb"
)

type lrsSettings struct {
	Interval        string   `json:"interval"`
	SendAllClusters bool     `json:"send_all_clusters"`
	Clusters        []string `json:"clusters"`
	FailStreams     int      `json:"fail_streams"`
}

type lrsReport struct {
	Stream       int               `json:"stream"`
	Node         string            `json:"node"`
	ClusterStats []json.RawMessage `json:"cluster_stats"`
}

type lrsServer struct {
	lrsv3.UnimplementedLoadReportingServiceServer
	mu       sync.Mutex
	settings lrsSettings
	interval time.Duration
	streams  int
	failed   int
	reports  []lrsReport
}

func newLrsServer() *lrsServer {
	return &lrsServer{
		settings: lrsSettings{SendAllClusters: true},
		interval: time.Second,
		reports:  []lrsReport{},
	}
}

func (s *lrsServer) StreamLoadStats(stream lrsv3.LoadReportingService_StreamLoadStatsServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.streams++
	id := s.streams
	node := first.GetNode().GetId()
	fail := s.settings.FailStreams > 0
	if fail {
		s.settings.FailStreams--
		s.failed++
	}
	response := &lrsv3.LoadStatsResponse{
		Clusters:              s.settings.Clusters,
		SendAllClusters:       s.settings.SendAllClusters,
		LoadReportingInterval: durationpb.New(s.interval),
	}
	s.record(id, node, first)
	s.mu.Unlock()
	if fail {
		return status.Error(codes.Unavailable, "LRS stream failed on purpose")
	}
	if err := stream.Send(response); err != nil {
		return err
	}
	for {
		req, err := stream.Recv()
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.record(id, node, req)
		s.mu.Unlock()
	}
}

// record keeps one request; s.mu is held.
func (s *lrsServer) record(stream int, node string, req *lrsv3.LoadStatsRequest) {
	stats := make([]json.RawMessage, 0, len(req.GetClusterStats()))
	for _, c := range req.GetClusterStats() {
		stats = append(stats, clusterStatsJSON(c))
	}
	s.reports = append(s.reports, lrsReport{Stream: stream, Node: node, ClusterStats: stats})
}

func clusterStatsJSON(c *endpointv3.ClusterStats) json.RawMessage {
	out, err := protojson.Marshal(c)
	if err != nil {
		out, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	return out
}

func (s *lrsServer) register(grpcServer *grpc.Server, mux *http.ServeMux) {
	lrsv3.RegisterLoadReportingServiceServer(grpcServer, s)
	mux.HandleFunc("POST /lrs", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		var next lrsSettings
		if err == nil {
			err = json.Unmarshal(body, &next)
		}
		interval := time.Second
		if err == nil && next.Interval != "" {
			interval, err = time.ParseDuration(next.Interval)
			if err == nil && interval <= 0 {
				err = fmt.Errorf("interval must be positive")
			}
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.settings = next
		s.interval = interval
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /loadreports", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		out, err := json.Marshal(map[string]any{"streams": s.streams, "failed": s.failed, "reports": s.reports})
		s.mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	})
}
