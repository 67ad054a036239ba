package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"connectrpc.com/connect"
	"github.com/quic-go/quic-go/http3"
	testpb "google.golang.org/grpc/interop/grpc_testing"
)

const service = "/grpc.testing.TestService/"

// runServer serves grpc.testing.TestService over HTTP/3 on UDP port port of 127.0.0.1 (0: a free
// one the OS picks) until
// SIGTERM, which shuts it down gracefully: quic-go's GOAWAY, then the calls under way finish
// (printing "SHUTTING DOWN", then "SHUT DOWN" once they have). connect-go's handlers answer the gRPC protocol (and Connect and gRPC-Web,
// which Tern never sends here); calls to other services get HTTP 404, which gRPC clients read as
// UNIMPLEMENTED. Responses are compressed with gzip when the client accepts it, except a
// UnaryCall's whose request says response_compressed=false.
func runServer(port int, tlsConfig *tls.Config) error {
	mux := http.NewServeMux()
	mux.Handle(service+"EmptyCall", connect.NewUnaryHandler(service+"EmptyCall", emptyCall))
	mux.Handle(service+"UnaryCall", byResponseCompressed(
		connect.NewUnaryHandler(service+"UnaryCall", unaryCall),
		connect.NewUnaryHandler(service+"UnaryCall", unaryCall, connect.WithCompressMinBytes(math.MaxInt32))))
	mux.Handle(service+"StreamingInputCall",
		connect.NewClientStreamHandler(service+"StreamingInputCall", streamingInputCall))
	mux.Handle(service+"StreamingOutputCall",
		connect.NewServerStreamHandler(service+"StreamingOutputCall", streamingOutputCall))
	mux.Handle(service+"FullDuplexCall",
		connect.NewBidiStreamHandler(service+"FullDuplexCall", fullDuplexCall))
	mux.Handle(service+"UnimplementedCall",
		connect.NewUnaryHandler(service+"UnimplementedCall", unimplementedCall))

	conn, err := net.ListenPacket("udp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return err
	}
	server := &http3.Server{Handler: recordingRequests(mux), TLSConfig: http3.ConfigureTLSConfig(tlsConfig)}
	drained := make(chan error, 1)
	terminate := make(chan os.Signal, 1)
	signal.Notify(terminate, syscall.SIGTERM)
	go func() {
		<-terminate
		fmt.Println("SHUTTING DOWN")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		drained <- server.Shutdown(ctx)
	}()
	fmt.Printf("LISTENING %d\n", conn.LocalAddr().(*net.UDPAddr).Port)
	if err := server.Serve(conn); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	// Serve returns once Shutdown closed the listener; the calls under way still run.
	if err := <-drained; err != nil {
		return err
	}
	fmt.Println("SHUT DOWN")
	return nil
}

func emptyCall(context.Context, *connect.Request[testpb.Empty]) (*connect.Response[testpb.Empty], error) {
	return connect.NewResponse(&testpb.Empty{}), nil
}

func unaryCall(
	ctx context.Context, req *connect.Request[testpb.SimpleRequest],
) (*connect.Response[testpb.SimpleResponse], error) {
	if err := checkCompressed(ctx, 0, req.Msg.GetExpectCompressed()); err != nil {
		return nil, err
	}
	if err := statusError(req.Msg.GetResponseStatus()); err != nil {
		echoMetadata(req.Header(), err.Meta(), err.Meta())
		return nil, err
	}
	res := connect.NewResponse(&testpb.SimpleResponse{Payload: payload(req.Msg.GetResponseSize())})
	echoMetadata(req.Header(), res.Header(), res.Trailer())
	return res, nil
}

func streamingInputCall(
	ctx context.Context, stream *connect.ClientStream[testpb.StreamingInputCallRequest],
) (*connect.Response[testpb.StreamingInputCallResponse], error) {
	var size int32
	for i := 0; stream.Receive(); i++ {
		if err := checkCompressed(ctx, i, stream.Msg().GetExpectCompressed()); err != nil {
			return nil, err
		}
		size += int32(len(stream.Msg().GetPayload().GetBody()))
	}
	if err := stream.Err(); err != nil {
		return nil, err
	}
	return connect.NewResponse(&testpb.StreamingInputCallResponse{AggregatedPayloadSize: size}), nil
}

func streamingOutputCall(
	ctx context.Context,
	req *connect.Request[testpb.StreamingOutputCallRequest],
	stream *connect.ServerStream[testpb.StreamingOutputCallResponse],
) error {
	echoMetadata(req.Header(), stream.ResponseHeader(), stream.ResponseTrailer())
	if err := respond(ctx, req.Msg, stream.Send); err != nil {
		return err
	}
	if err := statusError(req.Msg.GetResponseStatus()); err != nil {
		return err
	}
	return nil
}

func fullDuplexCall(
	ctx context.Context,
	stream *connect.BidiStream[testpb.StreamingOutputCallRequest, testpb.StreamingOutputCallResponse],
) error {
	echoMetadata(stream.RequestHeader(), stream.ResponseHeader(), stream.ResponseTrailer())
	for {
		req, err := stream.Receive()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := statusError(req.GetResponseStatus()); err != nil {
			return err
		}
		if err := respond(ctx, req, stream.Send); err != nil {
			return err
		}
	}
}

func unimplementedCall(
	context.Context, *connect.Request[testpb.Empty],
) (*connect.Response[testpb.Empty], error) {
	return nil, connect.NewError(connect.CodeUnimplemented, errors.New("UnimplementedCall is not implemented"))
}

// respond sends one response per ResponseParameters, after its interval.
func respond(
	ctx context.Context,
	req *testpb.StreamingOutputCallRequest,
	send func(*testpb.StreamingOutputCallResponse) error,
) error {
	for _, params := range req.GetResponseParameters() {
		if interval := params.GetIntervalUs(); interval > 0 {
			timer := time.NewTimer(time.Duration(interval) * time.Microsecond)
			select {
			case <-ctx.Done():
				timer.Stop()
				return ctx.Err() // connect-go answers CANCELLED or DEADLINE_EXCEEDED
			case <-timer.C:
			}
		}
		if err := send(&testpb.StreamingOutputCallResponse{Payload: payload(params.GetSize())}); err != nil {
			return err
		}
	}
	return nil
}

// checkCompressed answers INVALID_ARGUMENT when the request's message i was compressed and
// expect_compressed said otherwise, or the other way round; an unset expect_compressed expects
// nothing.
func checkCompressed(ctx context.Context, i int, expect *testpb.BoolValue) error {
	if expect == nil {
		return nil
	}
	flags := envelopeFlagsOf(ctx).flags()
	if i >= len(flags) {
		return connect.NewError(connect.CodeInternal, fmt.Errorf("message %d was not seen", i))
	}
	if flags[i] != expect.GetValue() {
		return connect.NewError(connect.CodeInvalidArgument,
			fmt.Errorf("message %d: compressed=%t, expect_compressed=%t", i, flags[i], expect.GetValue()))
	}
	return nil
}

// statusError is the error a request's response_status asks for, or nil.
func statusError(status *testpb.EchoStatus) *connect.Error {
	if status.GetCode() == 0 {
		return nil
	}
	return connect.NewError(connect.Code(status.GetCode()), errors.New(status.GetMessage()))
}

// echoMetadata copies the interop echo keys: the initial one to the response headers, the
// trailing (binary, still base64 as received) one to the trailers.
func echoMetadata(request, header, trailer http.Header) {
	if v := request.Values(echoInitial); len(v) > 0 {
		header[http.CanonicalHeaderKey(echoInitial)] = v
	}
	if v := request.Values(echoTrailing); len(v) > 0 {
		trailer[http.CanonicalHeaderKey(echoTrailing)] = v
	}
}

func payload(size int32) *testpb.Payload {
	return &testpb.Payload{Type: testpb.PayloadType_COMPRESSABLE, Body: make([]byte, size)}
}
