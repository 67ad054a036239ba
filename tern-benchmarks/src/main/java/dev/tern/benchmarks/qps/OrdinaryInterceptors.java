package dev.tern.benchmarks.qps;

import dev.tern.ForwardingServerCall;
import dev.tern.ForwardingServerCallListener;
import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.Status;
import java.util.concurrent.atomic.LongAdder;

/**
 * Two interceptors as a service written the ordinary way has them, for {@code qps-server
 * --defaults}: one reads a request header and answers with a response header (a request id, a
 * tenant), one wraps the call and its listener to count calls and their outcomes (metrics). Each
 * does per call what such interceptors do, with their keys made once. Thread-safe.
 */
final class OrdinaryInterceptors {
  static final Metadata.Key<String> REQUEST_ID =
      Metadata.Key.of("x-request-id", Metadata.ASCII_STRING_MARSHALLER);

  private OrdinaryInterceptors() {}

  /** The two, outermost first. */
  static ServerInterceptor[] both() {
    return new ServerInterceptor[] {new CountCalls(), new EchoRequestId()};
  }

  /** Copies the request's {@code x-request-id}, when it has one, into the response headers. */
  static final class EchoRequestId implements ServerInterceptor {
    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      String id = headers.get(REQUEST_ID);
      if (id == null) {
        return next.startCall(call, headers);
      }
      return next.startCall(
          new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void sendHeaders(Metadata responseHeaders) {
              responseHeaders.put(REQUEST_ID, id);
              super.sendHeaders(responseHeaders);
            }
          },
          headers);
    }
  }

  /** Counts calls started, messages received and calls closed OK or not. */
  static final class CountCalls implements ServerInterceptor {
    final LongAdder started = new LongAdder();
    final LongAdder messages = new LongAdder();
    final LongAdder ok = new LongAdder();
    final LongAdder failed = new LongAdder();

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      started.increment();
      ServerCall<ReqT, RespT> counted =
          new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
              (status.isOk() ? ok : failed).increment();
              super.close(status, trailers);
            }
          };
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
          next.startCall(counted, headers)) {
        @Override
        public void onMessage(ReqT message) {
          messages.increment();
          super.onMessage(message);
        }
      };
    }
  }
}
