package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"connectrpc.com/connect"
	testpb "google.golang.org/grpc/interop/grpc_testing"
)

func (c testClients) emptyUnary(ctx context.Context) error {
	res, err := c.empty.CallUnary(ctx, connect.NewRequest(&testpb.Empty{}))
	if err != nil {
		return err
	}
	if res.Msg == nil {
		return errors.New("no response message")
	}
	return nil
}

func (c testClients) largeUnary(ctx context.Context) error {
	res, err := c.unary.CallUnary(ctx, connect.NewRequest(largeRequest()))
	if err != nil {
		return err
	}
	return checkPayload(res.Msg.GetPayload(), largeReplySize)
}

func (c testClients) clientStreaming(ctx context.Context) error {
	stream := c.input.CallClientStream(ctx)
	for _, size := range []int32{27182, 8, 1828, 45904} {
		if err := stream.Send(&testpb.StreamingInputCallRequest{Payload: payload(size)}); err != nil {
			return fmt.Errorf("send: %w", err)
		}
	}
	res, err := stream.CloseAndReceive()
	if err != nil {
		return err
	}
	if got := res.Msg.GetAggregatedPayloadSize(); got != 74922 {
		return fmt.Errorf("aggregated_payload_size %d, want 74922", got)
	}
	return nil
}

func (c testClients) serverStreaming(ctx context.Context) error {
	sizes := []int32{31415, 9, 2653, 58979}
	req := &testpb.StreamingOutputCallRequest{ResponseType: testpb.PayloadType_COMPRESSABLE}
	for _, size := range sizes {
		req.ResponseParameters = append(req.ResponseParameters, &testpb.ResponseParameters{Size: size})
	}
	return c.streamOutput(ctx, req, sizes)
}

// streamOutput calls StreamingOutputCall and checks that the responses have the sizes given.
func (c testClients) streamOutput(
	ctx context.Context, req *testpb.StreamingOutputCallRequest, sizes []int32,
) error {
	stream, err := c.output.CallServerStream(ctx, connect.NewRequest(req))
	if err != nil {
		return err
	}
	defer stream.Close()
	i := 0
	for ; stream.Receive(); i++ {
		if i >= len(sizes) {
			return errors.New("more responses than asked for")
		}
		if err := checkPayload(stream.Msg().GetPayload(), sizes[i]); err != nil {
			return fmt.Errorf("response %d: %w", i, err)
		}
	}
	if err := stream.Err(); err != nil {
		return err
	}
	if i != len(sizes) {
		return fmt.Errorf("%d responses, want %d", i, len(sizes))
	}
	return nil
}

// pingPong sends each request only after the previous response arrived: it needs a transport
// that carries request and response bodies at once (quic-go's does).
func (c testClients) pingPong(ctx context.Context) error {
	stream := c.duplex.CallBidiStream(ctx)
	defer stream.CloseResponse()
	requests := []int32{27182, 8, 1828, 45904}
	responses := []int32{31415, 9, 2653, 58979}
	for i := range requests {
		req := &testpb.StreamingOutputCallRequest{
			ResponseType:       testpb.PayloadType_COMPRESSABLE,
			ResponseParameters: []*testpb.ResponseParameters{{Size: responses[i]}},
			Payload:            payload(requests[i]),
		}
		if err := stream.Send(req); err != nil {
			return fmt.Errorf("send %d: %w", i, err)
		}
		res, err := stream.Receive()
		if err != nil {
			return fmt.Errorf("receive %d: %w", i, err)
		}
		if err := checkPayload(res.GetPayload(), responses[i]); err != nil {
			return fmt.Errorf("response %d: %w", i, err)
		}
	}
	if err := stream.CloseRequest(); err != nil {
		return err
	}
	return expectEnd(stream.Receive())
}

func (c testClients) emptyStream(ctx context.Context) error {
	stream := c.duplex.CallBidiStream(ctx)
	defer stream.CloseResponse()
	if err := stream.CloseRequest(); err != nil {
		return err
	}
	return expectEnd(stream.Receive())
}

func (c testClients) customMetadata(ctx context.Context) error {
	req := connect.NewRequest(largeRequest())
	addEchoMetadata(req.Header())
	res, err := c.unary.CallUnary(ctx, req)
	if err != nil {
		return fmt.Errorf("UnaryCall: %w", err)
	}
	if err := checkEchoed(res.Header(), res.Trailer()); err != nil {
		return fmt.Errorf("UnaryCall: %w", err)
	}

	stream := c.duplex.CallBidiStream(ctx)
	defer stream.CloseResponse()
	addEchoMetadata(stream.RequestHeader())
	err = stream.Send(&testpb.StreamingOutputCallRequest{
		ResponseType:       testpb.PayloadType_COMPRESSABLE,
		ResponseParameters: []*testpb.ResponseParameters{{Size: largeReplySize}},
		Payload:            payload(largeRequestSize),
	})
	if err != nil {
		return fmt.Errorf("FullDuplexCall send: %w", err)
	}
	if err := stream.CloseRequest(); err != nil {
		return err
	}
	if _, err := stream.Receive(); err != nil {
		return fmt.Errorf("FullDuplexCall receive: %w", err)
	}
	if err := expectEnd(stream.Receive()); err != nil {
		return fmt.Errorf("FullDuplexCall: %w", err)
	}
	if err := checkEchoed(stream.ResponseHeader(), stream.ResponseTrailer()); err != nil {
		return fmt.Errorf("FullDuplexCall: %w", err)
	}
	return nil
}

func (c testClients) statusCodeAndMessage(ctx context.Context, message string) error {
	status := &testpb.EchoStatus{Code: int32(connect.CodeUnknown), Message: message}
	_, err := c.unary.CallUnary(ctx, connect.NewRequest(&testpb.SimpleRequest{ResponseStatus: status}))
	if err := expectStatus(err, connect.CodeUnknown, message); err != nil {
		return fmt.Errorf("UnaryCall: %w", err)
	}

	stream := c.duplex.CallBidiStream(ctx)
	defer stream.CloseResponse()
	if err := stream.Send(&testpb.StreamingOutputCallRequest{ResponseStatus: status}); err != nil {
		return fmt.Errorf("FullDuplexCall send: %w", err)
	}
	if err := stream.CloseRequest(); err != nil {
		return err
	}
	_, err = stream.Receive()
	if err := expectStatus(err, connect.CodeUnknown, message); err != nil {
		return fmt.Errorf("FullDuplexCall: %w", err)
	}
	return nil
}

func expectUnimplemented(ctx context.Context, client *connect.Client[testpb.Empty, testpb.Empty]) error {
	_, err := client.CallUnary(ctx, connect.NewRequest(&testpb.Empty{}))
	if code := connect.CodeOf(err); err == nil || code != connect.CodeUnimplemented {
		return fmt.Errorf("got %v (%v), want UNIMPLEMENTED", code, err)
	}
	return nil
}

func (c testClients) timeoutOnSleepingServer(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Millisecond)
	defer cancel()
	stream := c.duplex.CallBidiStream(ctx)
	defer stream.CloseResponse()
	// The send may fail already, when the deadline passed first; the call's end says how it ended.
	_ = stream.Send(&testpb.StreamingOutputCallRequest{Payload: payload(27182)})
	_, err := stream.Receive()
	if code := connect.CodeOf(err); err == nil || code != connect.CodeDeadlineExceeded {
		return fmt.Errorf("got %v (%v), want DEADLINE_EXCEEDED", code, err)
	}
	return nil
}

func (c testClients) cancelAfterBegin(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	stream := c.input.CallClientStream(ctx)
	// Send(nil) sends the request headers without a message: the call has begun.
	if err := stream.Send(nil); err != nil {
		cancel()
		return fmt.Errorf("send headers: %w", err)
	}
	cancel()
	_, err := stream.CloseAndReceive()
	if code := connect.CodeOf(err); err == nil || code != connect.CodeCanceled {
		return fmt.Errorf("got %v (%v), want CANCELLED", code, err)
	}
	return nil
}

func (c testClients) cancelAfterFirstResponse(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream := c.duplex.CallBidiStream(ctx)
	defer stream.CloseResponse()
	err := stream.Send(&testpb.StreamingOutputCallRequest{
		ResponseType:       testpb.PayloadType_COMPRESSABLE,
		ResponseParameters: []*testpb.ResponseParameters{{Size: 31415}},
		Payload:            payload(27182),
	})
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	if _, err := stream.Receive(); err != nil {
		return fmt.Errorf("receive: %w", err)
	}
	cancel()
	_, err = stream.Receive()
	if code := connect.CodeOf(err); err == nil || code != connect.CodeCanceled {
		return fmt.Errorf("got %v (%v), want CANCELLED", code, err)
	}
	return nil
}

// clientCompressedUnary: connect-go compresses all of a client's requests or none, so a client of
// each kind.
func (c testClients) clientCompressedUnary(ctx context.Context) error {
	req := largeRequest()
	req.ExpectCompressed = &testpb.BoolValue{Value: true}
	_, err := c.unary.CallUnary(ctx, connect.NewRequest(req))
	if code := connect.CodeOf(err); err == nil || code != connect.CodeInvalidArgument {
		return fmt.Errorf("probe (uncompressed, expect_compressed=true): got %v (%v), want INVALID_ARGUMENT", code, err)
	}
	res, err := c.gzipUnary.CallUnary(ctx, connect.NewRequest(req))
	if err != nil {
		return fmt.Errorf("compressed: %w", err)
	}
	if err := checkPayload(res.Msg.GetPayload(), largeReplySize); err != nil {
		return fmt.Errorf("compressed: %w", err)
	}
	req.ExpectCompressed = &testpb.BoolValue{Value: false}
	if res, err = c.unary.CallUnary(ctx, connect.NewRequest(req)); err != nil {
		return fmt.Errorf("uncompressed: %w", err)
	}
	return checkPayload(res.Msg.GetPayload(), largeReplySize)
}

func (c testClients) serverCompressedUnary(ctx context.Context) error {
	for _, compressed := range []bool{true, false} {
		ctx, flags := withEnvelopeFlags(ctx)
		req := largeRequest()
		req.ResponseCompressed = &testpb.BoolValue{Value: compressed}
		res, err := c.unary.CallUnary(ctx, connect.NewRequest(req))
		if err != nil {
			return fmt.Errorf("response_compressed=%t: %w", compressed, err)
		}
		if err := checkPayload(res.Msg.GetPayload(), largeReplySize); err != nil {
			return err
		}
		if got := flags.flags(); len(got) != 1 || got[0] != compressed {
			return fmt.Errorf("response_compressed=%t, but the responses' compressed flags were %v", compressed, got)
		}
	}
	return nil
}

func (c testClients) serverCompressedStreaming(ctx context.Context) error {
	ctx, flags := withEnvelopeFlags(ctx)
	sizes := []int32{31415, 92653}
	req := &testpb.StreamingOutputCallRequest{
		ResponseType: testpb.PayloadType_COMPRESSABLE,
		ResponseParameters: []*testpb.ResponseParameters{
			{Size: sizes[0], Compressed: &testpb.BoolValue{Value: true}},
			{Size: sizes[1], Compressed: &testpb.BoolValue{Value: false}},
		},
	}
	if err := c.streamOutput(ctx, req, sizes); err != nil {
		return err
	}
	if got := flags.flags(); len(got) != 2 || !got[0] || got[1] {
		return fmt.Errorf("the responses' compressed flags were %v, want [true false]", got)
	}
	return nil
}

// veryLargeRequest sends one message just under gRPC's default 4 MiB limit once framed: many
// QUIC packets and flow-control updates for one message.
func (c testClients) veryLargeRequest(ctx context.Context) error {
	req := &testpb.SimpleRequest{ResponseSize: 10, Payload: payload(4*1024*1024 - 64)}
	res, err := c.unary.CallUnary(ctx, connect.NewRequest(req))
	if err != nil {
		return err
	}
	return checkPayload(res.Msg.GetPayload(), 10)
}

func largeRequest() *testpb.SimpleRequest {
	return &testpb.SimpleRequest{
		ResponseType: testpb.PayloadType_COMPRESSABLE,
		ResponseSize: largeReplySize,
		Payload:      payload(largeRequestSize),
	}
}

func checkPayload(p *testpb.Payload, size int32) error {
	if got := len(p.GetBody()); got != int(size) {
		return fmt.Errorf("payload of %d bytes, want %d", got, size)
	}
	for _, b := range p.GetBody() {
		if b != 0 {
			return errors.New("payload not all zeros")
		}
	}
	return nil
}

func addEchoMetadata(header http.Header) {
	header.Set(echoInitial, initialValue)
	header.Set(echoTrailing, connect.EncodeBinaryHeader(trailingValue))
}

func checkEchoed(header, trailer http.Header) error {
	if got := header.Get(echoInitial); got != initialValue {
		return fmt.Errorf("initial metadata %q, want %q", got, initialValue)
	}
	got, err := connect.DecodeBinaryHeader(trailer.Get(echoTrailing))
	if err != nil {
		return fmt.Errorf("trailing metadata: %w", err)
	}
	if string(got) != string(trailingValue) {
		return fmt.Errorf("trailing metadata %x, want %x", got, trailingValue)
	}
	return nil
}

func expectStatus(err error, code connect.Code, message string) error {
	var connectErr *connect.Error
	if !errors.As(err, &connectErr) {
		return fmt.Errorf("got %v, want status %v", err, code)
	}
	if connectErr.Code() != code || connectErr.Message() != message {
		return fmt.Errorf("got %v %q, want %v %q", connectErr.Code(), connectErr.Message(), code, message)
	}
	return nil
}

// expectEnd checks that a stream ended cleanly, with no further message.
func expectEnd(res *testpb.StreamingOutputCallResponse, err error) error {
	if err == nil {
		return errors.New("a response after the last one expected")
	}
	if !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}
