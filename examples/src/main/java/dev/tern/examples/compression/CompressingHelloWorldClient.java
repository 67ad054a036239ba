package dev.tern.examples.compression;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptor;
import dev.tern.ClientStreamTracer;
import dev.tern.ForwardingClientCall.SimpleForwardingClientCall;
import dev.tern.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.examples.ExampleMain;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.examples.helloworld.HelloRequest;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Greets the {@link CompressingHelloWorldServer} at {@code --target=HOST:PORT} twice, with and
 * without {@code withCompression("gzip")}, and prints for each call how big the request was and how
 * many bytes it took on the wire, and the {@code grpc-encoding} of the response.
 */
public final class CompressingHelloWorldClient {
  private CompressingHelloWorldClient() {}

  /** What one call showed: its request's size and wire size, the response's encoding. */
  public record Report(long requestBytes, long requestWireBytes, String responseEncoding) {}

  /**
   * Greets {@code name}, with the request compressed by {@code compressor} ({@code "gzip"}) or not
   * (null), and reports what went over the wire.
   */
  public static Report sayHello(String target, String name, String compressor)
      throws InterruptedException {
    WireSizes sizes = new WireSizes();
    ResponseEncoding encoding = new ResponseEncoding();
    ManagedChannel channel =
        ManagedChannelBuilder.forTarget(target)
            .usePlaintext()
            .intercept(encoding)
            .addStreamTracerFactory(sizes)
            .build();
    try {
      GreeterTern.GreeterBlockingStub stub =
          GreeterTern.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS);
      if (compressor != null) {
        stub = stub.withCompression(compressor);
      }
      stub.sayHello(HelloRequest.newBuilder().setName(name).build());
      return new Report(sizes.uncompressed.get(), sizes.wire.get(), encoding.seen);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /** Keeps the {@code grpc-encoding} response header of the last call. Thread-safe. */
  static final class ResponseEncoding implements ClientInterceptor {
    private static final Metadata.Key<String> GRPC_ENCODING =
        Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER);

    volatile String seen = "identity"; // what no grpc-encoding header means

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
        MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
      return new SimpleForwardingClientCall<>(next.newCall(method, callOptions)) {
        @Override
        public void start(Listener<RespT> responseListener, Metadata headers) {
          super.start(
              new SimpleForwardingClientCallListener<>(responseListener) {
                @Override
                public void onHeaders(Metadata responseHeaders) {
                  String encoding = responseHeaders.get(GRPC_ENCODING);
                  seen = encoding == null ? "identity" : encoding;
                  super.onHeaders(responseHeaders);
                }
              },
              headers);
        }
      };
    }
  }

  /**
   * Adds up the request bytes of the calls it traces, before and after compression. Thread-safe.
   */
  static final class WireSizes extends ClientStreamTracer.Factory {
    final AtomicLong uncompressed = new AtomicLong();
    final AtomicLong wire = new AtomicLong();

    @Override
    public ClientStreamTracer newClientStreamTracer(
        ClientStreamTracer.StreamInfo info, Metadata headers) {
      return new ClientStreamTracer() {
        @Override
        public void outboundUncompressedSize(long bytes) {
          uncompressed.addAndGet(bytes);
        }

        @Override
        public void outboundWireSize(long bytes) {
          wire.addAndGet(bytes);
        }
      };
    }
  }

  /** {@code java ... CompressingHelloWorldClient [--target=HOST:PORT] [--name=NAME]}. */
  public static void main(String[] args) throws InterruptedException {
    String target = ExampleMain.flag(args, "target", "localhost:50051");
    // Long and repetitive by default, so that gzip has something to squeeze.
    String name = ExampleMain.flag(args, "name", "Ada ".repeat(100));
    for (String compressor : new String[] {"gzip", null}) {
      Report report = sayHello(target, name, compressor);
      System.out.printf(
          "SayHello %s: request %d bytes, %d on the wire; response grpc-encoding: %s%n",
          compressor == null ? "uncompressed" : "with " + compressor,
          report.requestBytes(),
          report.requestWireBytes(),
          report.responseEncoding());
    }
  }
}
