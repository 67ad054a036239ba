package dev.tern.conformance;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Context;
import dev.tern.Contexts;
import dev.tern.Deadline;
import dev.tern.ForwardingServerCall.SimpleForwardingServerCall;
import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.Status;
import dev.tern.conformance.v1.Header;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What a conformance service method needs of its call beyond its messages: the request headers,
 * response headers sent at once or held until the first response, and trailers added to the end of
 * the call, whatever ends it. The {@link #INTERCEPTOR} puts one in each call's {@link Context};
 * methods find theirs with {@link #current()}.
 *
 * <p>The generated service API leaves headers to the framework (sent with the first response); the
 * conformance cases also need them sent before a delayed first response, so this wraps the {@link
 * ServerCall}: the framework's own {@code sendHeaders} then adds the held headers, or is skipped if
 * they were already sent.
 *
 * <p>Thread-safety: the method's thread and the framework's threads may use it; this object's
 * monitor guards the held metadata and whether headers went out, and is held while sending the
 * headers so that they go out once, before any message.
 */
final class CallMetadata {
  private static final Context.Key<CallMetadata> KEY = Context.key("conformance-call-metadata");

  /** Gives every call a {@link CallMetadata} in its context. */
  static final ServerInterceptor INTERCEPTOR =
      new ServerInterceptor() {
        @Override
        public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
            ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
          CallMetadata metadata = new CallMetadata(call, headers);
          return Contexts.interceptCall(
              Context.current().withValue(KEY, metadata),
              metadata.new MetadataCall<>(call),
              headers,
              next);
        }
      };

  private final ServerCall<?, ?> call;
  private final Metadata requestHeaders;

  /**
   * The time the call had left when it started, in milliseconds, or null without a deadline: read
   * at the start so that the echo is what the client asked for, not less the time spent reading a
   * request stream.
   */
  private final Long timeoutMillis;

  @GuardedBy("this")
  private final Metadata heldHeaders = new Metadata();

  @GuardedBy("this")
  private final Metadata trailers = new Metadata();

  @GuardedBy("this")
  private boolean headersSent;

  private CallMetadata(ServerCall<?, ?> call, Metadata requestHeaders) {
    this.call = call;
    this.requestHeaders = requestHeaders;
    Deadline deadline = Context.current().getDeadline();
    this.timeoutMillis = deadline == null ? null : deadline.timeRemaining(TimeUnit.MILLISECONDS);
  }

  /**
   * The current call's.
   *
   * @throws IllegalStateException outside a call served with {@link #INTERCEPTOR}
   */
  static CallMetadata current() {
    CallMetadata metadata = KEY.get();
    if (metadata == null) {
      throw new IllegalStateException(
          "no call metadata: the service needs CallMetadata.INTERCEPTOR");
    }
    return metadata;
  }

  /** The headers the client sent. */
  Metadata requestHeaders() {
    return requestHeaders;
  }

  /** The time the call had left when it started, in milliseconds; null without a deadline. */
  Long timeoutMillis() {
    return timeoutMillis;
  }

  /** Adds {@code headers} to the response headers and sends them now. */
  synchronized void sendHeaders(List<Header> headers) {
    HeaderLists.addTo(heldHeaders, headers);
    sendHeldHeaders(new Metadata());
  }

  /** Adds {@code headers} to the response headers, sent with the first response or at the end. */
  synchronized void holdHeaders(List<Header> headers) {
    HeaderLists.addTo(heldHeaders, headers);
  }

  /** Adds {@code trailers} to those the call ends with. */
  synchronized void addTrailers(List<Header> trailers) {
    HeaderLists.addTo(this.trailers, trailers);
  }

  @GuardedBy("this")
  private void sendHeldHeaders(Metadata headers) {
    if (headersSent) {
      return;
    }
    headers.merge(heldHeaders);
    headersSent = true;
    call.sendHeaders(headers);
  }

  /** The call as the framework sees it: held headers and trailers are added on the way out. */
  private final class MetadataCall<ReqT, RespT> extends SimpleForwardingServerCall<ReqT, RespT> {
    MetadataCall(ServerCall<ReqT, RespT> delegate) {
      super(delegate);
    }

    @Override
    public void sendHeaders(Metadata headers) {
      synchronized (CallMetadata.this) {
        sendHeldHeaders(headers);
      }
    }

    @Override
    public void sendMessage(RespT message) {
      // The call would send empty headers before the first message: send the held ones instead.
      synchronized (CallMetadata.this) {
        sendHeldHeaders(new Metadata());
      }
      super.sendMessage(message);
    }

    @Override
    public void close(Status status, Metadata callTrailers) {
      synchronized (CallMetadata.this) {
        // Held headers go out as headers, not folded into a trailers-only response.
        if (!heldHeaders.keys().isEmpty()) {
          sendHeldHeaders(new Metadata());
        }
        callTrailers.merge(trailers);
      }
      super.close(status, callTrailers);
    }
  }
}
