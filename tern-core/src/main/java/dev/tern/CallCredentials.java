package dev.tern;

import java.util.concurrent.Executor;

/**
 * Adds authentication headers (tokens, signatures) to each call, possibly asynchronously. Set on a
 * call with {@link CallOptions#withCallCredentials} or on a stub.
 *
 * <p>For every call, once the transport that will carry it is known, the runtime calls {@link
 * #applyRequestMetadata} with what the credentials may need to decide: the method, the authority,
 * the transport's {@link SecurityLevel} and attributes. The call's headers go out only after the
 * {@link MetadataApplier} has been given the extra headers, or fails the call if it is given a
 * status instead.
 *
 * <p>Implementations must be thread-safe: one instance serves many concurrent calls.
 *
 * <pre>{@code
 * final class BearerToken extends CallCredentials {
 *   public void applyRequestMetadata(RequestInfo info, Executor appExecutor, MetadataApplier applier) {
 *     if (info.getSecurityLevel() != SecurityLevel.PRIVACY_AND_INTEGRITY) {
 *       applier.fail(Status.UNAUTHENTICATED.withDescription("refusing to send a token in clear"));
 *       return;
 *     }
 *     appExecutor.execute(() -> {
 *       Metadata headers = new Metadata();
 *       headers.put(AUTHORIZATION, "Bearer " + tokenSource.fetch()); // may block: not our thread
 *       applier.apply(headers);
 *     });
 *   }
 * }
 * }</pre>
 */
public abstract class CallCredentials {
  /** For subclasses. */
  protected CallCredentials() {}

  /**
   * Supplies the headers for one call by eventually calling {@code applier} exactly once.
   *
   * <p>This method is called on a runtime or transport thread and must not block: return quickly
   * and do slow work (token refresh, I/O) on {@code appExecutor} or your own threads. The applier
   * may be called from any thread, before or after this method returns. The call waits, holding no
   * resources beyond its own, until the applier is called; it still honours its deadline and
   * cancellation while waiting.
   *
   * <p>If this method throws, the call fails with {@code UNAUTHENTICATED} carrying the exception.
   *
   * @param requestInfo what the call is and how it will travel
   * @param appExecutor the call's application executor, suitable for blocking work
   * @param applier receives the headers or the failure; call exactly once
   */
  public abstract void applyRequestMetadata(
      RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier);

  /**
   * What credentials may consult about the call they are applied to. Provided by the runtime;
   * implementations are immutable and thread-safe.
   */
  public abstract static class RequestInfo {
    /** For subclasses. */
    protected RequestInfo() {}

    /** Returns the method being called. */
    public abstract MethodDescriptor<?, ?> getMethodDescriptor();

    /** Returns the call's options (deadline, authority override, custom options...). */
    public abstract CallOptions getCallOptions();

    /**
     * Returns the protection the transport gives this call; {@link SecurityLevel#NONE} if the
     * transport does not say.
     */
    public abstract SecurityLevel getSecurityLevel();

    /**
     * Returns the authority (host[:port]) the call is addressed to, as sent in {@code :authority}.
     */
    public abstract String getAuthority();

    /** Returns the transport's attributes, such as {@link Grpc#TRANSPORT_ATTR_REMOTE_ADDR}. */
    public abstract Attributes getTransportAttrs();
  }

  /**
   * Receives the outcome of {@link #applyRequestMetadata}. Exactly one of {@link #apply} and {@link
   * #fail} must be called, exactly once, from any thread. Thread-safe.
   */
  public abstract static class MetadataApplier {
    /** For subclasses. */
    protected MetadataApplier() {}

    /** Merges {@code headers} into the call's headers and lets the call proceed. */
    public abstract void apply(Metadata headers);

    /**
     * Fails the call with {@code status} instead of sending it. Use {@code UNAUTHENTICATED} for
     * missing or unusable credentials and {@code UNAVAILABLE} for transient failures (e.g. a token
     * server that cannot be reached), so that callers can tell the two apart.
     */
    public abstract void fail(Status status);
  }
}
