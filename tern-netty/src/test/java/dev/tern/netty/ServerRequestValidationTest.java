package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.Status;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.testing.Await;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Requests that are not valid gRPC get a plain HTTP answer with a gRPC status and END_STREAM (and a
 * short text body when they are not gRPC at all), from a real server, seen by a plain Netty HTTP/2
 * client.
 */
class ServerRequestValidationTest {
  /** Fails a test whose buffers Netty's (paranoid) leak detector reports. */
  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private final Map<Integer, CompletableFuture<Http2Headers>> responses = new ConcurrentHashMap<>();

  /** The first HEADERS of each response, and the text of its DATA frames. */
  private final Map<Integer, Http2Headers> responseHeaders = new ConcurrentHashMap<>();

  private final Map<Integer, StringBuffer> bodies = new ConcurrentHashMap<>();
  private MultiThreadIoEventLoopGroup group;
  private Server server;
  private Channel channel;
  private Http2ConnectionHandler handler;

  @BeforeEach
  void connect() throws Exception {
    server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(EchoService.definition())
                .build());
    server.start();
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("validation-client", true), NioIoHandler.newFactory());
    handler =
        new Http2ConnectionHandlerBuilder()
            .server(false)
            // Sends oversized headers on purpose, whatever the server advertises.
            .encoderIgnoreMaxHeaderListSize(true)
            .frameListener(
                new Http2FrameAdapter() {
                  @Override
                  public void onHeadersRead(
                      ChannelHandlerContext ctx,
                      int streamId,
                      Http2Headers headers,
                      int padding,
                      boolean endOfStream) {
                    Http2Headers first = responseHeaders.computeIfAbsent(streamId, id -> headers);
                    if (endOfStream) {
                      responses
                          .computeIfAbsent(streamId, id -> new CompletableFuture<>())
                          .complete(first);
                    }
                  }

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
                    onHeadersRead(ctx, streamId, headers, padding, endOfStream);
                  }

                  @Override
                  public int onDataRead(
                      ChannelHandlerContext ctx,
                      int streamId,
                      ByteBuf data,
                      int padding,
                      boolean endOfStream) {
                    bodies
                        .computeIfAbsent(streamId, id -> new StringBuffer())
                        .append(data.toString(StandardCharsets.UTF_8));
                    if (endOfStream) {
                      responses
                          .computeIfAbsent(streamId, id -> new CompletableFuture<>())
                          .complete(responseHeaders.get(streamId));
                    }
                    return data.readableBytes() + padding;
                  }
                })
            .build();
    channel =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler(handler)
            .connect("127.0.0.1", port)
            .sync()
            .channel();
  }

  @AfterEach
  void disconnect() throws Exception {
    channel.close().sync();
    group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
  }

  /** Sends {@code headers} with END_STREAM on stream {@code id} and waits for the answer. */
  private Http2Headers send(int id, Http2Headers headers) throws Exception {
    CompletableFuture<Http2Headers> response =
        responses.computeIfAbsent(id, i -> new CompletableFuture<>());
    channel
        .eventLoop()
        .execute(
            () -> {
              ChannelPromise promise = channel.newPromise();
              promise.addListener(
                  f -> {
                    if (!f.isSuccess()) {
                      response.completeExceptionally(f.cause());
                    }
                  });
              handler.encoder().writeHeaders(ctxOf(), id, headers, 0, true, promise);
              channel.flush();
            });
    return response.get(Await.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  private ChannelHandlerContext ctxOf() {
    return channel.pipeline().context(handler);
  }

  private static Http2Headers request(String method, String path, String contentType) {
    Http2Headers headers =
        new DefaultHttp2Headers().method(method).scheme("http").path(path).authority("localhost");
    if (contentType != null) {
      headers.add("content-type", contentType);
    }
    return headers.add("te", "trailers");
  }

  private static void assertGrpcStatus(Http2Headers response, Status.Code code) {
    assertThat(response.get("grpc-status").toString()).isEqualTo(Integer.toString(code.value()));
    assertThat(response.get("grpc-message")).isNotNull();
  }

  @Test
  void methodOtherThanPostIs405() throws Exception {
    Http2Headers response = send(3, request("GET", "/tern.testing.Echo/Unary", "application/grpc"));
    assertThat(response.status().toString()).isEqualTo("405");
    assertGrpcStatus(response, Status.Code.INTERNAL);
    // Not a gRPC request: the reason also comes as text, for browsers and HTTP tools.
    assertThat(response.get("content-type").toString()).startsWith("text/plain");
    assertThat(bodies.get(3).toString()).isEqualTo("405 Method 'GET' is not supported\n");
  }

  @Test
  void contentTypeThatIsNotGrpcIs415() throws Exception {
    Http2Headers response = send(3, request("POST", "/tern.testing.Echo/Unary", "text/html"));
    assertThat(response.status().toString()).isEqualTo("415");
    assertGrpcStatus(response, Status.Code.INTERNAL);
    assertThat(bodies.get(3).toString())
        .isEqualTo("415 Content-Type 'text/html' is not supported\n");

    Http2Headers missing = send(5, request("POST", "/tern.testing.Echo/Unary", null));
    assertThat(missing.status().toString()).isEqualTo("415");
  }

  @Test
  void pathWithoutLeadingSlashIs404Unimplemented() throws Exception {
    Http2Headers response = send(3, request("POST", "tern.testing.Echo/Unary", "application/grpc"));
    assertThat(response.status().toString()).isEqualTo("404");
    assertGrpcStatus(response, Status.Code.UNIMPLEMENTED);
  }

  @Test
  void unknownMethodIsUnimplementedNamingIt() throws Exception {
    Http2Headers response = send(3, request("POST", "/tern.testing.Echo/Nope", "application/grpc"));
    assertThat(response.status().toString()).isEqualTo("200");
    assertGrpcStatus(response, Status.Code.UNIMPLEMENTED);
    assertThat(response.get("grpc-message").toString())
        .contains("Method not found: tern.testing.Echo/Nope");
  }

  @Test
  void headersOverTheLimitAre431ResourceExhausted() throws Exception {
    Http2Headers headers =
        request("POST", "/tern.testing.Echo/Unary", "application/grpc")
            .add("x-big", "a".repeat(9000));
    Http2Headers response = send(3, headers);
    assertThat(response.status().toString()).isEqualTo("431");
    assertGrpcStatus(response, Status.Code.RESOURCE_EXHAUSTED);
  }
}
