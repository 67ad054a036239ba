package dev.tern.internal.channel;

import dev.tern.ClientCall;
import dev.tern.ClientInterceptor;
import dev.tern.CompressorRegistry;
import dev.tern.Deadline;
import dev.tern.DecompressorRegistry;
import dev.tern.LoadBalancerRegistry;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.MetricRecorder;
import dev.tern.NameResolver;
import dev.tern.ProxyDetector;
import dev.tern.Status;
import dev.tern.internal.client.AdaptiveThrottling;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.testing.FakeClock;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** Shared pieces of the client runtime tests: methods, a channel fixture, a recording listener. */
public final class ClientTestSupport {
  private ClientTestSupport() {}

  public static final SocketAddress ADDRESS =
      InetSocketAddress.createUnresolved("test.example", 443);

  /** Marshals strings as UTF-8; parsing a message that starts with "bad" fails. */
  public static final MethodDescriptor.Marshaller<String> STRINGS =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
          if (value.startsWith("unserializable")) {
            throw new IllegalArgumentException("cannot serialize " + value);
          }
          return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
          String text;
          try {
            text = new String(stream.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          if (text.startsWith("bad")) {
            throw new IllegalArgumentException("unparseable response: " + text);
          }
          return text;
        }
      };

  /** A transport listener that ignores everything, for transports a test starts by hand. */
  public static final ManagedClientTransport.Listener IGNORING_TRANSPORT_LISTENER =
      new ManagedClientTransport.Listener() {
        @Override
        public void transportReady() {}

        @Override
        public void transportShutdown(Status status) {}

        @Override
        public void transportTerminated() {}

        @Override
        public void transportInUse(boolean inUse) {}
      };

  public static final MethodDescriptor<String, String> UNARY =
      MethodDescriptor.<String, String>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("test.Echo/Unary")
          .setRequestMarshaller(STRINGS)
          .setResponseMarshaller(STRINGS)
          .build();

  public static final MethodDescriptor<String, String> BIDI =
      MethodDescriptor.<String, String>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName("test.Echo/Bidi")
          .setRequestMarshaller(STRINGS)
          .setResponseMarshaller(STRINGS)
          .build();

  public static final Metadata.Key<String> CUSTOM =
      Metadata.Key.of("x-custom", Metadata.ASCII_STRING_MARSHALLER);

  /** Headers carrying one custom entry, so a test can tell calls apart on the transport. */
  public static Metadata headers(String marker) {
    Metadata headers = new Metadata();
    headers.put(CUSTOM, marker);
    return headers;
  }

  /** Builds a {@link ManagedChannelImpl} over fakes; configure the fields, then {@link #build}. */
  public static final class ChannelFixture {
    final FakeClock clock = new FakeClock();
    final FakeClientTransportFactory factory = new FakeClientTransportFactory(clock);
    Executor executor;
    boolean directExecutor = true;
    List<ClientInterceptor> interceptors = List.of();
    long idleTimeoutNanos = TimeUnit.MINUTES.toNanos(30);
    int maxInboundMessageSize = GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE;
    CompressorRegistry compressorRegistry = CompressorRegistry.getDefaultInstance();
    DecompressorRegistry decompressorRegistry = DecompressorRegistry.getDefaultInstance();
    double jitterRandom = 0.5;
    Function<NameResolver.Args, NameResolver> nameResolverFactory =
        args -> new DirectAddressNameResolver(ADDRESS, "test.example:443");
    String loadBalancingPolicy = "pick_first";
    LoadBalancerRegistry loadBalancerRegistry = LoadBalancerRegistry.getDefaultRegistry();
    ManagedChannelImpl channel;

    ChannelFixture() {
      // A timer task that throws fails the test at the forwardTime that ran it.
      clock.setRethrowTaskFailures(true);
    }

    /** A deadline {@code duration} from now on the fixture's clock. */
    Deadline deadlineAfter(long duration, TimeUnit unit) {
      return Deadline.after(duration, unit, clock.getTicker());
    }

    ServiceConfigOptions serviceConfigOptions = ServiceConfigOptions.DEFAULT;
    ProxyDetector proxyDetector = ProxyDetector.none();
    MetricRecorder metricRecorder = MetricRecorder.none();

    /** The channel's client-side adaptive throttling; null (the default) for none. */
    AdaptiveThrottling adaptiveThrottling;

    /** The resolvers made by {@link #useFakeResolvers}, oldest first. */
    final List<FakeNameResolver> resolvers = new ArrayList<>();

    /** What the fake resolvers' {@code start} throws, if set. */
    RuntimeException resolverStartFailure;

    /** Makes the channel resolve with {@link FakeNameResolver}s, kept in {@link #resolvers}. */
    void useFakeResolvers() {
      nameResolverFactory =
          args -> {
            FakeNameResolver resolver = new FakeNameResolver(resolverStartFailure, args);
            resolvers.add(resolver);
            return resolver;
          };
    }

    /** The fake resolver the channel uses now (the last one it made). */
    FakeNameResolver resolver() {
      return resolvers.get(resolvers.size() - 1);
    }

    ManagedChannelImpl build() {
      channel =
          new ManagedChannelImpl(
              new ChannelConfig(
                  "test-target",
                  nameResolverFactory,
                  443,
                  null,
                  loadBalancingPolicy,
                  loadBalancerRegistry,
                  "tester " + GrpcHeaders.USER_AGENT_TOKEN,
                  factory,
                  executor,
                  directExecutor,
                  interceptors,
                  idleTimeoutNanos,
                  maxInboundMessageSize,
                  compressorRegistry,
                  decompressorRegistry,
                  clock.getTicker(),
                  () -> jitterRandom,
                  serviceConfigOptions,
                  null,
                  proxyDetector,
                  adaptiveThrottling,
                  metricRecorder));
      return channel;
    }

    /** The only transport so far, reported ready. */
    FakeClientTransport readyTransport() {
      FakeClientTransport transport = factory.last();
      transport.ready();
      return transport;
    }
  }

  /**
   * Records a call's events as strings ("headers", "message X", "ready", "close CODE") with the
   * thread each ran on; can be told to throw from one callback. Thread-safe.
   */
  public static final class RecordingListener extends ClientCall.Listener<String> {
    final List<String> events = Collections.synchronizedList(new ArrayList<>());
    final List<Thread> threads = Collections.synchronizedList(new ArrayList<>());
    final CountDownLatch closedLatch = new CountDownLatch(1);
    volatile Status status;
    volatile Metadata trailers;
    volatile String throwIn;
    private volatile boolean inCallback;
    volatile boolean overlapped;

    @Override
    public void onHeaders(Metadata headers) {
      record("headers");
    }

    @Override
    public void onMessage(String message) {
      record("message " + message);
    }

    @Override
    public void onReady() {
      record("ready");
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      this.status = status;
      this.trailers = trailers;
      record("close " + status.getCode());
      closedLatch.countDown();
    }

    private void record(String event) {
      if (inCallback) {
        overlapped = true;
      }
      inCallback = true;
      try {
        events.add(event);
        threads.add(Thread.currentThread());
        String prefix = throwIn;
        if (prefix != null && event.startsWith(prefix)) {
          throw new IllegalStateException("listener failed in " + event);
        }
      } finally {
        inCallback = false;
      }
    }

    List<String> events() {
      synchronized (events) {
        return new ArrayList<>(events);
      }
    }

    boolean isClosed() {
      return status != null;
    }

    long closeCount() {
      return events().stream().filter(e -> e.startsWith("close")).count();
    }
  }
}
