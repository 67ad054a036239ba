package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/protobuf/proto"
)

// envelopeFlags records whether each gRPC message of a body was compressed, read off the
// length-prefixed envelopes (1 flag byte, 4 length bytes, the message) as the body passes. connect-go
// decompresses without saying, and the compressed interop cases turn on these flags. Safe for one
// reader goroutine and any number of goroutines asking what it saw.
type envelopeFlags struct {
	mu         sync.Mutex
	compressed []bool
	header     []byte // the current envelope's prefix, while incomplete
	remaining  uint32 // bytes of the current message still to pass
}

type flagsKey struct{}

// withEnvelopeFlags returns a context carrying a new recorder, and the recorder.
func withEnvelopeFlags(ctx context.Context) (context.Context, *envelopeFlags) {
	flags := &envelopeFlags{}
	return context.WithValue(ctx, flagsKey{}, flags), flags
}

// envelopeFlagsOf is the recorder ctx carries, or nil.
func envelopeFlagsOf(ctx context.Context) *envelopeFlags {
	flags, _ := ctx.Value(flagsKey{}).(*envelopeFlags)
	return flags
}

func (f *envelopeFlags) observe(p []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(p) > 0 {
		if f.remaining > 0 {
			n := min(uint32(len(p)), f.remaining)
			f.remaining -= n
			p = p[n:]
			continue
		}
		need := 5 - len(f.header)
		n := min(need, len(p))
		f.header = append(f.header, p[:n]...)
		p = p[n:]
		if len(f.header) == 5 {
			f.compressed = append(f.compressed, f.header[0]&1 == 1)
			f.remaining = binary.BigEndian.Uint32(f.header[1:])
			f.header = f.header[:0]
		}
	}
}

// flags are the compressed flags of the messages seen so far, in order.
func (f *envelopeFlags) flags() []bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]bool(nil), f.compressed...)
}

// flagReader passes a body through, showing it to an envelopeFlags.
type flagReader struct {
	io.ReadCloser
	flags *envelopeFlags
}

func (r flagReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	r.flags.observe(p[:n])
	return n, err
}

// recordingTransport shows each response body to the envelopeFlags its request's context carries.
type recordingTransport struct{ next http.RoundTripper }

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.next.RoundTrip(req)
	if flags := envelopeFlagsOf(req.Context()); err == nil && flags != nil {
		res.Body = flagReader{res.Body, flags}
	}
	return res, err
}

// recordingRequests shows each request body to an envelopeFlags in the request's context.
func recordingRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, flags := withEnvelopeFlags(r.Context())
		r = r.WithContext(ctx)
		r.Body = flagReader{r.Body, flags}
		next.ServeHTTP(w, r)
	})
}

// byResponseCompressed routes a UnaryCall to compressing or to plain by its request's
// response_compressed: connect-go chooses compression per handler, where the interop case asks for
// it per response. It reads the whole request (one message) first, then replays it.
func byResponseCompressed(compressing, plain http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		req, err := firstSimpleRequest(body, r.Header.Get("Grpc-Encoding"))
		if err == nil && req.GetResponseCompressed().GetValue() {
			compressing.ServeHTTP(w, r)
		} else {
			// An unreadable request goes on too: connect-go answers it properly.
			plain.ServeHTTP(w, r)
		}
	})
}

func firstSimpleRequest(body []byte, encoding string) (*testpb.SimpleRequest, error) {
	if len(body) < 5 || uint32(len(body)-5) < binary.BigEndian.Uint32(body[1:5]) {
		return nil, errors.New("no whole message")
	}
	message := body[5 : 5+binary.BigEndian.Uint32(body[1:5])]
	if body[0]&1 == 1 {
		if encoding != "gzip" {
			return nil, fmt.Errorf("compressed with %q", encoding)
		}
		reader, err := gzip.NewReader(bytes.NewReader(message))
		if err != nil {
			return nil, err
		}
		if message, err = io.ReadAll(reader); err != nil {
			return nil, err
		}
	}
	req := &testpb.SimpleRequest{}
	return req, proto.Unmarshal(message, req)
}
