package dev.tern.benchmarks.qps;

import dev.tern.ManagedChannel;
import dev.tern.interop.testing.BenchmarkServiceTern;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@link ConnectionOpener} on Tern: a {@link NettyChannelBuilder} per connection, for the server's
 * address (no name resolution), plaintext, on one shared NIO group (Netty's default size, twice the
 * cores), the call made as the generated async stub makes it. Source addresses through {@link
 * SourceBoundNioSocketChannel}. Thread-safe: the builders are local to {@link #open()}.
 */
final class TernConnectionOpener implements ConnectionOpener {
  private final InetSocketAddress server;
  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory());
  private final Class<? extends NioSocketChannel> channelType;

  TernConnectionOpener(InetSocketAddress server, SourceAddresses sources) {
    this.server = server;
    if (sources.isEmpty()) {
      channelType = NioSocketChannel.class;
    } else {
      SourceBoundNioSocketChannel.use(sources);
      channelType = SourceBoundNioSocketChannel.class;
    }
  }

  @Override
  public Connection open() {
    ManagedChannel channel =
        NettyChannelBuilder.forAddress(server)
            .eventLoopGroup(group)
            .channelType(channelType)
            .usePlaintext()
            .idleTimeout(IDLE_TIMEOUT_DAYS, TimeUnit.DAYS)
            .build();
    CompletableFuture<Void> done = new CompletableFuture<>();
    BenchmarkServiceTern.newStub(channel)
        .withDeadlineAfter(FIRST_CALL_DEADLINE_SECONDS, TimeUnit.SECONDS)
        .unaryCall(
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
