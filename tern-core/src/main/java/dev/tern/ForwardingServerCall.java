package dev.tern;

/** A {@link ServerCall} that forwards every method to another call; override what you need. */
public abstract class ForwardingServerCall<ReqT, RespT> extends ServerCall<ReqT, RespT> {
  /** For subclasses. */
  protected ForwardingServerCall() {}

  /** The call to forward to. */
  protected abstract ServerCall<ReqT, RespT> delegate();

  @Override
  public void request(int numMessages) {
    delegate().request(numMessages);
  }

  @Override
  public void sendHeaders(Metadata headers) {
    delegate().sendHeaders(headers);
  }

  @Override
  public void sendMessage(RespT message) {
    delegate().sendMessage(message);
  }

  @Override
  public boolean isReady() {
    return delegate().isReady();
  }

  @Override
  public void close(Status status, Metadata trailers) {
    delegate().close(status, trailers);
  }

  @Override
  public boolean isCancelled() {
    return delegate().isCancelled();
  }

  @Override
  public void setMessageCompression(boolean enabled) {
    delegate().setMessageCompression(enabled);
  }

  @Override
  public void setCompression(String compressorName) {
    delegate().setCompression(compressorName);
  }

  @Override
  public Attributes getAttributes() {
    return delegate().getAttributes();
  }

  @Override
  public String getAuthority() {
    return delegate().getAuthority();
  }

  @Override
  public MethodDescriptor<ReqT, RespT> getMethodDescriptor() {
    return delegate().getMethodDescriptor();
  }

  /** Forwards to a call given at construction. */
  public abstract static class SimpleForwardingServerCall<ReqT, RespT>
      extends ForwardingServerCall<ReqT, RespT> {
    private final ServerCall<ReqT, RespT> delegate;

    protected SimpleForwardingServerCall(ServerCall<ReqT, RespT> delegate) {
      this.delegate = java.util.Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    protected ServerCall<ReqT, RespT> delegate() {
      return delegate;
    }
  }
}
