package dev.tern.web.internal;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrame;
import java.io.ByteArrayOutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A minimal HTTP/2 client with prior knowledge (h2c, as gRPC clients and {@code curl
 * --http2-prior-knowledge} connect), on Netty's frame codec: one request per stream, the response
 * gathered whole. Close it after the test.
 */
final class H2cClient implements AutoCloseable {
  /** A response: its headers and trailers merged, and its body. */
  record Response(Http2Headers headers, byte[] body) {}

  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Channel channel;

  H2cClient(int port) throws InterruptedException {
    channel =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    ch.pipeline()
                        .addLast(
                            Http2FrameCodecBuilder.forClient().build(),
                            new Http2MultiplexHandler(
                                new SimpleChannelInboundHandler<Object>() {
                                  @Override
                                  protected void channelRead0(ChannelHandlerContext ctx, Object m) {
                                    // Pushed streams are not used.
                                  }
                                }));
                  }
                })
            .connect("127.0.0.1", port)
            .sync()
            .channel();
  }

  Response post(String path, String contentType, byte[] body) throws Exception {
    CompletableFuture<Response> result = new CompletableFuture<>();
    Http2Headers merged = new DefaultHttp2Headers();
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    Http2StreamChannel stream =
        new Http2StreamChannelBootstrap(channel)
            .handler(
                new SimpleChannelInboundHandler<Http2StreamFrame>() {
                  @Override
                  protected void channelRead0(ChannelHandlerContext ctx, Http2StreamFrame frame) {
                    boolean end = false;
                    if (frame instanceof Http2HeadersFrame headers) {
                      merged.add(headers.headers());
                      end = headers.isEndStream();
                    } else if (frame instanceof Http2DataFrame d) {
                      ByteBuf content = d.content();
                      byte[] bytes = new byte[content.readableBytes()];
                      content.readBytes(bytes);
                      data.writeBytes(bytes);
                      end = d.isEndStream();
                    }
                    if (end) {
                      result.complete(new Response(merged, data.toByteArray()));
                    }
                  }

                  @Override
                  public void exceptionCaught(ChannelHandlerContext ctx, Throwable t) {
                    result.completeExceptionally(t);
                  }

                  @Override
                  public void channelInactive(ChannelHandlerContext ctx) {
                    result.completeExceptionally(new IllegalStateException("stream closed"));
                  }
                })
            .open()
            .sync()
            .getNow();
    Http2Headers headers =
        new DefaultHttp2Headers().method("POST").scheme("http").path(path).authority("127.0.0.1");
    headers.set("content-type", contentType);
    stream.write(new DefaultHttp2HeadersFrame(headers, false));
    stream.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(body), true));
    return result.get(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
