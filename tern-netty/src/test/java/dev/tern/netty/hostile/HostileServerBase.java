package dev.tern.netty.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.Status;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.RecordingClientCallListener;
import dev.tern.testing.TernCleanupExtension;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Tern server on loopback (the {@link EchoService} and the {@link HostileProbe}), and a
 * well-behaved Tern client with a bidirectional call established before each test, for tests that
 * attack the server with a raw connection and then check that the well-behaved client was served
 * all along ({@link #assertStillServingWellBehavedClient()}) and that the server's memory stayed
 * bounded ({@link #assertMemoryBounded}).
 */
abstract class HostileServerBase {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  final HostileProbe probe = new HostileProbe();
  Server server;
  ManagedChannel channel;
  private ClientCall<String, String> wellBehavedCall;
  private RecordingClientCallListener<String> wellBehaved;
  private int callsBeforeTest;

  /** What the server's buffers hold, sampled from before the attack on. */
  ServerMemory memory;

  @BeforeEach
  void startServerAndWellBehavedClient() throws IOException {
    server =
        cleanup.register(
            serverBuilder()
                .addService(EchoService.definition())
                .addService(probe.definition())
                .intercept(probe.interceptor())
                .addTransportFilter(probe.transportFilter())
                .build()
                .start());
    channel =
        cleanup.register(
            ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());
    wellBehavedCall = channel.newCall(EchoService.BIDI_STREAMING, CallOptions.DEFAULT);
    wellBehaved = new RecordingClientCallListener<>();
    wellBehavedCall.start(wellBehaved, new Metadata());
    wellBehavedCall.request(Integer.MAX_VALUE);
    wellBehavedCall.sendMessage("before");
    assertThat(wellBehaved.awaitMessage()).isEqualTo("before");
    callsBeforeTest = probe.callsStarted.get();
    memory = ServerMemory.start();
  }

  /** The builder of the server under attack, before the services are added: defaults here. */
  ServerBuilder<?> serverBuilder() {
    return ServerBuilder.forPort(0);
  }

  /** Calls that reached the server's application since the well-behaved call was established. */
  int callsStartedByTest() {
    return probe.callsStarted.get() - callsBeforeTest;
  }

  @AfterEach
  void cancelWellBehavedCallIfOpen() {
    if (memory != null) {
      memory.close();
    }
    if (!wellBehaved.isClosed()) {
      wellBehavedCall.cancel("the test ended early", null);
    }
  }

  /**
   * The call established before the attack still echoes and ends OK, and a new call on the same
   * channel succeeds.
   */
  void assertStillServingWellBehavedClient() {
    wellBehavedCall.sendMessage("after");
    assertThat(wellBehaved.awaitMessage()).isEqualTo("after");
    wellBehavedCall.halfClose();
    assertThat(wellBehaved.awaitStatus().getCode()).isEqualTo(Status.Code.OK);
    assertThat(wellBehaved.violations()).isEmpty();
    String reply =
        ClientCalls.blockingUnaryCall(
            channel,
            EchoService.UNARY,
            CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
            "fresh call");
    assertThat(reply).isEqualTo("fresh call");
  }

  /**
   * Asserts that the server's buffers never grew by more than {@code bound} (plus {@link
   * ServerMemory#ALLOCATOR_SLACK}) since the attack began.
   *
   * @param why which limit allows {@code bound}, for the failure message
   */
  void assertMemoryBounded(long bound, String why) {
    memory.assertPeakAllocatorGrowthAtMost(bound, why);
  }

  /** A raw HTTP/2 connection to the server, preface and SETTINGS sent. */
  RawHttp2Connection openRaw() throws IOException {
    return RawHttp2Connection.open(server.getPort());
  }
}
