package dev.tern.netty.internal.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.netty.internal.io.EventLoops;
import dev.tern.testing.RecordingTransportListener;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * gRFC A8 on the client: a server that answers a keepalive PING with GOAWAY(ENHANCE_YOUR_CALM,
 * "too_many_pings") makes the channel's later connections use twice the keepalive time.
 */
class KeepAliveBackoffTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  private MultiThreadIoEventLoopGroup group;
  private Channel serverChannel;

  /** Says too_many_pings to every PING. */
  private static final class TooManyPings extends Http2FrameAdapter {
    Http2ConnectionHandler handler;

    @Override
    public void onPingRead(ChannelHandlerContext ctx, long data) {
      handler.goAway(
          ctx,
          0,
          Http2Error.ENHANCE_YOUR_CALM.code(),
          Unpooled.copiedBuffer("too_many_pings", StandardCharsets.US_ASCII),
          ctx.newPromise());
      ctx.flush();
    }
  }

  @BeforeEach
  void startServer() throws Exception {
    group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("too-many-pings", true), NioIoHandler.newFactory());
    serverChannel =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    TooManyPings listener = new TooManyPings();
                    listener.handler =
                        new Http2ConnectionHandlerBuilder()
                            .server(true)
                            .frameListener(listener)
                            .build();
                    ch.pipeline().addLast(listener.handler);
                  }
                })
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .sync()
            .channel();
  }

  @AfterEach
  void stopServer() throws Exception {
    serverChannel.close().sync();
    group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
  }

  /** Connects with {@code options} until the server says too_many_pings; returns what it said. */
  private Status connectUntilTooManyPings(NettyClientTransport.TransportOptions options) {
    InetSocketAddress address = (InetSocketAddress) serverChannel.localAddress();
    NettyClientTransport client =
        new NettyClientTransport(address, "127.0.0.1:" + address.getPort(), "tern-test", options);
    RecordingTransportListener listener = new RecordingTransportListener();
    client.start(listener);
    try {
      listener.awaitReady();
      return listener.awaitShutdown();
    } finally {
      client.shutdownNow(Status.UNAVAILABLE.withDescription("test finished"));
      listener.awaitTerminated();
      assertThat(listener.violations()).isEmpty();
    }
  }

  @Test
  void eachTooManyPingsDoublesTheChannelsKeepAliveTime() {
    long initial = TimeUnit.MILLISECONDS.toNanos(20);
    NettyClientTransport.TransportOptions options =
        new NettyClientTransport.TransportOptions(
                EventLoops.sharedWorkerGroup(),
                EventLoops.clientChannelFactory(EventLoops.sharedWorkerGroup()),
                NettyChannelBuilder.DEFAULT_FLOW_CONTROL_WINDOW,
                GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE,
                10_000)
            .withKeepAlive(initial, TimeUnit.SECONDS.toNanos(10), true);

    Status first = connectUntilTooManyPings(options);
    assertThat(first.getDescription()).contains("ENHANCE_YOUR_CALM").contains("too_many_pings");
    assertThat(options.keepAliveTimeNanos()).isEqualTo(2 * initial);

    // The next connection of the channel starts with the doubled time, and doubles it again.
    Status second = connectUntilTooManyPings(options);
    assertThat(second.getDescription()).contains("too_many_pings");
    assertThat(options.keepAliveTimeNanos()).isEqualTo(4 * initial);
  }
}
