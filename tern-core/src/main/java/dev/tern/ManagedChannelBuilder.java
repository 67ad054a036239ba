package dev.tern;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Builds a {@link ManagedChannel}. {@link #forTarget} and {@link #forAddress} find a transport
 * through {@link java.util.ServiceLoader} (add {@code tern-netty} to the class path for HTTP/2), so
 * user code need not name a transport class.
 *
 * <p>Not thread-safe: configure from one thread, then {@link #build()}. Invalid arguments throw
 * {@link IllegalArgumentException} naming the option at the setter; combinations are checked by
 * {@link #build()}.
 */
public abstract class ManagedChannelBuilder<T extends ManagedChannelBuilder<T>> {
  /** For subclasses. */
  protected ManagedChannelBuilder() {}

  /**
   * A builder for {@code target}: {@code host:port}, {@code dns:///host:port}, or a form a
   * transport provider understands (e.g. {@code inprocess:name}).
   *
   * @throws IllegalStateException if no transport on the class path accepts the target
   */
  public static ManagedChannelBuilder<?> forTarget(String target) {
    Objects.requireNonNull(target, "target");
    return ManagedChannelProvider.select(p -> p.builderForTarget(target), "target " + target);
  }

  /** A builder for {@code host:port}. */
  public static ManagedChannelBuilder<?> forAddress(String host, int port) {
    Objects.requireNonNull(host, "host");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
    return ManagedChannelProvider.select(
        p -> p.builderForAddress(host, port), "address " + host + ":" + port);
  }

  /**
   * Runs application callbacks directly on the transport thread: the fastest option, for callbacks
   * that never block. Default: a shared work-stealing pool, one worker per core, whose queued
   * callbacks spill to extra threads while blocked callbacks hold every worker.
   */
  public abstract T directExecutor();

  /** The executor for application callbacks; the caller owns it (it is not shut down). */
  public abstract T executor(Executor executor);

  /** Interceptors applied to every call, the last one added running first. */
  public abstract T intercept(List<ClientInterceptor> interceptors);

  /** See {@link #intercept(List)}. */
  public T intercept(ClientInterceptor... interceptors) {
    return intercept(List.of(interceptors));
  }

  /**
   * Adds an interceptor made for the channel's target when the channel is built, in the place an
   * interceptor added now by {@link #intercept(List)} would take. {@code factory} gets the target
   * in its canonical form: with the scheme of the resolver that handles it ({@code
   * "dns:///example.com:443"} for {@code "example.com:443"}), or the transport's name for a direct
   * address ({@code "inprocess:NAME"}). Metrics modules use it to label calls with their channel.
   *
   * @throws UnsupportedOperationException if this builder cannot (builders of Tern's transports
   *     can)
   */
  public T interceptWithTarget(Function<String, ClientInterceptor> factory) {
    throw new UnsupportedOperationException(
        getClass().getName() + " does not support interceptWithTarget");
  }

  /**
   * Traces every attempt of every call made on the channel with a tracer from {@code factory}, as
   * if each call's options had it ({@link CallOptions#withStreamTracerFactory}). It is installed
   * with an interceptor, added like those of {@link #intercept(List)}; channels with no factory pay
   * nothing for tracing.
   */
  public T addStreamTracerFactory(ClientStreamTracer.Factory factory) {
    Objects.requireNonNull(factory, "factory");
    return intercept(
        new ClientInterceptor() {
          @Override
          public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
              MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
            return next.newCall(method, callOptions.withStreamTracerFactory(factory));
          }

          @Override
          public String toString() {
            return "StreamTracerInstaller{" + factory + "}";
          }
        });
  }

  /** Prepended to the framework's own {@code user-agent} value. Default: none. */
  public abstract T userAgent(String userAgent);

  /** Overrides the authority sent with calls (and checked against TLS certificates). */
  public abstract T overrideAuthority(String authority);

  /**
   * After this long with no call in flight the channel drops its connections and becomes IDLE.
   * Default 30 minutes; must be positive; large values disable idle mode.
   */
  public abstract T idleTimeout(long value, TimeUnit unit);

  /**
   * Sends a keepalive PING on a connection when nothing has been read from it for {@code time}
   * (default: never), so that a connection that silently died (a peer or a middlebox gone without a
   * FIN or RST) is noticed: without an answer within {@link #keepAliveTimeout} the connection is
   * closed and its calls fail UNAVAILABLE. By default pings are sent only while calls are open (see
   * {@link #keepAliveWithoutCalls}).
   *
   * <p>gRPC servers refuse pings more frequent than they permit (by default one per 5 minutes),
   * answering GOAWAY(ENHANCE_YOUR_CALM, "too_many_pings"); ask the server's owners before going
   * below that. A network transport raises a time below its minimum to that minimum (gRFC A8; 10
   * seconds for Netty). {@code Long.MAX_VALUE}, or any time of 1,000 days or more, disables
   * keepalive.
   *
   * <p>This implementation checks the arguments and ignores the setting, which is what a transport
   * without a network does (in-process: its connections cannot vanish). Network transports override
   * it: with tern-netty on the class path, the builders that {@link #forTarget}, {@link
   * #forAddress} and {@link Grpc#newChannelBuilder} return honour it.
   *
   * @throws IllegalArgumentException if {@code time} is not positive
   */
  public T keepAliveTime(long time, TimeUnit unit) {
    Objects.requireNonNull(unit, "unit");
    if (time <= 0) {
      throw new IllegalArgumentException("keepAliveTime must be positive: " + time + " " + unit);
    }
    return self();
  }

  /**
   * How long to wait, after a keepalive PING, for the peer to show it is alive (the PING's
   * acknowledgement or any other frame) before closing the connection (default 20 seconds). Applies
   * only with {@link #keepAliveTime}. Like it, checked and ignored by this implementation and
   * honoured by network transports.
   *
   * @throws IllegalArgumentException if {@code timeout} is not positive
   */
  public T keepAliveTimeout(long timeout, TimeUnit unit) {
    Objects.requireNonNull(unit, "unit");
    if (timeout <= 0) {
      throw new IllegalArgumentException(
          "keepAliveTimeout must be positive: " + timeout + " " + unit);
    }
    return self();
  }

  /**
   * Whether keepalive PINGs are sent also while the connection carries no call (default false: an
   * idle connection is not probed). Servers refuse such pings unless they permit them ({@code
   * permitKeepAliveWithoutCalls} on Tern's and grpc-java's servers). Applies only with {@link
   * #keepAliveTime}; ignored by this implementation, honoured by network transports.
   */
  public T keepAliveWithoutCalls(boolean enable) {
    return self();
  }

  @SuppressWarnings("unchecked") // T is this class's own type parameter, bound to the subclass
  private T self() {
    return (T) this;
  }

  /** Largest response message accepted; larger ones fail RESOURCE_EXHAUSTED. Default 4 MiB. */
  public abstract T maxInboundMessageSize(int bytes);

  /** Largest response header/trailer list accepted. Default 8 KiB. */
  public abstract T maxInboundMetadataSize(int bytes);

  /** Connect without TLS (HTTP/2 with prior knowledge). */
  public abstract T usePlaintext();

  /** Connect with TLS (the default for network transports). */
  public abstract T useTransportSecurity();

  /** Default compressor registry and decompressors can be replaced for tests or custom codecs. */
  public abstract T compressorRegistry(CompressorRegistry registry);

  /** See {@link #compressorRegistry}. */
  public abstract T decompressorRegistry(DecompressorRegistry registry);

  /**
   * The registry in which the target's scheme is looked up (default: {@link
   * NameResolverRegistry#getDefaultRegistry()}).
   */
  public abstract T nameResolverRegistry(NameResolverRegistry registry);

  /**
   * The registry in which load-balancing policies are looked up by name: {@link
   * #defaultLoadBalancingPolicy}, the {@code loadBalancingConfig} of the {@link
   * #defaultServiceConfig} (checked again against this registry if it was set first) and of the
   * resolver's service configs (default: {@link LoadBalancerRegistry#getDefaultRegistry()}).
   */
  public abstract T loadBalancerRegistry(LoadBalancerRegistry registry);

  /**
   * The load-balancing policy until a service config names one: {@code pick_first} (the default:
   * one server at a time), {@code round_robin} (every server in turn), {@code least_request} (the
   * less busy of two random servers), or one registered in {@link LoadBalancerRegistry}.
   */
  public abstract T defaultLoadBalancingPolicy(String policy);

  /**
   * The service config used when the name resolver provides none, or always with {@link
   * #disableServiceConfigLookUp()}: method configs (timeout, wait-for-ready, message limits, retry
   * or hedging policy), the load-balancing config and retry throttling, as JSON-like maps (lists,
   * strings, numbers, booleans). Null clears it.
   *
   * @throws IllegalArgumentException if the config is invalid; the message names the field
   */
  public abstract T defaultServiceConfig(Map<String, ?> serviceConfig);

  /**
   * {@link #defaultServiceConfig(Map)} from JSON text, e.g. {@code {"methodConfig": [...]}}.
   *
   * @throws IllegalArgumentException if the JSON is malformed or the config invalid
   */
  public abstract T defaultServiceConfigJson(String json);

  /** Ignores service configs from the name resolver (the default config, if any, applies). */
  public abstract T disableServiceConfigLookUp();

  /** Applies retry and hedging policies from the service config (the default). */
  public abstract T enableRetry();

  /**
   * Ignores retry and hedging policies, for callers that retry by themselves. Transparent retries
   * (of calls no server processed) still happen.
   */
  public abstract T disableRetry();

  /** The most attempts a retry policy may make, whatever it asks for (default 5). */
  public abstract T maxRetryAttempts(int maxAttempts);

  /** The most attempts a hedging policy may make, whatever it asks for (default 5). */
  public abstract T maxHedgedAttempts(int maxAttempts);

  /** Bytes of request messages the channel keeps for retries and hedges (default 16 MiB). */
  public abstract T retryBufferSize(long bytes);

  /** Bytes of request messages one call keeps for retries and hedges (default 1 MiB). */
  public abstract T perRpcBufferLimit(long bytes);

  /**
   * Turns on client-side adaptive throttling (the Google SRE book's): for each backend (each
   * subchannel), the channel counts over the last two minutes the calls it meant to send there and
   * those the backend accepted, and fails a new call at once, without sending it, with probability
   * {@code max(0, (requests - k * accepts) / (requests + 1))}. Such a call ends RESOURCE_EXHAUSTED,
   * its description starting "client-side throttling:", and is neither retried nor hedged. A call
   * the backend ended RESOURCE_EXHAUSTED, or UNAVAILABLE with {@code grpc-retry-pushback-ms}, is
   * not accepted; every other call it answered is. Off by default, as in grpc-java: a backend that
   * answers RESOURCE_EXHAUSTED for one user's quota would get every user's calls throttled. With it
   * off, calls pay nothing for it.
   *
   * @param k how many calls per accepted call the channel sends before throttling: 2 is the SRE
   *     book's choice; larger lets more calls through to a refusing backend (more load on it, fewer
   *     calls failed by the client), 1 throttles as soon as any call is refused
   * @throws IllegalArgumentException if {@code k} is less than 1, infinite or NaN
   */
  public abstract T adaptiveThrottling(double k);

  /**
   * Whom the channel asks whether to reach a server through an HTTP CONNECT proxy (gRFC A1; see
   * {@link ProxyDetector}). Default: the environment's {@code HTTPS_PROXY} (or {@code https_proxy})
   * with {@code NO_PROXY} (or {@code no_proxy}), else the JVM's {@link java.net.ProxySelector}
   * asked for {@code https://host:port} (which honours {@code https.proxyHost}, {@code
   * https.proxyPort} and {@code http.nonProxyHosts}), with Basic credentials from the proxy URL or
   * {@link java.net.Authenticator}; loopback targets are never proxied by default. {@link
   * ProxyDetector#none()} turns proxies off. A channel built for one socket address ({@code
   * forAddress(SocketAddress)}) has no name to resolve and never asks.
   *
   * @throws UnsupportedOperationException if this builder's transport cannot tunnel (builders of
   *     Tern's network transports can)
   */
  public T proxyDetector(ProxyDetector proxyDetector) {
    throw new UnsupportedOperationException(
        getClass().getName() + " does not support proxyDetector");
  }

  /**
   * Sends the channel's non-per-call metrics (gRFC A79: its subchannels' connections, its
   * balancer's and xDS client's instruments of {@link MetricInstruments}) to {@code sink} as well;
   * tern-opentelemetry's {@code configureChannelBuilder} adds its own. A channel with no sink
   * records nothing.
   *
   * @throws UnsupportedOperationException if this builder cannot (builders of Tern's transports
   *     can)
   */
  public T addMetricSink(MetricSink sink) {
    throw new UnsupportedOperationException(
        getClass().getName() + " does not support addMetricSink");
  }

  /**
   * Records the calls made on the channel in {@code binaryLog}, below the interceptors (the log
   * sees what they send); null (the default) records nothing. The channel does not close the log.
   *
   * @throws UnsupportedOperationException if this builder has no binary log support
   */
  public T setBinaryLog(BinaryLog binaryLog) {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " does not support binary logs");
  }

  /**
   * Builds the channel. It resolves its target and connects lazily, on the first call or state
   * request.
   *
   * @throws IllegalArgumentException if the target is malformed or its scheme unknown; the message
   *     says what is wrong with it
   */
  public abstract ManagedChannel build();
}
