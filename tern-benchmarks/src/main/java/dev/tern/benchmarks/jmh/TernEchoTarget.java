package dev.tern.benchmarks.jmh;

import dev.tern.BinaryLog;
import dev.tern.CallOptions;
import dev.tern.KnownLength;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.ServerServiceDefinition;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.opentelemetry.GrpcOpenTelemetry;
import dev.tern.services.binarylog.BinaryLogSink;
import dev.tern.services.binarylog.BinaryLogs;
import dev.tern.stub.ClientCallStreamObserver;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ClientResponseObserver;
import dev.tern.stub.ServerCallStreamObserver;
import dev.tern.stub.ServerCalls;
import dev.tern.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** {@link EchoTarget} on Tern. */
final class TernEchoTarget implements EchoTarget {
  static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new KnownLengthBytes(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try (stream) {
            return readMessage(stream);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  // Marked as generated stubs mark theirs, so that with OpenTelemetry on, grpc.method names the
  // method (as in a real service) rather than "other".
  static final MethodDescriptor<byte[], byte[]> UNARY =
      MethodDescriptor.newBuilder(BYTES, BYTES)
          .setFullMethodName("bench.Echo/Unary")
          .setType(MethodDescriptor.MethodType.UNARY)
          .setSampledToLocalTracing(true)
          .build();
  static final MethodDescriptor<byte[], byte[]> BIDI =
      MethodDescriptor.newBuilder(BYTES, BYTES)
          .setFullMethodName("bench.Echo/Bidi")
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setSampledToLocalTracing(true)
          .build();
  static final MethodDescriptor<byte[], byte[]> SINK =
      MethodDescriptor.newBuilder(BYTES, BYTES)
          .setFullMethodName("bench.Echo/Sink")
          .setType(MethodDescriptor.MethodType.CLIENT_STREAMING)
          .setSampledToLocalTracing(true)
          .build();
  static final MethodDescriptor<byte[], byte[]> SOURCE =
      MethodDescriptor.newBuilder(BYTES, BYTES)
          .setFullMethodName("bench.Echo/Source")
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setSampledToLocalTracing(true)
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

  /**
   * The progress of the one-way stream open now, which the server's side of it reports to (one such
   * stream at a time; set before its call starts).
   */
  private volatile OneWayProgress oneWay;

  TernEchoTarget(boolean netty, Options options) throws IOException {
    binaryLog = options.binlog() ? BinaryLogs.createBinaryLog(DROP_ENTRIES, "*") : null;
    BenchTelemetry telemetry = options.telemetry();
    GrpcOpenTelemetry otel =
        telemetry == null
            ? null
            : GrpcOpenTelemetry.newBuilder().sdk(telemetry.sdk()).enableTracing(true).build();
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
                    (StreamObserver<byte[]> responses) -> new EchoObserver(responses)))
            .addMethod(
                SINK,
                ServerCalls.asyncClientStreamingCall(
                    (StreamObserver<byte[]> responses) -> new SinkObserver(responses, oneWay)))
            .addMethod(
                SOURCE,
                ServerCalls.asyncBidiStreamingCall(
                    (StreamObserver<byte[]> responses) -> new SourceObserver(responses, oneWay)))
            .build());
    serverBuilder.maxInboundMessageSize(options.maxInboundMessageSize());
    if (options.directExecutor()) {
      serverBuilder.directExecutor();
    }
    if (binaryLog != null) {
      serverBuilder.setBinaryLog(binaryLog);
    }
    if (otel != null) {
      otel.configureServerBuilder(serverBuilder);
    }
    server = serverBuilder.build().start();
    if (netty) {
      channelBuilder = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext();
    } else {
      channelBuilder = InProcessChannelBuilder.forName(name);
    }
    channelBuilder.maxInboundMessageSize(options.maxInboundMessageSize());
    if (options.directExecutor()) {
      channelBuilder.directExecutor();
    }
    if (options.retry()) {
      channelBuilder.defaultServiceConfig(EchoTarget.retryServiceConfig()).enableRetry();
    }
    if (binaryLog != null) {
      channelBuilder.setBinaryLog(binaryLog);
    }
    if (otel != null) {
      otel.configureChannelBuilder(channelBuilder);
    }
    channel = channelBuilder.build();
    stream =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(BIDI, CallOptions.DEFAULT), new QueueObserver(echoes));
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
  public OneWayStream clientToServer(int messageSize) {
    OneWayProgress progress = new OneWayProgress("Tern client-to-server stream");
    oneWay = progress;
    Upload upload = new Upload(progress, new byte[messageSize]);
    ClientCalls.asyncClientStreamingCall(channel.newCall(SINK, CallOptions.DEFAULT), upload);
    return upload;
  }

  @Override
  public OneWayStream serverToClient(int messageSize) {
    OneWayProgress progress = new OneWayProgress("Tern server-to-client stream");
    oneWay = progress;
    Download download = new Download(progress, messageSize);
    ClientCalls.asyncBidiStreamingCall(channel.newCall(SOURCE, CallOptions.DEFAULT), download);
    return download;
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

  /** Server side of the bidi echo. Called by one thread at a time (the call's callbacks). */
  private static final class EchoObserver implements StreamObserver<byte[]> {
    private final StreamObserver<byte[]> responses;

    EchoObserver(StreamObserver<byte[]> responses) {
      this.responses = responses;
    }

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
  }

  /** Client side: queues each echo for the benchmark thread. Thread-safe (the queue is). */
  private static final class QueueObserver implements StreamObserver<byte[]> {
    private final BlockingQueue<byte[]> queue;

    QueueObserver(BlockingQueue<byte[]> queue) {
      this.queue = queue;
    }

    @Override
    public void onNext(byte[] value) {
      queue.add(value);
    }

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onCompleted() {}
  }

  /**
   * The client side of a client-to-server stream: the benchmark thread sends while the call is
   * ready; the server's {@link SinkObserver} counts.
   */
  private static final class Upload
      implements OneWayStream, ClientResponseObserver<byte[], byte[]> {
    private final OneWayProgress progress;
    private final byte[] message;
    private ClientCallStreamObserver<byte[]> requests;
    private BooleanSupplier ready;
    private long serverCount = -1;

    Upload(OneWayProgress progress, byte[] message) {
      this.progress = progress;
      this.message = message;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<byte[]> requests) {
      this.requests = requests;
      this.ready = requests::isReady;
      requests.setOnReadyHandler(progress::signalReady);
    }

    @Override
    public void transfer(int count) throws InterruptedException {
      for (int i = 0; i < count; i++) {
        if (!requests.isReady()) {
          progress.awaitReady(ready);
        }
        requests.onNext(message);
        progress.sent();
      }
      progress.awaitReceived(progress.sentCount());
    }

    @Override
    public long close() throws InterruptedException {
      requests.onCompleted();
      long counted = progress.awaitEnd();
      if (counted != progress.sentCount()) {
        throw new IllegalStateException(
            "Tern's server counted " + counted + " of " + progress.sentCount() + " messages");
      }
      return counted;
    }

    @Override
    public OneWayProgress progress() {
      return progress;
    }

    @Override
    public void onNext(byte[] count) {
      serverCount = SourceRequest.decodeCount(count);
    }

    @Override
    public void onError(Throwable t) {
      progress.failed(t);
    }

    @Override
    public void onCompleted() {
      progress.ended(serverCount);
    }
  }

  /** Server side of a client-to-server stream: counts. Called by one thread at a time. */
  private static final class SinkObserver implements StreamObserver<byte[]> {
    private final StreamObserver<byte[]> responses;
    private final OneWayProgress progress;
    private long count;

    SinkObserver(StreamObserver<byte[]> responses, OneWayProgress progress) {
      this.responses = responses;
      this.progress = progress;
    }

    @Override
    public void onNext(byte[] message) {
      count++;
      progress.received();
    }

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onCompleted() {
      responses.onNext(SourceRequest.encodeCount(count));
      responses.onCompleted();
    }
  }

  /**
   * The client side of a server-to-client stream: asks the server for messages and counts them as
   * they arrive (the response observer's calls, one thread at a time).
   */
  private static final class Download
      implements OneWayStream, ClientResponseObserver<byte[], byte[]> {
    private final OneWayProgress progress;
    private final int messageSize;
    private ClientCallStreamObserver<byte[]> requests;
    private long requested;

    Download(OneWayProgress progress, int messageSize) {
      this.progress = progress;
      this.messageSize = messageSize;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<byte[]> requests) {
      this.requests = requests;
    }

    @Override
    public void transfer(int count) throws InterruptedException {
      requested += count;
      requests.onNext(new SourceRequest(count, messageSize).encode());
      progress.awaitReceived(requested);
    }

    @Override
    public long close() throws InterruptedException {
      requests.onCompleted();
      long counted = progress.awaitEnd();
      if (counted != requested) {
        throw new IllegalStateException(
            "Tern's client counted " + counted + " of " + requested + " messages");
      }
      return counted;
    }

    @Override
    public OneWayProgress progress() {
      return progress;
    }

    @Override
    public void onNext(byte[] message) {
      progress.received();
    }

    @Override
    public void onError(Throwable t) {
      progress.failed(t);
    }

    @Override
    public void onCompleted() {
      progress.ended(progress.receivedCount());
    }
  }

  /**
   * Server side of a server-to-client stream: sends what the client asked for while the call is
   * ready, the rest from its on-ready handler; ends the call once the client half-closed and
   * everything asked for went out. Called by one thread at a time (the call's callbacks, the
   * on-ready handler among them).
   */
  private static final class SourceObserver implements StreamObserver<byte[]> {
    private final ServerCallStreamObserver<byte[]> responses;
    private final OneWayProgress progress;
    private byte[] message = new byte[0];
    private long pending;
    private boolean halfClosed;
    private boolean completed;

    SourceObserver(StreamObserver<byte[]> responses, OneWayProgress progress) {
      this.responses = (ServerCallStreamObserver<byte[]>) responses;
      this.progress = progress;
      this.responses.setOnReadyHandler(this::drain);
    }

    @Override
    public void onNext(byte[] bytes) {
      SourceRequest request = SourceRequest.decode(bytes);
      if (message.length != request.size()) {
        message = new byte[request.size()];
      }
      pending += request.count();
      drain();
    }

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onCompleted() {
      halfClosed = true;
      drain();
    }

    private void drain() {
      while (pending > 0 && responses.isReady()) {
        responses.onNext(message);
        progress.sent();
        pending--;
      }
      if (pending == 0 && halfClosed && !completed) {
        completed = true;
        responses.onCompleted();
      }
    }
  }

  /**
   * The message's bytes in one array of exactly their size, read straight from the transport's
   * buffers when the stream knows its length (as both systems' message streams do), the way
   * grpc-java's own protobuf marshaller reads. {@code readAllBytes()} would be the same for Tern,
   * whose stream implements it so, but would cost grpc-java, whose stream does not, an extra heap
   * copy of every message through the JDK's 8 KiB chunks: a cost of this benchmark's marshaller,
   * not of the transport the large-message and allocation figures compare.
   */
  static byte[] readMessage(InputStream stream) throws IOException {
    if (!(stream instanceof KnownLength)) {
      return stream.readAllBytes();
    }
    byte[] bytes = new byte[stream.available()];
    int read = stream.readNBytes(bytes, 0, bytes.length);
    if (read != bytes.length || stream.read() != -1) {
      throw new IOException("message stream held other than its known length " + bytes.length);
    }
    return bytes;
  }

  /**
   * A message's bytes as a stream that knows its length, as Tern's protobuf marshaller's streams do
   * and as grpc-java's echo target's streams do ({@code DrainableBytes}). In-process the receiver
   * parses the sender's stream itself: a plain {@code ByteArrayInputStream} went through {@link
   * #readMessage}'s {@code readAllBytes()} branch, about a tenth of the in-process ping-pong, where
   * grpc-java's took the known-length one. Over Netty nothing changes: the framer writes either in
   * one write, and the receiver reads the transport's stream.
   */
  private static final class KnownLengthBytes extends ByteArrayInputStream implements KnownLength {
    KnownLengthBytes(byte[] bytes) {
      super(bytes);
    }
  }
}
