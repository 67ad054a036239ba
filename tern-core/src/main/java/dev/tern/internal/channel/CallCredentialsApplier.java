package dev.tern.internal.channel;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Attributes;
import dev.tern.CallCredentials;
import dev.tern.CallOptions;
import dev.tern.Grpc;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.SecurityLevel;
import dev.tern.Status;
import dev.tern.internal.client.DelayedClientStream;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientTransport;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Creates a call's stream on a chosen transport, first asking the call's {@link CallCredentials}
 * for extra headers when it has any.
 *
 * <p>Credentials that answer synchronously (inside {@code applyRequestMetadata}) get the real
 * stream returned directly; otherwise the call gets a {@link DelayedClientStream} that buffers its
 * messages until the credentials answer, and honours cancellation (deadline, context, the
 * application) meanwhile. The credentials' headers are merged into a copy of the call's headers, so
 * the originals stay reusable for a transparent retry.
 *
 * <p>Thread-safe: the applier may be called from any thread; a private lock guards its outcome.
 */
final class CallCredentialsApplier extends CallCredentials.MetadataApplier {
  /** Marks "the credentials had already answered" for {@link #claim}. */
  private static final DelayedClientStream ALREADY_ANSWERED = new DelayedClientStream();

  private final ClientTransport transport;
  private final MethodDescriptor<?, ?> method;
  private final Metadata headers;
  private final CallOptions callOptions;
  private final Object lock = new Object();

  @GuardedBy("lock")
  private boolean answered;

  @GuardedBy("lock")
  private ClientStream result;

  @GuardedBy("lock")
  private DelayedClientStream delayed;

  private CallCredentialsApplier(
      ClientTransport transport,
      MethodDescriptor<?, ?> method,
      Metadata headers,
      CallOptions callOptions) {
    this.transport = transport;
    this.method = method;
    this.headers = headers;
    this.callOptions = callOptions;
  }

  /**
   * Returns the call's stream on {@code transport}: the transport's own stream when the call has no
   * credentials, else one that starts once the credentials have supplied their headers.
   *
   * @param authority the call's {@code :authority}, shown to the credentials
   * @param appExecutor handed to the credentials for blocking work
   */
  static ClientStream newStream(
      ClientTransport transport,
      MethodDescriptor<?, ?> method,
      Metadata headers,
      CallOptions callOptions,
      String authority,
      Executor appExecutor) {
    CallCredentials credentials = callOptions.getCredentials();
    if (credentials == null) {
      return transport.newStream(method, headers, callOptions);
    }
    CallCredentialsApplier applier =
        new CallCredentialsApplier(transport, method, headers, callOptions);
    try {
      credentials.applyRequestMetadata(
          new Info(method, callOptions, authority, transport.getAttributes()),
          appExecutor,
          applier);
    } catch (Throwable t) {
      applier.failIfUnanswered(
          Status.UNAUTHENTICATED.withDescription("Credentials plugin threw").withCause(t));
    }
    return applier.stream();
  }

  /** The stream to give the call: the outcome if the credentials already answered, else a delay. */
  private ClientStream stream() {
    synchronized (lock) {
      if (result != null) {
        return result;
      }
      delayed = new DelayedClientStream();
      return delayed;
    }
  }

  @Override
  public void apply(Metadata extraHeaders) {
    Objects.requireNonNull(extraHeaders, "headers");
    DelayedClientStream waiting = claim(true);
    if (waiting != null && waiting.isEnded()) {
      return; // cancelled while waiting: make no stream at all
    }
    Metadata merged = new Metadata();
    merged.merge(headers);
    merged.merge(extraHeaders);
    ClientStream stream = transport.newStream(method, merged, callOptions);
    if (waiting == null) {
      synchronized (lock) {
        if (delayed == null) {
          result = stream;
          return;
        }
        waiting = delayed;
      }
    }
    waiting.setStream(stream);
  }

  @Override
  public void fail(Status status) {
    Objects.requireNonNull(status, "status");
    if (status.isOk()) {
      throw new IllegalArgumentException("MetadataApplier.fail needs an error status, got OK");
    }
    fail(status, true);
  }

  private void fail(Status status, boolean strict) {
    DelayedClientStream waiting = claim(strict);
    if (waiting == ALREADY_ANSWERED) {
      return;
    }
    if (waiting == null) {
      synchronized (lock) {
        if (delayed == null) {
          result = DelayedClientStream.failed(status);
          return;
        }
        waiting = delayed;
      }
    }
    waiting.fail(status);
  }

  /** Fails the call unless the credentials already answered (they threw after answering). */
  private void failIfUnanswered(Status status) {
    fail(status, false);
  }

  /**
   * Records that the credentials answered; returns the delayed stream if the call is already
   * waiting on one (else null: the answer came synchronously, or races with {@link #stream()}), or
   * {@link #ALREADY_ANSWERED}.
   *
   * @throws IllegalStateException on a second answer, if {@code strict}
   */
  private DelayedClientStream claim(boolean strict) {
    synchronized (lock) {
      if (answered) {
        if (strict) {
          throw new IllegalStateException("apply() or fail() was already called");
        }
        return ALREADY_ANSWERED;
      }
      answered = true;
      return delayed;
    }
  }

  /** What the credentials see about the call. Immutable; thread-safe. */
  private static final class Info extends CallCredentials.RequestInfo {
    private final MethodDescriptor<?, ?> method;
    private final CallOptions callOptions;
    private final String authority;
    private final Attributes transportAttrs;

    Info(
        MethodDescriptor<?, ?> method,
        CallOptions callOptions,
        String authority,
        Attributes transportAttrs) {
      this.method = method;
      this.callOptions = callOptions;
      this.authority = authority;
      this.transportAttrs = transportAttrs == null ? Attributes.EMPTY : transportAttrs;
    }

    @Override
    public MethodDescriptor<?, ?> getMethodDescriptor() {
      return method;
    }

    @Override
    public CallOptions getCallOptions() {
      return callOptions;
    }

    @Override
    public SecurityLevel getSecurityLevel() {
      SecurityLevel level = transportAttrs.get(Grpc.TRANSPORT_ATTR_SECURITY_LEVEL);
      return level == null ? SecurityLevel.NONE : level;
    }

    @Override
    public String getAuthority() {
      return authority;
    }

    @Override
    public Attributes getTransportAttrs() {
      return transportAttrs;
    }
  }
}
