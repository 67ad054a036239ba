package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"connectrpc.com/connect"
	"github.com/quic-go/quic-go/http3"
	testpb "google.golang.org/grpc/interop/grpc_testing"
)

const (
	echoInitial      = "x-grpc-test-echo-initial"
	echoTrailing     = "x-grpc-test-echo-trailing-bin"
	initialValue     = "test_initial_metadata_value"
	statusMessage    = "test status message"
	specialMessage   = "\t\ntest with whitespace\r\nand Unicode BMP ☺ and non-BMP 😈\t\n"
	callTimeout      = 20 * time.Second
	largeRequestSize = 271828
	largeReplySize   = 314159
)

var trailingValue = []byte{0xab, 0xab, 0xab}

// testClients are connect-go clients of grpc.testing.TestService's methods, all speaking the gRPC
// protocol over one quic-go HTTP/3 transport.
type testClients struct {
	empty         *connect.Client[testpb.Empty, testpb.Empty]
	unary         *connect.Client[testpb.SimpleRequest, testpb.SimpleResponse]
	gzipUnary     *connect.Client[testpb.SimpleRequest, testpb.SimpleResponse]
	input         *connect.Client[testpb.StreamingInputCallRequest, testpb.StreamingInputCallResponse]
	output        *connect.Client[testpb.StreamingOutputCallRequest, testpb.StreamingOutputCallResponse]
	duplex        *connect.Client[testpb.StreamingOutputCallRequest, testpb.StreamingOutputCallResponse]
	unimplemented *connect.Client[testpb.Empty, testpb.Empty]
	otherService  *connect.Client[testpb.Empty, testpb.Empty]
}

// runClient runs each case against addr, printing PASS or FAIL lines; it returns how many failed.
func runClient(addr string, tlsConfig *tls.Config, cases []string, out io.Writer) int {
	transport := &http3.Transport{TLSClientConfig: tlsConfig}
	defer transport.Close()
	httpClient := &http.Client{Transport: recordingTransport{transport}}
	base := "https://" + addr + service
	c := testClients{
		empty:         connect.NewClient[testpb.Empty, testpb.Empty](httpClient, base+"EmptyCall", connect.WithGRPC()),
		unary:         connect.NewClient[testpb.SimpleRequest, testpb.SimpleResponse](httpClient, base+"UnaryCall", connect.WithGRPC()),
		gzipUnary:     connect.NewClient[testpb.SimpleRequest, testpb.SimpleResponse](httpClient, base+"UnaryCall", connect.WithGRPC(), connect.WithSendGzip()),
		input:         connect.NewClient[testpb.StreamingInputCallRequest, testpb.StreamingInputCallResponse](httpClient, base+"StreamingInputCall", connect.WithGRPC()),
		output:        connect.NewClient[testpb.StreamingOutputCallRequest, testpb.StreamingOutputCallResponse](httpClient, base+"StreamingOutputCall", connect.WithGRPC()),
		duplex:        connect.NewClient[testpb.StreamingOutputCallRequest, testpb.StreamingOutputCallResponse](httpClient, base+"FullDuplexCall", connect.WithGRPC()),
		unimplemented: connect.NewClient[testpb.Empty, testpb.Empty](httpClient, base+"UnimplementedCall", connect.WithGRPC()),
		otherService: connect.NewClient[testpb.Empty, testpb.Empty](
			httpClient, "https://"+addr+"/grpc.testing.UnimplementedService/UnimplementedCall", connect.WithGRPC()),
	}
	failed := 0
	for _, name := range cases {
		run, ok := c.cases()[name]
		var err error
		if !ok {
			err = errors.New("unknown case")
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			err = run(ctx)
			cancel()
		}
		if err != nil {
			failed++
			fmt.Fprintf(out, "FAIL %s: %v\n", name, err)
		} else {
			fmt.Fprintf(out, "PASS %s\n", name)
		}
	}
	return failed
}

func (c testClients) cases() map[string]func(context.Context) error {
	return map[string]func(context.Context) error{
		"empty_unary":                 c.emptyUnary,
		"large_unary":                 c.largeUnary,
		"client_streaming":            c.clientStreaming,
		"server_streaming":            c.serverStreaming,
		"ping_pong":                   c.pingPong,
		"empty_stream":                c.emptyStream,
		"custom_metadata":             c.customMetadata,
		"status_code_and_message":     func(ctx context.Context) error { return c.statusCodeAndMessage(ctx, statusMessage) },
		"special_status_message":      func(ctx context.Context) error { return c.statusCodeAndMessage(ctx, specialMessage) },
		"unimplemented_method":        func(ctx context.Context) error { return expectUnimplemented(ctx, c.unimplemented) },
		"unimplemented_service":       func(ctx context.Context) error { return expectUnimplemented(ctx, c.otherService) },
		"timeout_on_sleeping_server":  c.timeoutOnSleepingServer,
		"cancel_after_begin":          c.cancelAfterBegin,
		"cancel_after_first_response": c.cancelAfterFirstResponse,
		"very_large_request":          c.veryLargeRequest,
		"client_compressed_unary":     c.clientCompressedUnary,
		"server_compressed_unary":     c.serverCompressedUnary,
		"server_compressed_streaming": c.serverCompressedStreaming,
	}
}
