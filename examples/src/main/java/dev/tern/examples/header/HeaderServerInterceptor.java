package dev.tern.examples.header;

import dev.tern.Context;
import dev.tern.Contexts;
import dev.tern.ForwardingServerCall.SimpleForwardingServerCall;
import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.Status;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads the client's {@code x-client-id} header and hands it to the service through the {@link
 * Context}; adds an {@code x-server-name} response header and an {@code x-calls-served} trailer to
 * every call. Thread-safe.
 */
public final class HeaderServerInterceptor implements ServerInterceptor {
  /** The request header the client sets. */
  public static final Metadata.Key<String> CLIENT_ID =
      Metadata.Key.of("x-client-id", Metadata.ASCII_STRING_MARSHALLER);

  /** The response header this interceptor sends. */
  public static final Metadata.Key<String> SERVER_NAME =
      Metadata.Key.of("x-server-name", Metadata.ASCII_STRING_MARSHALLER);

  /** The trailer this interceptor sends: how many calls the server has finished, this one too. */
  public static final Metadata.Key<String> CALLS_SERVED =
      Metadata.Key.of("x-calls-served", Metadata.ASCII_STRING_MARSHALLER);

  /** Where the service finds the client's id while it handles the call. */
  static final Context.Key<String> CLIENT_ID_IN_CONTEXT = Context.key("client-id");

  private final String serverName;
  private final AtomicLong callsServed = new AtomicLong();

  /** An interceptor that names the server {@code serverName} in its response headers. */
  public HeaderServerInterceptor(String serverName) {
    this.serverName = serverName;
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    String clientId = headers.get(CLIENT_ID);
    System.out.println("Request header x-client-id: " + clientId);
    ServerCall<ReqT, RespT> withOurMetadata =
        new SimpleForwardingServerCall<>(call) {
          @Override
          public void sendHeaders(Metadata responseHeaders) {
            responseHeaders.put(SERVER_NAME, serverName);
            super.sendHeaders(responseHeaders);
          }

          @Override
          public void close(Status status, Metadata trailers) {
            trailers.put(CALLS_SERVED, Long.toString(callsServed.incrementAndGet()));
            super.close(status, trailers);
          }
        };
    Context context =
        Context.current().withValue(CLIENT_ID_IN_CONTEXT, clientId == null ? "?" : clientId);
    return Contexts.interceptCall(context, withOurMetadata, headers, next);
  }
}
