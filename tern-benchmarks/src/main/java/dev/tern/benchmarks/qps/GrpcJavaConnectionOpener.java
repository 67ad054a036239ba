package dev.tern.benchmarks.qps;

import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@link ConnectionOpener} on grpc-java 1.79 (netty-shaded), with its public API only: a {@code
 * NettyChannelBuilder} per connection, for the server's address (no name resolution), plaintext, on
 * one shared NIO group (Netty's default size, twice the cores), the call made as grpc-java's
 * generated async stub makes it ({@code ClientCalls.asyncUnaryCall}, its protobuf marshaller).
 * Source addresses through the builder's {@code localSocketPicker}, one address per channel.
 * Thread-safe: the builders are local to {@link #open()}.
 */
final class GrpcJavaConnectionOpener implements ConnectionOpener {
  private final InetSocketAddress server;
  private final SourceAddresses sources;
  private final NioEventLoopGroup group =
      new NioEventLoopGroup(0, new DefaultThreadFactory("grpc-client-elg-", true));

  GrpcJavaConnectionOpener(InetSocketAddress server, SourceAddresses sources) {
    this.server = server;
    this.sources = sources;
  }

  /** Binds a channel's connections to one local address. */
  private static final class FixedSource extends NettyChannelBuilder.LocalSocketPicker {
    private final SocketAddress source;

    FixedSource(SocketAddress source) {
      this.source = source;
    }

    @Override
    public SocketAddress createSocketAddress(SocketAddress remoteAddress, Attributes attrs) {
      return source;
    }
  }

  @Override
  public Connection open() {
    NettyChannelBuilder builder =
        NettyChannelBuilder.forAddress(server)
            .eventLoopGroup(group)
            .channelType(NioSocketChannel.class)
            .usePlaintext()
            .idleTimeout(IDLE_TIMEOUT_DAYS, TimeUnit.DAYS);
    if (!sources.isEmpty()) {
      builder.localSocketPicker(new FixedSource(sources.next()));
    }
    ManagedChannel channel = builder.build();
    CompletableFuture<Void> done = new CompletableFuture<>();
    ClientCalls.asyncUnaryCall(
        channel.newCall(
            GrpcJavaBalancedClient.UNARY_CALL,
            CallOptions.DEFAULT.withDeadlineAfter(FIRST_CALL_DEADLINE_SECONDS, TimeUnit.SECONDS)),
        SimpleRequest.getDefaultInstance(),
        new StreamObserver<SimpleResponse>() {
          @Override
          public void onNext(SimpleResponse value) {}

          @Override
          public void onError(Throwable t) {
            done.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {
            done.complete(null);
          }
        });
    return new Connection() {
      @Override
      public CompletableFuture<Void> firstCall() {
        return done;
      }

      @Override
      public void close() throws InterruptedException {
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
      }
    };
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
