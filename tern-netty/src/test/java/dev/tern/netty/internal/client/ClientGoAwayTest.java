package dev.tern.netty.internal.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.netty.internal.io.EventLoops;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import dev.tern.testing.RecordingClientStreamListener;
import dev.tern.testing.RecordingClientStreamListener.Closed;
import dev.tern.testing.RecordingTransportListener;
import dev.tern.testing.TestMarshallers;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client's side of GOAWAY, against a plain Netty HTTP/2 server that answers a second stream
 * with a GOAWAY naming the first as the last: the first stream still completes, the second fails
 * UNAVAILABLE as REFUSED (safe to retry), the transport stops taking streams and closes once idle.
 */
class ClientGoAwayTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  private MultiThreadIoEventLoopGroup group;
  private Channel serverChannel;
  private NettyClientTransport client;
  private final RecordingTransportListener clientListener = new RecordingTransportListener();

  /**
   * Answers the second stream with a GOAWAY naming the first as the last it takes, then completes
   * the first with an OK Trailers-Only.
   */
  private static final class GoAwayOnSecondStream extends Http2FrameAdapter {
    Http2ConnectionHandler handler;
    int firstStreamId;

    @Override
    public void onHeadersRead(
        ChannelHandlerContext ctx,
        int streamId,
        Http2Headers headers,
        int streamDependency,
        short weight,
        boolean exclusive,
        int padding,
        boolean endOfStream) {
      if (firstStreamId == 0) {
        firstStreamId = streamId;
      } else if (streamId != firstStreamId) {
        handler.goAway(
            ctx,
            firstStreamId,
            Http2Error.NO_ERROR.code(),
            Unpooled.EMPTY_BUFFER,
            ctx.newPromise());
        Http2Headers trailersOnly =
            new DefaultHttp2Headers()
                .status("200")
                .add("content-type", "application/grpc")
                .add("grpc-status", "0");
        handler.encoder().writeHeaders(ctx, firstStreamId, trailersOnly, 0, true, ctx.newPromise());
        ctx.flush();
      }
    }

    @Override
    public int onDataRead(
        ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
      return data.readableBytes() + padding;
    }
  }

  @BeforeEach
  void start() throws Exception {
    group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("goaway-server", true), NioIoHandler.newFactory());
    serverChannel =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    GoAwayOnSecondStream listener = new GoAwayOnSecondStream();
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
    InetSocketAddress address = (InetSocketAddress) serverChannel.localAddress();
    client =
        new NettyClientTransport(
            address,
            "127.0.0.1:" + address.getPort(),
            "tern-test",
            new NettyClientTransport.TransportOptions(
                EventLoops.sharedWorkerGroup(),
                EventLoops.clientChannelFactory(EventLoops.sharedWorkerGroup()),
                NettyChannelBuilder.DEFAULT_FLOW_CONTROL_WINDOW,
                GrpcHeaders.DEFAULT_MAX_HEADER_LIST_SIZE,
                10_000));
    client.start(clientListener);
    clientListener.awaitReady();
  }

  @AfterEach
  void stop() throws Exception {
    client.shutdownNow(Status.UNAVAILABLE.withDescription("test finished"));
    clientListener.awaitTerminated();
    serverChannel.close().sync();
    group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
    assertThat(clientListener.violations()).isEmpty();
  }

  private RecordingClientStreamListener startStream() {
    ClientStream stream =
        client.newStream(dev.tern.testing.EchoService.UNARY, new Metadata(), CallOptions.DEFAULT);
    RecordingClientStreamListener listener = new RecordingClientStreamListener();
    stream.start(listener);
    stream.writeMessage(TestMarshallers.utf8().stream("hello"));
    stream.flush();
    return listener;
  }

  @Test
  void streamsAboveTheLastStreamIdAreRefusedAndTheOthersFinish() {
    RecordingClientStreamListener first = startStream();
    RecordingClientStreamListener second = startStream();

    Closed refused = second.awaitClosed();
    assertThat(refused.status().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(refused.progress()).isEqualTo(RpcProgress.REFUSED);

    Closed finished = first.awaitClosed();
    assertThat(finished.status().getCode()).as("%s", finished.status()).isEqualTo(Status.Code.OK);
    assertThat(finished.progress()).isEqualTo(RpcProgress.PROCESSED);

    Status shutdown = clientListener.awaitShutdown();
    assertThat(shutdown.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(shutdown.getDescription()).contains("GOAWAY");

    // No new streams on this connection; it closes by itself now that it is idle.
    RecordingClientStreamListener late = startStream();
    Closed dropped = late.awaitClosed();
    assertThat(dropped.status().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(dropped.progress()).isEqualTo(RpcProgress.DROPPED);
    clientListener.awaitTerminated();
  }
}
