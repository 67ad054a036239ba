// Command tern-zstd-peer is a gRPC peer that speaks zstd the way grpc-go users add it: the "zstd"
// encoding registered in grpc-go's encoding registry, backed by github.com/klauspost/compress/zstd.
// tern-zstd's GoZstdPeerTest runs it against Tern both ways.
//
//	tern-zstd-peer server
//	    serves /tern.testing.Echo/Unary on a free port of 127.0.0.1, printing
//	    "listening on 127.0.0.1:PORT"; each reply echoes the request, compressed as the request
//	    was, with the response header "peer-received-encoding" naming the request's grpc-encoding.
//	tern-zstd-peer client TARGET SIZE
//	    calls TARGET's /tern.testing.Echo/Unary once with SIZE bytes of text, compressed with zstd,
//	    and prints "response-encoding: E" (the reply's grpc-encoding) and "echo: ok"; on failure it
//	    prints "error: ..." and exits with status 1.
//
// Messages are raw bytes (the echo service's marshaller is UTF-8 text), so no generated code.
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/zstd"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
)

const method = "/tern.testing.Echo/Unary"

// zstdCompressor is grpc-go's encoding.Compressor for "zstd".
type zstdCompressor struct{}

func (zstdCompressor) Name() string { return "zstd" }

func (zstdCompressor) Compress(w io.Writer) (io.WriteCloser, error) {
	return zstd.NewWriter(w)
}

func (zstdCompressor) Decompress(r io.Reader) (io.Reader, error) {
	decoder, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer decoder.Close()
	data, err := io.ReadAll(decoder)
	if err != nil {
		return nil, err
	}
	return bytes.NewReader(data), nil
}

// rawCodec passes messages through as bytes, under the name grpc-go uses for protobuf.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) ([]byte, error) { return *(v.(*[]byte)), nil }

func (rawCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}

// encodingSeen records the grpc-encoding of the headers a call received.
type encodingSeen struct{ value atomic.Value }

type encodingKey struct{}

// encodingRecorder is a stats.Handler that records each call's received grpc-encoding.
type encodingRecorder struct{}

func (encodingRecorder) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context {
	if _, ok := ctx.Value(encodingKey{}).(*encodingSeen); ok {
		return ctx // the client's call brought its own
	}
	return context.WithValue(ctx, encodingKey{}, &encodingSeen{})
}

func (encodingRecorder) HandleRPC(ctx context.Context, s stats.RPCStats) {
	if header, ok := s.(*stats.InHeader); ok {
		if seen, ok := ctx.Value(encodingKey{}).(*encodingSeen); ok {
			seen.value.Store(header.Compression)
		}
	}
}

func (encodingRecorder) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return ctx
}

func (encodingRecorder) HandleConn(context.Context, stats.ConnStats) {}

func received(ctx context.Context) string {
	if seen, ok := ctx.Value(encodingKey{}).(*encodingSeen); ok {
		if value, ok := seen.value.Load().(string); ok && value != "" {
			return value
		}
	}
	return "identity"
}

func echo(_ any, ctx context.Context, decode func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
	var request []byte
	if err := decode(&request); err != nil {
		return nil, err
	}
	if err := grpc.SetHeader(ctx, metadata.Pairs("peer-received-encoding", received(ctx))); err != nil {
		return nil, err
	}
	return &request, nil
}

func serve() error {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	server := grpc.NewServer(grpc.StatsHandler(encodingRecorder{}))
	server.RegisterService(&grpc.ServiceDesc{
		ServiceName: "tern.testing.Echo",
		HandlerType: (*any)(nil),
		Methods:     []grpc.MethodDesc{{MethodName: "Unary", Handler: echo}},
	}, struct{}{})
	fmt.Printf("listening on %s\n", listener.Addr())
	return server.Serve(listener)
}

func call(target string, size int) error {
	conn, err := grpc.NewClient(target,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithStatsHandler(encodingRecorder{}))
	if err != nil {
		return err
	}
	defer conn.Close()
	request := make([]byte, 0, size)
	for line := 0; len(request) < size; line++ {
		request = fmt.Appendf(request, "message %d: the quick brown fox, %d\n", line, line*31)
	}
	request = request[:size]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ctx = context.WithValue(ctx, encodingKey{}, &encodingSeen{})
	var reply []byte
	err = conn.Invoke(ctx, method, &request, &reply, grpc.UseCompressor("zstd"))
	if err != nil {
		return err
	}
	fmt.Printf("response-encoding: %s\n", received(ctx))
	if !bytes.Equal(reply, request) {
		return fmt.Errorf("echo differs: %d bytes back for %d sent", len(reply), len(request))
	}
	fmt.Println("echo: ok")
	return nil
}

func main() {
	encoding.RegisterCompressor(zstdCompressor{})
	encoding.RegisterCodec(rawCodec{})
	var err error
	switch {
	case len(os.Args) == 2 && os.Args[1] == "server":
		err = serve()
	case len(os.Args) == 4 && os.Args[1] == "client":
		size, convErr := strconv.Atoi(os.Args[3])
		if convErr != nil || size < 0 {
			err = fmt.Errorf("SIZE must be a byte count, got %q", os.Args[3])
		} else {
			err = call(os.Args[2], size)
		}
	default:
		err = fmt.Errorf("usage: tern-zstd-peer server | tern-zstd-peer client TARGET SIZE")
	}
	if err != nil {
		fmt.Printf("error: %v\n", err)
		os.Exit(1)
	}
}
