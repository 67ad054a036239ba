package dev.tern.examples.header;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptor;
import dev.tern.ForwardingClientCall.SimpleForwardingClientCall;
import dev.tern.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;

/**
 * Adds an {@code x-client-id} header to every call, and keeps the {@code x-server-name} response
 * header and the {@code x-calls-served} trailer of the last call that received them. Thread-safe.
 */
public final class HeaderClientInterceptor implements ClientInterceptor {
  private final String clientId;
  private volatile String serverName;
  private volatile String callsServed;

  /** An interceptor that sends {@code clientId} as the {@code x-client-id} header. */
  public HeaderClientInterceptor(String clientId) {
    this.clientId = clientId;
  }

  /** The {@code x-server-name} response header of the last call, or null. */
  public String serverName() {
    return serverName;
  }

  /** The {@code x-calls-served} trailer of the last call, or null. */
  public String callsServed() {
    return callsServed;
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
    return new SimpleForwardingClientCall<>(next.newCall(method, callOptions)) {
      @Override
      public void start(Listener<RespT> responseListener, Metadata headers) {
        headers.put(HeaderServerInterceptor.CLIENT_ID, clientId);
        super.start(
            new SimpleForwardingClientCallListener<>(responseListener) {
              @Override
              public void onHeaders(Metadata responseHeaders) {
                serverName = responseHeaders.get(HeaderServerInterceptor.SERVER_NAME);
                super.onHeaders(responseHeaders);
              }

              @Override
              public void onClose(Status status, Metadata trailers) {
                callsServed = trailers.get(HeaderServerInterceptor.CALLS_SERVED);
                super.onClose(status, trailers);
              }
            },
            headers);
      }
    };
  }
}
