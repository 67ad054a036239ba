package dev.tern.interop;

import dev.tern.ForwardingServerCall;
import dev.tern.ForwardingServerCallListener;
import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.Status;
import dev.tern.interop.testing.BoolValue;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.StreamingInputCallRequest;

/**
 * The interop server's interceptors: one echoes the test metadata, one checks that messages arrived
 * compressed exactly when their {@code expect_compressed} says so. Stateless; thread-safe.
 */
final class InteropServerInterceptors {
  static final Metadata.Key<String> ECHO_INITIAL =
      Metadata.Key.of("x-grpc-test-echo-initial", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<byte[]> ECHO_TRAILING =
      Metadata.Key.of("x-grpc-test-echo-trailing-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private InteropServerInterceptors() {}

  /**
   * Copies {@code x-grpc-test-echo-initial} to the headers and {@code -trailing-bin} to trailers.
   */
  static final class EchoMetadata implements ServerInterceptor {
    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      String initial = headers.get(ECHO_INITIAL);
      byte[] trailing = headers.get(ECHO_TRAILING);
      if (initial == null && trailing == null) {
        return next.startCall(call, headers);
      }
      return next.startCall(
          new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void sendHeaders(Metadata responseHeaders) {
              if (initial != null) {
                responseHeaders.put(ECHO_INITIAL, initial);
              }
              super.sendHeaders(responseHeaders);
            }

            @Override
            public void close(Status status, Metadata trailers) {
              if (trailing != null) {
                trailers.put(ECHO_TRAILING, trailing);
              }
              super.close(status, trailers);
            }
          },
          headers);
    }
  }

  /**
   * Fails a call INVALID_ARGUMENT when a request's {@code expect_compressed} disagrees with how the
   * message arrived, as told by {@link CompressionProbe} (which the server must use as its gzip
   * decompressor). Runs on the thread that parsed the message, right after parsing.
   */
  static final class ExpectCompressed implements ServerInterceptor {
    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      ServerCall.Listener<ReqT> delegate = next.startCall(call, headers);
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(delegate) {
        private boolean failed;

        @Override
        public void onMessage(ReqT message) {
          boolean compressed = CompressionProbe.takeMark();
          if (failed) {
            return;
          }
          BoolValue expect = expectation(message);
          if (expect != null && expect.getValue() != compressed) {
            failed = true;
            call.close(
                Status.INVALID_ARGUMENT.withDescription(
                    expect.getValue()
                        ? "expected a compressed request, got an uncompressed one"
                        : "expected an uncompressed request, got a compressed one"),
                new Metadata());
            return;
          }
          super.onMessage(message);
        }

        @Override
        public void onHalfClose() {
          if (!failed) {
            super.onHalfClose();
          }
        }
      };
    }

    private static BoolValue expectation(Object message) {
      if (message instanceof SimpleRequest r && r.hasExpectCompressed()) {
        return r.getExpectCompressed();
      }
      if (message instanceof StreamingInputCallRequest r && r.hasExpectCompressed()) {
        return r.getExpectCompressed();
      }
      return null;
    }
  }
}
