package dev.tern.netty.internal.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.testing.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The race of QUIC against TCP on a fake clock, with transports that do what each test says: who
 * starts when, who wins, what the listener hears, and what the memory of alternatives is told.
 */
class RacingClientTransportTest {
  private final FakeClock clock = new FakeClock();
  private static final Attributes.Key<String> WHO = Attributes.Key.create("who");

  private final ContenderTransport quic = new ContenderTransport("quic");
  private final ContenderTransport tcp = new ContenderTransport("tcp");
  private final List<String> verdicts = new ArrayList<>();
  private final List<String> heard = new ArrayList<>();
  private final RacingClientTransport race =
      new RacingClientTransport(
          quic,
          tcp,
          TimeUnit.MILLISECONDS.toNanos(250),
          clock,
          () -> verdicts.add("broken"),
          () -> verdicts.add("worked"));

  private final ManagedClientTransport.Listener listener =
      new ManagedClientTransport.Listener() {
        @Override
        public void transportReady() {
          heard.add("ready");
        }

        @Override
        public void transportShutdown(Status status) {
          heard.add("shutdown " + status.getDescription());
        }

        @Override
        public void transportTerminated() {
          heard.add("terminated");
        }

        @Override
        public void transportInUse(boolean inUse) {
          heard.add("inUse " + inUse);
        }
      };

  @Test
  void quicReadyWithinItsHeadStartWinsAndTcpNeverStarts() {
    race.start(listener);
    quic.listener.transportReady();
    clock.forwardTime(1, TimeUnit.SECONDS);

    assertThat(tcp.listener).isNull();
    assertThat(heard).containsExactly("ready");
    assertThat(verdicts).containsExactly("worked");
    assertThat(race.getAttributes().get(WHO)).isEqualTo("quic");

    quic.listener.transportInUse(true);
    race.shutdown(Status.UNAVAILABLE.withDescription("bye"));
    assertThat(quic.stopped).isEqualTo("shutdown bye");
    quic.listener.transportShutdown(Status.UNAVAILABLE.withDescription("bye"));
    quic.listener.transportTerminated();
    assertThat(heard).containsExactly("ready", "inUse true", "shutdown bye", "terminated");
  }

  @Test
  void tcpJoinsAfterTheHeadStartAndTheFirstReadyWins() {
    race.start(listener);
    clock.forwardTime(249, TimeUnit.MILLISECONDS);
    assertThat(tcp.listener).isNull();
    clock.forwardTime(1, TimeUnit.MILLISECONDS);
    assertThat(tcp.listener).isNotNull();

    tcp.listener.transportReady();

    assertThat(heard).containsExactly("ready");
    assertThat(race.getAttributes().get(WHO)).isEqualTo("tcp");
    assertThat(quic.stopped).startsWith("shutdownNow");
    assertThat(verdicts).containsExactly("broken"); // slower than TCP
    // The loser's events go nowhere; the race ends when both have terminated.
    quic.listener.transportShutdown(Status.UNAVAILABLE.withDescription("lost"));
    quic.listener.transportTerminated();
    tcp.listener.transportShutdown(Status.UNAVAILABLE.withDescription("goaway"));
    tcp.listener.transportTerminated();
    assertThat(heard).containsExactly("ready", "shutdown goaway", "terminated");
  }

  @Test
  void quicFailingStartsTcpAtOnceAndNobodyHearsOfIt() {
    race.start(listener);
    quic.listener.transportShutdown(Status.UNAVAILABLE.withDescription("port unreachable"));
    quic.listener.transportTerminated();

    assertThat(tcp.listener).isNotNull();
    assertThat(verdicts).containsExactly("broken");
    tcp.listener.transportReady();
    assertThat(heard).containsExactly("ready");
    clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(verdicts).containsExactly("broken");
  }

  @Test
  void bothFailingIsOneFailureWithTheLastStatus() {
    race.start(listener);
    clock.forwardTime(250, TimeUnit.MILLISECONDS);
    tcp.listener.transportShutdown(Status.UNAVAILABLE.withDescription("connection refused"));
    tcp.listener.transportTerminated();
    assertThat(heard).isEmpty();
    quic.listener.transportShutdown(Status.UNAVAILABLE.withDescription("handshake timed out"));
    quic.listener.transportTerminated();

    assertThat(heard).containsExactly("shutdown handshake timed out", "terminated");
  }

  @Test
  void aShutdownBeforeEitherIsReadyStopsBothAndTcpNeverStarts() {
    race.start(listener);
    race.shutdownNow(Status.UNAVAILABLE.withDescription("channel closed"));
    clock.forwardTime(1, TimeUnit.SECONDS);

    assertThat(tcp.listener).isNull();
    assertThat(quic.stopped).isEqualTo("shutdownNow channel closed");
    quic.listener.transportShutdown(Status.UNAVAILABLE.withDescription("channel closed"));
    quic.listener.transportTerminated();
    assertThat(heard).containsExactly("shutdown channel closed", "terminated");
    assertThat(verdicts).isEmpty(); // not QUIC's fault
  }

  /** A transport whose events the test raises through the listener it was started with. */
  private static final class ContenderTransport implements ManagedClientTransport {
    ManagedClientTransport.Listener listener;
    String stopped;
    final Attributes attributes;

    ContenderTransport(String name) {
      attributes = Attributes.newBuilder().set(WHO, name).build();
    }

    @Override
    public Runnable start(Listener listener) {
      this.listener = listener;
      return null;
    }

    @Override
    public void shutdown(Status reason) {
      stopped = "shutdown " + reason.getDescription();
    }

    @Override
    public void shutdownNow(Status reason) {
      stopped = "shutdownNow " + reason.getDescription();
    }

    @Override
    public ClientStream newStream(
        MethodDescriptor<?, ?> method, Metadata headers, CallOptions callOptions) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void ping(PingCallback callback, Executor executor) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Attributes getAttributes() {
      return attributes;
    }
  }
}
