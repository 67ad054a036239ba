package dev.tern.netty.internal.server;

import dev.tern.netty.internal.buffer.NettyWritableBufferAllocator;
import dev.tern.netty.internal.exchange.HttpProtocols;
import dev.tern.netty.internal.http2.Http2Limits;
import dev.tern.netty.internal.write.OutboundFramer;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The settings every connection of one server shares. Immutable but for what its connections share
 * through it: the engine's limits (made once, at the first engine connection) and the cache of
 * method names ({@link MethodNames}); thread-safe.
 *
 * @see dev.tern.netty.NettyServerBuilder for what each option means and its default
 */
public final class ServerOptions {
  /** Default time given to a PING ack during a graceful shutdown: 5 seconds. */
  public static final long DEFAULT_GRACE_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(5);

  /**
   * Default bound on the calls one connection carries at once (HTTP/2
   * SETTINGS_MAX_CONCURRENT_STREAMS advertised to clients): 1,000. Clients queue calls beyond it
   * (Tern's, grpc-java's, grpc-go's and C-core's all do), so the bound costs throughput only when a
   * single connection wants more than that in flight: ten times the deepest pipeline Tern's
   * benchmarks drive per connection (100 streams each on 4 connections) and the 100 outstanding
   * calls gRPC's qps tools use per channel. grpc-go's 100 would throttle those; no bound at all
   * (grpc-java's default) lets one connection make the server hold as many calls, with their
   * buffers and application work, as it cares to open (20,000 streams that never sent their request
   * held 28 MB of heap).
   */
  public static final int DEFAULT_MAX_CONCURRENT_CALLS_PER_CONNECTION = 1_000;

  /** Default flow-control window: 1 MiB. */
  public static final int DEFAULT_FLOW_CONTROL_WINDOW = 1024 * 1024;

  /** Default bound on RST_STREAM frames per window (Netty's default against rapid reset). */
  public static final int DEFAULT_MAX_RST_FRAMES_PER_WINDOW = 200;

  /** Default window for {@link #DEFAULT_MAX_RST_FRAMES_PER_WINDOW}: 30 seconds. */
  public static final long DEFAULT_RST_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(30);

  /** Default shortest interval between client keepalive PINGs the server accepts: 5 minutes. */
  public static final long DEFAULT_PERMIT_KEEPALIVE_TIME_NANOS = TimeUnit.MINUTES.toNanos(5);

  /** Default time without reads after which the server pings a client: 2 hours (gRFC A8). */
  public static final long DEFAULT_KEEPALIVE_TIME_NANOS = TimeUnit.HOURS.toNanos(2);

  /** Default time the server waits for the answer to its keepalive PING: 20 seconds. */
  public static final long DEFAULT_KEEPALIVE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(20);

  /**
   * Default bound on response bytes one stream may have waiting for a client that does not read
   * them, checked when the application writes although the stream is not ready: 8 MiB.
   */
  public static final int DEFAULT_MAX_QUEUED_OUTBOUND_BYTES_PER_STREAM = 8 * 1024 * 1024;

  /**
   * Default bound on response bytes waiting on one connection, all its streams together: 64 MiB.
   */
  public static final long DEFAULT_MAX_QUEUED_OUTBOUND_BYTES_PER_CONNECTION = 64L * 1024 * 1024;

  /**
   * The least either outbound bound may be: the queued bytes below which a stream reports ready, so
   * an application that honours {@code isReady()} never meets them.
   */
  public static final int MIN_MAX_QUEUED_OUTBOUND_BYTES = OutboundFramer.READY_THRESHOLD;

  /**
   * Default bound on the CONTINUATION frames one header block may take: 512. Netty's default of 16
   * refused ordinary senders that split a few KiB of metadata into small frames; 512 takes a block
   * of the header-list limit in 256-byte frames several times over, while a flood of empty
   * CONTINUATIONs (which the header-list limit never stops, since they add no bytes) is still cut
   * off within about 4.5 KiB of frames.
   */
  public static final int DEFAULT_MAX_CONTINUATION_FRAMES = 512;

  private final HttpProtocols httpProtocols;
  private final int flowControlWindow;
  private final int maxInboundMessageSize;
  private final int maxInboundMetadataSize;
  private final int maxConcurrentCallsPerConnection;
  private final long gracePeriodNanos;
  private final int maxRstFramesPerWindow;
  private final long rstWindowNanos;
  private final SslContext sslContext;
  private final long permitKeepAliveTimeNanos;
  private final boolean permitKeepAliveWithoutCalls;
  private final long keepAliveTimeNanos;
  private final long keepAliveTimeoutNanos;
  private final long maxConnectionIdleNanos;
  private final long maxConnectionAgeNanos;
  private final long maxConnectionAgeGraceNanos;
  private final int maxQueuedOutboundBytesPerStream;
  private final long maxQueuedOutboundBytesPerConnection;
  private final int maxContinuationFrames;
  private final long settingsAckTimeoutNanos;

  /** How long a client may take to acknowledge the engine's SETTINGS, by default. */
  public static final long DEFAULT_SETTINGS_ACK_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final NettyWritableBufferAllocator bufferAllocator =
      new NettyWritableBufferAllocator(ByteBufAllocator.DEFAULT);

  /**
   * {@link ServerLimits#of} these options, made at the first engine connection and shared by all
   * (immutable, so a race at most makes it twice).
   */
  private volatile Http2Limits engineLimits;

  private final MethodNames methodNames = new MethodNames();

  /** The {@code alt-svc} value response headers carry (HTTP/3 on), or null; set once bound. */
  private volatile byte[] altSvc;

  /**
   * See {@link dev.tern.netty.NettyServerBuilder} for each value. {@code sslContext} is a server
   * context negotiating {@code h2} by ALPN, or null for plaintext; each connection limit, and the
   * keepalive time, is {@code Long.MAX_VALUE} to disable it.
   *
   * @throws IllegalArgumentException if {@code sslContext} is a client context
   */
  public ServerOptions(
      int flowControlWindow,
      int maxInboundMessageSize,
      int maxInboundMetadataSize,
      int maxConcurrentCallsPerConnection,
      long gracePeriodNanos,
      int maxRstFramesPerWindow,
      long rstWindowNanos,
      SslContext sslContext,
      long permitKeepAliveTimeNanos,
      boolean permitKeepAliveWithoutCalls,
      long keepAliveTimeNanos,
      long keepAliveTimeoutNanos,
      long maxConnectionIdleNanos,
      long maxConnectionAgeNanos,
      long maxConnectionAgeGraceNanos,
      int maxQueuedOutboundBytesPerStream,
      long maxQueuedOutboundBytesPerConnection,
      int maxContinuationFrames,
      HttpProtocols httpProtocols,
      long settingsAckTimeoutNanos) {
    if (sslContext != null && sslContext.isClient()) {
      throw new IllegalArgumentException("sslContext must be a server context");
    }
    this.flowControlWindow = flowControlWindow;
    this.maxInboundMessageSize = maxInboundMessageSize;
    this.maxInboundMetadataSize = maxInboundMetadataSize;
    this.maxConcurrentCallsPerConnection = maxConcurrentCallsPerConnection;
    this.gracePeriodNanos = gracePeriodNanos;
    this.maxRstFramesPerWindow = maxRstFramesPerWindow;
    this.rstWindowNanos = rstWindowNanos;
    this.sslContext = sslContext;
    this.permitKeepAliveTimeNanos = permitKeepAliveTimeNanos;
    this.permitKeepAliveWithoutCalls = permitKeepAliveWithoutCalls;
    this.keepAliveTimeNanos = keepAliveTimeNanos;
    this.keepAliveTimeoutNanos = keepAliveTimeoutNanos;
    this.maxConnectionIdleNanos = maxConnectionIdleNanos;
    this.maxConnectionAgeNanos = maxConnectionAgeNanos;
    this.maxConnectionAgeGraceNanos = maxConnectionAgeGraceNanos;
    this.maxQueuedOutboundBytesPerStream = maxQueuedOutboundBytesPerStream;
    this.maxQueuedOutboundBytesPerConnection = maxQueuedOutboundBytesPerConnection;
    this.maxContinuationFrames = maxContinuationFrames;
    this.httpProtocols = Objects.requireNonNull(httpProtocols, "httpProtocols");
    this.settingsAckTimeoutNanos = settingsAckTimeoutNanos;
  }

  /** The defaults of everything but the limits the runtime sets: for tests of the SPI. */
  public static ServerOptions withLimits(int maxInboundMessageSize, int maxInboundMetadataSize) {
    return new ServerOptions(
        DEFAULT_FLOW_CONTROL_WINDOW,
        maxInboundMessageSize,
        maxInboundMetadataSize,
        DEFAULT_MAX_CONCURRENT_CALLS_PER_CONNECTION,
        DEFAULT_GRACE_PERIOD_NANOS,
        DEFAULT_MAX_RST_FRAMES_PER_WINDOW,
        DEFAULT_RST_WINDOW_NANOS,
        null,
        DEFAULT_PERMIT_KEEPALIVE_TIME_NANOS,
        false,
        DEFAULT_KEEPALIVE_TIME_NANOS,
        DEFAULT_KEEPALIVE_TIMEOUT_NANOS,
        Long.MAX_VALUE,
        Long.MAX_VALUE,
        Long.MAX_VALUE,
        DEFAULT_MAX_QUEUED_OUTBOUND_BYTES_PER_STREAM,
        DEFAULT_MAX_QUEUED_OUTBOUND_BYTES_PER_CONNECTION,
        DEFAULT_MAX_CONTINUATION_FRAMES,
        HttpProtocols.NONE,
        DEFAULT_SETTINGS_ACK_TIMEOUT_NANOS);
  }

  /** How long the client may take to acknowledge the server's SETTINGS. */
  long settingsAckTimeoutNanos() {
    return settingsAckTimeoutNanos;
  }

  /** The protocols served beside gRPC. */
  HttpProtocols httpProtocols() {
    return httpProtocols;
  }

  public int maxQueuedOutboundBytesPerStream() {
    return maxQueuedOutboundBytesPerStream;
  }

  public long maxQueuedOutboundBytesPerConnection() {
    return maxQueuedOutboundBytesPerConnection;
  }

  int maxContinuationFrames() {
    return maxContinuationFrames;
  }

  public long maxConnectionIdleNanos() {
    return maxConnectionIdleNanos;
  }

  public long maxConnectionAgeNanos() {
    return maxConnectionAgeNanos;
  }

  public long maxConnectionAgeGraceNanos() {
    return maxConnectionAgeGraceNanos;
  }

  long permitKeepAliveTimeNanos() {
    return permitKeepAliveTimeNanos;
  }

  boolean permitKeepAliveWithoutCalls() {
    return permitKeepAliveWithoutCalls;
  }

  long keepAliveTimeNanos() {
    return keepAliveTimeNanos;
  }

  long keepAliveTimeoutNanos() {
    return keepAliveTimeoutNanos;
  }

  SslContext sslContext() {
    return sslContext;
  }

  public int maxRstFramesPerWindow() {
    return maxRstFramesPerWindow;
  }

  public long rstWindowNanos() {
    return rstWindowNanos;
  }

  int flowControlWindow() {
    return flowControlWindow;
  }

  public int maxInboundMessageSize() {
    return maxInboundMessageSize;
  }

  public int maxInboundMetadataSize() {
    return maxInboundMetadataSize;
  }

  public int maxConcurrentCallsPerConnection() {
    return maxConcurrentCallsPerConnection;
  }

  public long gracePeriodNanos() {
    return gracePeriodNanos;
  }

  /** The limits of this server's connections on Tern's HTTP/2 engine, one object for them all. */
  Http2Limits engineLimits() {
    Http2Limits limits = engineLimits;
    if (limits == null) {
      limits = ServerLimits.of(this);
      engineLimits = limits;
    }
    return limits;
  }

  /**
   * From now on response headers advertise HTTP/3 on UDP {@code port} ({@code alt-svc: h3=":port"},
   * RFC 7838), so that clients that speak it may switch.
   */
  void advertiseHttp3(int port) {
    altSvc = ("h3=\":" + port + "\"").getBytes(StandardCharsets.US_ASCII);
  }

  /** {@code responseFields} with the {@code alt-svc} field added when HTTP/3 is advertised. */
  byte[][] withAltSvc(byte[][] responseFields) {
    byte[] value = altSvc;
    if (value == null) {
      return responseFields;
    }
    byte[][] fields = Arrays.copyOf(responseFields, responseFields.length + 2);
    fields[responseFields.length] = ALT_SVC;
    fields[responseFields.length + 1] = value;
    return fields;
  }

  private static final byte[] ALT_SVC = "alt-svc".getBytes(StandardCharsets.US_ASCII);

  /** The method names of this server's calls by path, one cache for all its connections. */
  public MethodNames methodNames() {
    return methodNames;
  }

  public NettyWritableBufferAllocator bufferAllocator() {
    return bufferAllocator;
  }
}
