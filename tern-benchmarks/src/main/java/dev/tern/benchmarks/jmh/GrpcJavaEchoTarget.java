package dev.tern.benchmarks.jmh;

import io.grpc.BinaryLog;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerServiceDefinition;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.BinaryLogSink;
import io.grpc.protobuf.services.BinaryLogs;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@link EchoTarget} on grpc-java (the peer we measure against), set up like {@link
 * TernEchoTarget}.
 */
final class GrpcJavaEchoTarget implements EchoTarget {
  static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try (stream) {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  static final MethodDescriptor<byte[], byte[]> UNARY =
      MethodDescriptor.newBuilder(BYTES, BYTES)
          .setFullMethodName("bench.Echo/Unary")
          .setType(MethodDescriptor.MethodType.UNARY)
          .build();
  static final MethodDescriptor<byte[], byte[]> BIDI =
      MethodDescriptor.newBuilder(BYTES, BYTES)
          .setFullMethodName("bench.Echo/Bidi")
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .build();

  /** Counts and drops binary log entries (the benchmark measures building them, not the disk). */
  private static final BinaryLogSink DROP_ENTRIES =
      new BinaryLogSink() {
        @Override
        public void write(com.google.protobuf.MessageLite entry) {}

        @Override
        public void close() {}
      };

  private final BinaryLog binaryLog;
  private final Server server;
  private final ManagedChannel channel;
  private final BlockingQueue<byte[]> echoes = new LinkedBlockingQueue<>();
  private final StreamObserver<byte[]> stream;

  GrpcJavaEchoTarget(boolean netty, boolean directExecutor, boolean retry, boolean binlog)
      throws IOException {
    binaryLog = binlog ? BinaryLogs.createBinaryLog(DROP_ENTRIES, "*") : null;
    ServerBuilder<?> serverBuilder;
    ManagedChannelBuilder<?> channelBuilder;
    String name = "bench-" + UUID.randomUUID();
    if (netty) {
      serverBuilder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
    } else {
      serverBuilder = InProcessServerBuilder.forName(name);
    }
    serverBuilder.addService(
        ServerServiceDefinition.builder("bench.Echo")
            .addMethod(
                UNARY,
                ServerCalls.asyncUnaryCall(
                    (byte[] request, StreamObserver<byte[]> responses) -> {
                      responses.onNext(request);
                      responses.onCompleted();
                    }))
            .addMethod(
                BIDI,
                ServerCalls.asyncBidiStreamingCall(
                    (StreamObserver<byte[]> responses) ->
                        new StreamObserver<byte[]>() {
                          @Override
                          public void onNext(byte[] value) {
                            responses.onNext(value);
                          }

                          @Override
                          public void onError(Throwable t) {}

                          @Override
                          public void onCompleted() {
                            responses.onCompleted();
                          }
                        }))
            .build());
    if (directExecutor) {
      serverBuilder.directExecutor();
    }
    if (binaryLog != null) {
      serverBuilder.setBinaryLog(binaryLog);
    }
    server = serverBuilder.build().start();
    if (netty) {
      channelBuilder = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext();
    } else {
      channelBuilder = InProcessChannelBuilder.forName(name);
    }
    if (directExecutor) {
      channelBuilder.directExecutor();
    }
    if (retry) {
      channelBuilder.defaultServiceConfig(EchoTarget.retryServiceConfig()).enableRetry();
    }
    if (binaryLog != null) {
      channelBuilder.setBinaryLog(binaryLog);
    }
    channel = channelBuilder.build();
    stream =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(BIDI, CallOptions.DEFAULT),
            new StreamObserver<byte[]>() {
              @Override
              public void onNext(byte[] value) {
                echoes.add(value);
              }

              @Override
              public void onError(Throwable t) {}

              @Override
              public void onCompleted() {}
            });
  }

  @Override
  public byte[] unary(byte[] request) {
    return ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT, request);
  }

  @Override
  public byte[] pingPong(byte[] message) throws InterruptedException {
    stream.onNext(message);
    return echoes.take();
  }

  @Override
  public void shutdown() throws InterruptedException {
    stream.onCompleted();
    channel.shutdownNow();
    server.shutdownNow();
    channel.awaitTermination(5, TimeUnit.SECONDS);
    server.awaitTermination(5, TimeUnit.SECONDS);
    if (binaryLog != null) {
      try {
        binaryLog.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
