package dev.tern.stub;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptor;
import dev.tern.ForwardingClientCall.SimpleForwardingClientCall;
import dev.tern.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Client interceptors for common metadata chores: attaching fixed headers to every call, and
 * capturing the headers and trailers a call receives (handy in tests and for reading
 * server-provided details next to a blocking call).
 *
 * <p>Thread-safe: static methods only; each returned interceptor documents its own safety.
 */
public final class MetadataUtils {
  private MetadataUtils() {}

  /**
   * Returns an interceptor that adds {@code extraHeaders} to the headers of every call. The entries
   * are copied now, so later changes to {@code extraHeaders} do not affect the interceptor. The
   * interceptor is immutable and thread-safe.
   */
  public static ClientInterceptor newAttachHeadersInterceptor(Metadata extraHeaders) {
    Objects.requireNonNull(extraHeaders, "extraHeaders");
    Metadata copy = new Metadata();
    copy.merge(extraHeaders);
    return new AttachHeadersInterceptor(copy);
  }

  /**
   * Returns an interceptor that stores, for each call, the response headers in {@code
   * headersCapture} and the trailers in {@code trailersCapture} as they arrive. Both are reset to
   * null when a call starts. Meant for one call at a time: with concurrent calls the references
   * hold whichever call wrote last. The interceptor is thread-safe.
   */
  public static ClientInterceptor newCaptureMetadataInterceptor(
      AtomicReference<Metadata> headersCapture, AtomicReference<Metadata> trailersCapture) {
    Objects.requireNonNull(headersCapture, "headersCapture");
    Objects.requireNonNull(trailersCapture, "trailersCapture");
    return new CaptureMetadataInterceptor(headersCapture, trailersCapture);
  }

  /** Immutable; thread-safe: {@code extraHeaders} is never modified, only read. */
  private static final class AttachHeadersInterceptor implements ClientInterceptor {
    private final Metadata extraHeaders;

    AttachHeadersInterceptor(Metadata extraHeaders) {
      this.extraHeaders = extraHeaders;
    }

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
        MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
      return new SimpleForwardingClientCall<ReqT, RespT>(next.newCall(method, callOptions)) {
        @Override
        public void start(Listener<RespT> responseListener, Metadata headers) {
          headers.merge(extraHeaders);
          super.start(responseListener, headers);
        }
      };
    }

    @Override
    public String toString() {
      return "AttachHeadersInterceptor" + extraHeaders;
    }
  }

  /** Thread-safe: it only writes to the atomic references. */
  private static final class CaptureMetadataInterceptor implements ClientInterceptor {
    private final AtomicReference<Metadata> headersCapture;
    private final AtomicReference<Metadata> trailersCapture;

    CaptureMetadataInterceptor(
        AtomicReference<Metadata> headersCapture, AtomicReference<Metadata> trailersCapture) {
      this.headersCapture = headersCapture;
      this.trailersCapture = trailersCapture;
    }

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
        MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
      return new SimpleForwardingClientCall<ReqT, RespT>(next.newCall(method, callOptions)) {
        @Override
        public void start(Listener<RespT> responseListener, Metadata headers) {
          headersCapture.set(null);
          trailersCapture.set(null);
          super.start(
              new SimpleForwardingClientCallListener<RespT>(responseListener) {
                @Override
                public void onHeaders(Metadata headers) {
                  headersCapture.set(headers);
                  super.onHeaders(headers);
                }

                @Override
                public void onClose(Status status, Metadata trailers) {
                  trailersCapture.set(trailers);
                  super.onClose(status, trailers);
                }
              },
              headers);
        }
      };
    }
  }
}
