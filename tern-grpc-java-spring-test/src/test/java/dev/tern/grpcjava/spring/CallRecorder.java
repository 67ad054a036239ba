package dev.tern.grpcjava.spring;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A server interceptor that Spring gRPC applies to every service (a {@code GlobalServerInterceptor}
 * bean, see {@link SpringEchoApplication}): it notes each call it sees.
 */
public final class CallRecorder implements ServerInterceptor {

  private static final Metadata.Key<String> USER_AGENT =
      Metadata.Key.of("user-agent", Metadata.ASCII_STRING_MARSHALLER);

  /** One call as the interceptor saw it: the ServerCall's class names the server running it. */
  public record Seen(String method, String userAgent, String serverCallClass) {}

  private final List<Seen> seen = new CopyOnWriteArrayList<>();

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    seen.add(
        new Seen(
            call.getMethodDescriptor().getFullMethodName(),
            String.valueOf(headers.get(USER_AGENT)),
            call.getClass().getName()));
    return next.startCall(call, headers);
  }

  /** The calls seen so far, oldest first. */
  public List<Seen> seen() {
    return List.copyOf(seen);
  }
}
