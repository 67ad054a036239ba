package dev.tern.netty.balancing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallCredentials;
import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ClientStreamTracer;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.ServerStreamTracer;
import dev.tern.Status;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.netty.balancing.FlakyService.Reply;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.testing.RecordingClientCallListener;
import dev.tern.testing.TernCleanupExtension;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Stream tracers over real sockets (Netty, 127.0.0.1): the client's tracer per attempt and the
 * server's per call see the same call from both ends, with wire sizes, for a successful, a failing,
 * a compressed (wire size below the uncompressed size) and a retried call.
 */
class StreamTracerEndToEndTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final String REQUEST = "x".repeat(2000);

  private final List<ClientTracer> clientTracers = new CopyOnWriteArrayList<>();
  private final List<ServerTracer> serverTracers = new CopyOnWriteArrayList<>();

  /** Records one attempt's events. */
  private static final class ClientTracer extends ClientStreamTracer {
    final StreamInfo info;
    final List<String> events = new CopyOnWriteArrayList<>();
    final CompletableFuture<Status> closed = new CompletableFuture<>();

    ClientTracer(StreamInfo info) {
      this.info = info;
    }

    @Override
    public void outboundHeaders() {
      events.add("outboundHeaders");
    }

    @Override
    public void inboundHeaders(Metadata headers) {
      events.add("inboundHeaders");
    }

    @Override
    public void outboundMessage(int seqNo) {
      events.add("outboundMessage " + seqNo);
    }

    @Override
    public void outboundUncompressedSize(long bytes) {
      events.add("outboundUncompressedSize " + bytes);
    }

    @Override
    public void outboundWireSize(long bytes) {
      events.add("outboundWireSize " + bytes);
    }

    @Override
    public void inboundMessage(int seqNo) {
      events.add("inboundMessage " + seqNo);
    }

    @Override
    public void inboundWireSize(long bytes) {
      events.add("inboundWireSize " + bytes);
    }

    @Override
    public void inboundUncompressedSize(long bytes) {
      events.add("inboundUncompressedSize " + bytes);
    }

    @Override
    public void inboundTrailers(Metadata trailers) {
      events.add("inboundTrailers");
    }

    @Override
    public void streamClosed(Status status) {
      events.add("closed " + status.getCode());
      closed.complete(status);
    }

    Status awaitClosed() throws Exception {
      return closed.get(10, TimeUnit.SECONDS);
    }
  }

  /** Records one server stream's events. */
  private static final class ServerTracer extends ServerStreamTracer {
    final String fullMethodName;
    final List<String> events = new CopyOnWriteArrayList<>();
    final CompletableFuture<Status> closed = new CompletableFuture<>();

    ServerTracer(String fullMethodName) {
      this.fullMethodName = fullMethodName;
    }

    @Override
    public void serverCallStarted(ServerCallInfo<?, ?> callInfo) {
      events.add("started " + callInfo.getMethodDescriptor().getFullMethodName());
    }

    @Override
    public void inboundMessage(int seqNo) {
      events.add("inboundMessage " + seqNo);
    }

    @Override
    public void inboundWireSize(long bytes) {
      events.add("inboundWireSize " + bytes);
    }

    @Override
    public void inboundUncompressedSize(long bytes) {
      events.add("inboundUncompressedSize " + bytes);
    }

    @Override
    public void outboundMessage(int seqNo) {
      events.add("outboundMessage " + seqNo);
    }

    @Override
    public void outboundWireSize(long bytes) {
      events.add("outboundWireSize " + bytes);
    }

    @Override
    public void streamClosed(Status status) {
      events.add("closed " + status.getCode());
      closed.complete(status);
    }

    Status awaitClosed() throws Exception {
      return closed.get(10, TimeUnit.SECONDS);
    }
  }

  private final ClientStreamTracer.Factory clientFactory =
      new ClientStreamTracer.Factory() {
        @Override
        public ClientStreamTracer newClientStreamTracer(
            ClientStreamTracer.StreamInfo info, Metadata headers) {
          ClientTracer tracer = new ClientTracer(info);
          clientTracers.add(tracer);
          return tracer;
        }
      };

  private Server serve(FlakyService service) throws Exception {
    return cleanup.register(
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(service.definition())
            .addStreamTracerFactory(
                new ServerStreamTracer.Factory() {
                  @Override
                  public ServerStreamTracer newServerStreamTracer(
                      String fullMethodName, Metadata headers) {
                    ServerTracer tracer = new ServerTracer(fullMethodName);
                    serverTracers.add(tracer);
                    return tracer;
                  }
                })
            .build()
            .start());
  }

  private Status call(Server server, String serviceConfig, CallOptions options) throws Exception {
    ManagedChannelBuilder<?> builder =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort())
            .usePlaintext()
            .addStreamTracerFactory(clientFactory);
    if (serviceConfig != null) {
      builder.defaultServiceConfigJson(serviceConfig);
    }
    ManagedChannel channel = cleanup.register(builder.build());
    ClientCall<String, String> call =
        channel.newCall(FlakyService.UNARY, options.withDeadlineAfter(10, TimeUnit.SECONDS));
    RecordingClientCallListener<String> listener = new RecordingClientCallListener<>();
    call.start(listener, new Metadata());
    call.request(1);
    call.sendMessage(REQUEST);
    call.halfClose();
    RecordingClientCallListener.Closed closed = listener.awaitClose();
    assertThat(listener.violations()).isEmpty();
    return closed.status();
  }

  @Test
  void bothEndsTraceASuccessfulCall() throws Exception {
    Server server = serve(new FlakyService());

    assertThat(call(server, null, CallOptions.DEFAULT).isOk()).isTrue();

    assertThat(clientTracers).hasSize(1);
    ClientTracer client = clientTracers.get(0);
    assertThat(client.awaitClosed().isOk()).isTrue();
    assertThat(client.events)
        .containsExactly(
            "outboundHeaders",
            "outboundMessage 0",
            "outboundUncompressedSize " + REQUEST.length(),
            "outboundWireSize " + REQUEST.length(),
            "inboundHeaders",
            "inboundWireSize 1",
            "inboundMessage 0",
            "inboundUncompressedSize 1",
            "inboundTrailers",
            "closed OK");
    assertThat(serverTracers).hasSize(1);
    ServerTracer server1 = serverTracers.get(0);
    assertThat(server1.awaitClosed().isOk()).isTrue();
    assertThat(server1.fullMethodName).isEqualTo("tern.test.Flaky/Unary");
    assertThat(server1.events)
        .containsExactly(
            "started tern.test.Flaky/Unary",
            "inboundWireSize " + REQUEST.length(),
            "inboundMessage 0",
            "inboundUncompressedSize " + REQUEST.length(),
            "outboundMessage 0",
            "outboundWireSize 1",
            "closed OK");
  }

  @Test
  void bothEndsSeeAFailedCallsStatus() throws Exception {
    Server server = serve(new FlakyService(Reply.fail(Status.Code.INVALID_ARGUMENT)));

    assertThat(call(server, null, CallOptions.DEFAULT).getCode())
        .isEqualTo(Status.Code.INVALID_ARGUMENT);

    assertThat(clientTracers.get(0).awaitClosed().getCode())
        .isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(serverTracers.get(0).awaitClosed().getCode())
        .isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(serverTracers.get(0).events).doesNotContain("outboundMessage 0");
  }

  @Test
  void aCompressedMessageIsSmallerOnTheWireThanUncompressed() throws Exception {
    Server server = serve(new FlakyService());

    assertThat(call(server, null, CallOptions.DEFAULT.withCompression("gzip")).isOk()).isTrue();

    ClientTracer client = clientTracers.get(0);
    assertThat(client.awaitClosed().isOk()).isTrue();
    assertThat(client.events).contains("outboundUncompressedSize " + REQUEST.length());
    long clientWire = size(client.events, "outboundWireSize ");
    assertThat(clientWire).isPositive().isLessThan(REQUEST.length());
    assertThat(serverTracers.get(0).awaitClosed().isOk()).isTrue();
    assertThat(serverTracers.get(0).events).contains("inboundMessage 0");
    assertThat(size(serverTracers.get(0).events, "inboundWireSize ")).isEqualTo(clientWire);
  }

  @Test
  void aCallWithAsynchronousCredentialsStillReportsWireSizes() throws Exception {
    Server server = serve(new FlakyService());
    CallCredentials later =
        new CallCredentials() {
          @Override
          public void applyRequestMetadata(
              RequestInfo info, Executor appExecutor, MetadataApplier applier) {
            // answered from another thread, after the call has started: its stream waits
            CompletableFuture.runAsync(() -> applier.apply(new Metadata()));
          }
        };

    assertThat(call(server, null, CallOptions.DEFAULT.withCallCredentials(later)).isOk()).isTrue();

    ClientTracer client = clientTracers.get(0);
    assertThat(client.awaitClosed().isOk()).isTrue();
    assertThat(size(client.events, "outboundWireSize ")).isEqualTo(REQUEST.length());
    assertThat(size(client.events, "inboundWireSize ")).isEqualTo(1);
  }

  /** The number in the one event starting with {@code prefix}. */
  private static long size(List<String> events, String prefix) {
    List<String> matching = events.stream().filter(e -> e.startsWith(prefix)).toList();
    assertThat(matching).hasSize(1);
    return Long.parseLong(matching.get(0).substring(prefix.length()));
  }

  @Test
  void eachAttemptOfARetriedCallIsTracedAtBothEnds() throws Exception {
    Server server = serve(new FlakyService(Reply.fail(Status.Code.UNAVAILABLE)));

    assertThat(
            call(
                    server,
                    ServiceConfigs.retry(FlakyService.SERVICE, 3, "UNAVAILABLE"),
                    CallOptions.DEFAULT)
                .isOk())
        .isTrue();

    assertThat(clientTracers).hasSize(2);
    assertThat(clientTracers.get(0).info.getPreviousAttempts()).isZero();
    assertThat(clientTracers.get(0).awaitClosed().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(clientTracers.get(1).info.getPreviousAttempts()).isEqualTo(1);
    assertThat(clientTracers.get(1).awaitClosed().isOk()).isTrue();
    assertThat(serverTracers).hasSize(2);
    assertThat(serverTracers.get(0).awaitClosed().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(serverTracers.get(1).awaitClosed().isOk()).isTrue();
  }
}
