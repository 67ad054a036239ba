package dev.tern;

import java.io.File;
import java.io.InputStream;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * A server builder that hands every option of {@link ServerBuilder} to another builder, {@link
 * #delegate()}, and returns itself for chaining. Transports build their public builders on it
 * (adding their own options) around the runtime's builder, and applications can use it to wrap a
 * builder they are given.
 *
 * <p>Not thread-safe, like every builder: configure from one thread, then {@link #build()}.
 *
 * @param <T> the concrete builder type, returned by the option methods
 */
public abstract class ForwardingServerBuilder<T extends ForwardingServerBuilder<T>>
    extends ServerBuilder<T> {

  /** For subclasses. */
  protected ForwardingServerBuilder() {}

  /** The builder every option is handed to; the same one on every call. */
  protected abstract ServerBuilder<?> delegate();

  /** Returns this builder as its concrete type. */
  @SuppressWarnings("unchecked") // T is this class's own type parameter, bound to the subclass
  protected final T thisT() {
    return (T) this;
  }

  @Override
  public T addService(ServerServiceDefinition service) {
    delegate().addService(service);
    return thisT();
  }

  @Override
  public T addService(BindableService service) {
    delegate().addService(service);
    return thisT();
  }

  @Override
  public T fallbackHandlerRegistry(HandlerRegistry registry) {
    delegate().fallbackHandlerRegistry(registry);
    return thisT();
  }

  @Override
  public T executor(Executor executor) {
    delegate().executor(executor);
    return thisT();
  }

  @Override
  public T directExecutor() {
    delegate().directExecutor();
    return thisT();
  }

  @Override
  public T nonBlocking(String fullServiceOrMethodName) {
    delegate().nonBlocking(fullServiceOrMethodName);
    return thisT();
  }

  @Override
  public T intercept(ServerInterceptor interceptor) {
    delegate().intercept(interceptor);
    return thisT();
  }

  @Override
  public T addTransportFilter(ServerTransportFilter filter) {
    delegate().addTransportFilter(filter);
    return thisT();
  }

  @Override
  public T maxInboundMessageSize(int bytes) {
    delegate().maxInboundMessageSize(bytes);
    return thisT();
  }

  @Override
  public T maxInboundMetadataSize(int bytes) {
    delegate().maxInboundMetadataSize(bytes);
    return thisT();
  }

  @Override
  public T handshakeTimeout(long timeout, TimeUnit unit) {
    delegate().handshakeTimeout(timeout, unit);
    return thisT();
  }

  @Override
  public T compressorRegistry(CompressorRegistry registry) {
    delegate().compressorRegistry(registry);
    return thisT();
  }

  @Override
  public T decompressorRegistry(DecompressorRegistry registry) {
    delegate().decompressorRegistry(registry);
    return thisT();
  }

  @Override
  public T useTransportSecurity(File certChain, File privateKey) {
    delegate().useTransportSecurity(certChain, privateKey);
    return thisT();
  }

  @Override
  public T useTransportSecurity(InputStream certChain, InputStream privateKey) {
    delegate().useTransportSecurity(certChain, privateKey);
    return thisT();
  }

  @Override
  public T addStreamTracerFactory(ServerStreamTracer.Factory factory) {
    delegate().addStreamTracerFactory(factory);
    return thisT();
  }

  @Override
  public T maxConcurrentCalls(int max) {
    delegate().maxConcurrentCalls(max);
    return thisT();
  }

  @Override
  public T overloadRetryPushback(long millis) {
    delegate().overloadRetryPushback(millis);
    return thisT();
  }

  @Override
  public T adaptiveConcurrencyLimit(boolean enabled) {
    delegate().adaptiveConcurrencyLimit(enabled);
    return thisT();
  }

  @Override
  public T adaptiveConcurrencyLimitPerMethod(boolean perMethod) {
    delegate().adaptiveConcurrencyLimitPerMethod(perMethod);
    return thisT();
  }

  @Override
  public T setBinaryLog(BinaryLog binaryLog) {
    delegate().setBinaryLog(binaryLog);
    return thisT();
  }

  @Override
  public Server build() {
    return delegate().build();
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{delegate=" + delegate() + "}";
  }
}
