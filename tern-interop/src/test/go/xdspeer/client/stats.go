package main

import (
	"context"
	"maps"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"
)

// rpcStats is the LoadBalancerStatsService: each GetClientStats request watches the next num_rpcs
// RPCs that start after it and answers once they have all finished or its timeout_sec has passed.
// Safe for concurrent use: mu guards watchers and every watcher's counts; nothing blocks while
// holding it.
type rpcStats struct {
	testpb.UnimplementedLoadBalancerStatsServiceServer
	mu       sync.Mutex
	watchers map[*watcher]struct{}
}

// watcher is one GetClientStats request's count.
type watcher struct {
	unclaimed int32            // RPCs it still takes as they start
	pending   int32            // RPCs taken and not finished
	byPeer    map[string]int32 // finished successfully, by the hostname that answered
	done      chan struct{}    // closed once nothing is unclaimed or pending
}

func newRPCStats() *rpcStats {
	return &rpcStats{watchers: map[*watcher]struct{}{}}
}

// started is called as an RPC starts; the watchers that take it are returned, for finished.
func (s *rpcStats) started() []*watcher {
	s.mu.Lock()
	defer s.mu.Unlock()
	var claimed []*watcher
	for w := range s.watchers {
		if w.unclaimed > 0 {
			w.unclaimed--
			w.pending++
			claimed = append(claimed, w)
		}
	}
	return claimed
}

// finished records an RPC's result with the watchers that took it: ok, answered by peer, or failed.
func (s *rpcStats) finished(claimed []*watcher, ok bool, peer string) {
	if len(claimed) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range claimed {
		if ok {
			w.byPeer[peer]++
		}
		w.pending--
		if w.pending == 0 && w.unclaimed == 0 {
			close(w.done)
		}
	}
}

// GetClientStats counts the next num_rpcs RPCs; those that failed, and those not started or not
// finished within timeout_sec, are num_failures.
func (s *rpcStats) GetClientStats(ctx context.Context, request *testpb.LoadBalancerStatsRequest) (*testpb.LoadBalancerStatsResponse, error) {
	wanted := request.GetNumRpcs()
	if wanted <= 0 {
		return nil, status.Errorf(codes.InvalidArgument, "num_rpcs must be positive, was %d", wanted)
	}
	w := &watcher{unclaimed: wanted, byPeer: map[string]int32{}, done: make(chan struct{})}
	s.mu.Lock()
	s.watchers[w] = struct{}{}
	s.mu.Unlock()
	timer := time.NewTimer(time.Duration(request.GetTimeoutSec()) * time.Second)
	defer timer.Stop()
	var err error
	select {
	case <-w.done:
	case <-timer.C:
	case <-ctx.Done():
		err = status.FromContextError(ctx.Err()).Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.watchers, w)
	if err != nil {
		return nil, err
	}
	answered := int32(0)
	for _, count := range w.byPeer {
		answered += count
	}
	return &testpb.LoadBalancerStatsResponse{RpcsByPeer: maps.Clone(w.byPeer), NumFailures: wanted - answered}, nil
}
