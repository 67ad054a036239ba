package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptor;
import dev.tern.ForwardingChannelBuilder;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.MethodDescriptor;
import dev.tern.testing.EchoService;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Option validation and target parsing of the public builders and providers. */
class NettyBuildersTest {
  @Test
  void everyTargetFormOfTheNamingSpecBuildsWithTheAuthorityItImplies() {
    assertThat(authorityOf("example.com:8443")).isEqualTo("example.com:8443");
    assertThat(authorityOf("dns:///localhost:50051")).isEqualTo("localhost:50051");
    assertThat(authorityOf("[::1]:8080")).isEqualTo("[::1]:8080");
    assertThat(authorityOf("localhost")).isEqualTo("localhost");
    assertThat(authorityOf("ipv4:127.0.0.1:1,127.0.0.2:2")).isEqualTo("127.0.0.1:1");
    assertThat(authorityOf("ipv6:[::1]:5")).isEqualTo("[::1]:5");
  }

  private static String authorityOf(String target) {
    ManagedChannel channel = NettyChannelBuilder.forTarget(target).usePlaintext().build();
    try {
      return channel.authority();
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void anInterceptorMadeForTheTargetGetsItsCanonicalFormAndRunsInItsPlace() {
    assertThat(targetSeenBy(NettyChannelBuilder.forTarget("example.com:8443")))
        .isEqualTo("dns:///example.com:8443");
    assertThat(targetSeenBy(NettyChannelBuilder.forTarget("dns:///localhost:50051")))
        .isEqualTo("dns:///localhost:50051");
    assertThat(targetSeenBy(NettyChannelBuilder.forTarget("ipv4:127.0.0.1:1,127.0.0.2:2")))
        .isEqualTo("ipv4:127.0.0.1:1,127.0.0.2:2");
    assertThat(targetSeenBy(new Forwarding(ManagedChannelBuilder.forAddress("127.0.0.1", 9))))
        .isEqualTo("dns:///127.0.0.1:9");
  }

  /** A builder that forwards everything, as wrappers of builders do. */
  private static final class Forwarding extends ForwardingChannelBuilder<Forwarding> {
    private final ManagedChannelBuilder<?> delegate;

    Forwarding(ManagedChannelBuilder<?> delegate) {
      this.delegate = delegate;
    }

    @Override
    protected ManagedChannelBuilder<?> delegate() {
      return delegate;
    }
  }

  /** The target an interceptWithTarget factory got; checks its interceptor runs between others. */
  private static String targetSeenBy(ManagedChannelBuilder<?> builder) {
    List<String> seen = new ArrayList<>();
    List<String> order = new ArrayList<>();
    ManagedChannel channel =
        builder
            .usePlaintext()
            .intercept(recording(order, "first added"))
            .interceptWithTarget(
                target -> {
                  seen.add(target);
                  return recording(order, "for " + target);
                })
            .intercept(recording(order, "last added"))
            .build();
    try {
      channel.newCall(EchoService.UNARY, CallOptions.DEFAULT);
    } finally {
      channel.shutdownNow();
    }
    assertThat(seen).hasSize(1);
    assertThat(order).containsExactly("last added", "for " + seen.get(0), "first added");
    return seen.get(0);
  }

  private static ClientInterceptor recording(List<String> order, String name) {
    return new ClientInterceptor() {
      @Override
      public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
          MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
        order.add(name);
        return next.newCall(method, callOptions);
      }
    };
  }

  @Test
  void aMalformedTargetFailsTheBuildSayingWhatIsWrongWithIt() {
    assertThat(buildError("host:notaport"))
        .isEqualTo("target 'dns:///host:notaport' has port 'notaport', not a number in 0..65535");
    assertThat(buildError("host:70000"))
        .isEqualTo("target 'dns:///host:70000' has port 70000, beyond 65535");
    assertThat(buildError("::1:80")).contains("IPv6 address without brackets; write [::1:80]");
    assertThat(buildError("dns:///")).isEqualTo("target 'dns:///' names no host");
    assertThat(buildError("ipv4:1.2.3:4")).contains("'1.2.3' is not an ipv4 literal");
    assertThat(buildError("ipv6:127.0.0.1")).contains("'127.0.0.1' is not an ipv6 address");
    assertThat(buildError("ipv4:"))
        .isEqualTo("target 'ipv4:' is not a valid ipv4: URI: nothing after the scheme: ipv4:");
    assertThat(buildError("")).isEqualTo("target must not be empty");
    assertThat(buildError("what ever:1"))
        .isEqualTo("target 'dns:///what ever:1' has the character ' ' in its host 'what ever'");
    assertThat(buildError("xyz://a/b"))
        .isEqualTo(
            "target 'xyz://a/b' has the scheme 'xyz', which no registered name resolver handles"
                + " (known: [dns, inprocess, ipv4, ipv6, unix, unix-abstract])");
    assertThat(buildError("inprocess:name"))
        .isEqualTo(
            "target 'inprocess:name' resolves to [InProcessSocketAddress] addresses, which this"
                + " channel's transport cannot reach (it supports [InetSocketAddress,"
                + " UnixDomainSocketAddress, DomainSocketAddress, HttpConnectProxiedSocketAddress])");
  }

  private static String buildError(String target) {
    NettyChannelBuilder builder = NettyChannelBuilder.forTarget(target).usePlaintext();
    Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(builder::build);
    assertThat(thrown).as(target).isInstanceOf(IllegalArgumentException.class);
    return thrown.getMessage();
  }

  @Test
  void providerLeavesOtherSchemesToOtherTransports() {
    NettyChannelProvider provider = new NettyChannelProvider();
    assertThat(provider.builderForTarget("inprocess:name")).isNull();
    assertThat(provider.builderForTarget("localhost:50051"))
        .isInstanceOf(NettyChannelBuilder.class);
    assertThat(provider.priority()).isGreaterThan(5);
    assertThat(new NettyServerProvider().builderForPort(0)).isInstanceOf(NettyServerBuilder.class);
  }

  /** A channel class Netty cannot make: no public no-argument constructor. */
  private static final class UnmakeableChannel extends NioSocketChannel {
    UnmakeableChannel(int unused) {}
  }

  /** A server channel class Netty cannot make. */
  private static final class UnmakeableServerChannel extends NioServerSocketChannel {
    UnmakeableServerChannel(int unused) {}
  }

  @Test
  void aChannelTypeWithoutAPublicNoArgumentConstructorIsRejectedAtOnce() {
    assertThatThrownBy(
            () ->
                NettyChannelBuilder.forAddress("localhost", 1).channelType(UnmakeableChannel.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("UnmakeableChannel");
    assertThatThrownBy(
            () -> NettyServerBuilder.forPort(0).channelType(UnmakeableServerChannel.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("UnmakeableServerChannel");
  }

  @Test
  void keepAliveTimeBelowTenSecondsIsRaisedToTenSeconds() {
    // gRFC A8: a client must not ping more often than servers are likely to allow.
    assertThat(
            NettyChannelBuilder.forAddress("localhost", 1)
                .keepAliveTime(1, TimeUnit.SECONDS)
                .keepAliveTimeNanosInEffect())
        .isEqualTo(TimeUnit.SECONDS.toNanos(10));
    assertThat(
            NettyChannelBuilder.forAddress("localhost", 1)
                .keepAliveTime(1, TimeUnit.MILLISECONDS)
                .keepAliveTimeNanosInEffect())
        .isEqualTo(TimeUnit.SECONDS.toNanos(10));
    assertThat(
            NettyChannelBuilder.forAddress("localhost", 1)
                .keepAliveTime(30, TimeUnit.SECONDS)
                .keepAliveTimeNanosInEffect())
        .isEqualTo(TimeUnit.SECONDS.toNanos(30));
    assertThat(NettyChannelBuilder.forAddress("localhost", 1).keepAliveTimeNanosInEffect())
        .as("no keepalive by default")
        .isEqualTo(Long.MAX_VALUE);
    assertThat(
            NettyChannelBuilder.forAddress("localhost", 1)
                .keepAliveTime(Long.MAX_VALUE, TimeUnit.SECONDS)
                .keepAliveTimeNanosInEffect())
        .isEqualTo(Long.MAX_VALUE);
    assertThat(
            ((NettyChannelBuilder)
                    ManagedChannelBuilder.forTarget("localhost:1")
                        .keepAliveTime(1000, TimeUnit.DAYS))
                .keepAliveTimeNanosInEffect())
        .as("1,000 days or more: never")
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void serverKeepAliveIsTwoHoursByDefaultAndAtLeastOneSecond() {
    assertThat(NettyServerBuilder.forPort(0).keepAliveTimeNanosInEffect())
        .isEqualTo(TimeUnit.HOURS.toNanos(2));
    assertThat(
            NettyServerBuilder.forPort(0)
                .keepAliveTime(1, TimeUnit.MILLISECONDS)
                .keepAliveTimeNanosInEffect())
        .isEqualTo(TimeUnit.SECONDS.toNanos(1));
    assertThat(
            NettyServerBuilder.forPort(0)
                .keepAliveTime(30, TimeUnit.SECONDS)
                .keepAliveTimeNanosInEffect())
        .isEqualTo(TimeUnit.SECONDS.toNanos(30));
    assertThat(
            NettyServerBuilder.forPort(0)
                .keepAliveTime(Long.MAX_VALUE, TimeUnit.NANOSECONDS)
                .keepAliveTimeNanosInEffect())
        .as("disabled")
        .isEqualTo(Long.MAX_VALUE);
    assertThat(
            NettyServerBuilder.forPort(0)
                .keepAliveTime(5000, TimeUnit.DAYS)
                .keepAliveTimeNanosInEffect())
        .as("disabled")
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void invalidOptionsAreRejectedNamingTheOption() {
    NettyChannelBuilder channel = NettyChannelBuilder.forAddress("localhost", 1);
    assertThatThrownBy(() -> channel.flowControlWindow(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("flowControlWindow");
    assertThatThrownBy(() -> channel.keepAliveTime(0, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keepAliveTime");
    assertThatThrownBy(() -> channel.keepAliveTimeout(-5, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keepAliveTimeout");
    assertThatThrownBy(() -> channel.keepAliveTime(1, null)).hasMessage("unit");
    assertThatThrownBy(() -> channel.connectTimeout(-1, TimeUnit.SECONDS))
        .hasMessageContaining("connectTimeout");
    assertThatThrownBy(() -> NettyChannelBuilder.forAddress("localhost", 65536))
        .hasMessageContaining("port");

    NettyServerBuilder server = NettyServerBuilder.forPort(0);
    assertThatThrownBy(() -> server.maxConcurrentCallsPerConnection(0))
        .hasMessageContaining("maxConcurrentCallsPerConnection");
    assertThatThrownBy(() -> server.maxRstFramesPerWindow(-1, 1, TimeUnit.SECONDS))
        .hasMessageContaining("maxRstFramesPerWindow");
    assertThatThrownBy(() -> server.maxContinuationFrames(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxContinuationFrames");
    assertThatThrownBy(() -> server.handshakeTimeout(0, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("handshakeTimeout");
    assertThatThrownBy(() -> server.maxInboundMetadataSize(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxInboundMetadataSize");
    assertThatThrownBy(() -> server.keepAliveTime(0, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keepAliveTime");
    assertThatThrownBy(() -> server.keepAliveTimeout(-1, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keepAliveTimeout");
    assertThatThrownBy(() -> server.keepAliveTimeout(1, null)).hasMessage("unit");
    assertThatThrownBy(() -> NettyServerBuilder.forPort(-1)).hasMessageContaining("port");
  }

  @Test
  void outboundQueueBoundsBelowTheReadinessThresholdAreRejectedNamingTheOption() {
    NettyServerBuilder server = NettyServerBuilder.forPort(0);
    // Below 32 KiB a call that honours isReady() could be reset: rejected, as is nonsense.
    for (int bad : new int[] {32 * 1024 - 1, 0, -1}) {
      assertThatThrownBy(() -> server.maxQueuedOutboundBytesPerStream(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("maxQueuedOutboundBytesPerStream")
          .hasMessageContaining(String.valueOf(bad));
      assertThatThrownBy(() -> server.maxQueuedOutboundBytesPerConnection(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("maxQueuedOutboundBytesPerConnection")
          .hasMessageContaining(String.valueOf(bad));
    }
    assertThat(server.maxQueuedOutboundBytesPerStream(32 * 1024)).isSameAs(server);
    assertThat(server.maxQueuedOutboundBytesPerConnection(Long.MAX_VALUE)).isSameAs(server);
  }
}
