package dev.tern.internal.server;

import static dev.tern.internal.server.ServerTestSupport.echoService;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Attributes;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.ServerTransportFilter;
import dev.tern.Status;
import dev.tern.internal.server.ServerTestSupport.RecordingHandler;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One connection: transport filters, attributes, handshake timeout, termination. */
class ServerConnectionTest {
  private static final Logger connectionLogger = Logger.getLogger(ServerConnection.class.getName());
  private static final Attributes.Key<String> STEPS = Attributes.Key.create("steps");

  private final RecordingHandler handler = new RecordingHandler();
  private final FakeServerBuilder builder = new FakeServerBuilder().directExecutor();
  private final FakeTransportServer transportServer = builder.transportServer;
  private final List<String> events = new ArrayList<>();
  private Level savedLevel;

  @BeforeEach
  void quietLogger() {
    savedLevel = connectionLogger.getLevel();
    connectionLogger.setLevel(Level.OFF);
  }

  @AfterEach
  void restoreLogger() {
    connectionLogger.setLevel(savedLevel);
  }

  private Server startServer() throws IOException {
    return builder.addService(echoService(handler)).build().start();
  }

  /** Appends its name to the STEPS attribute and records what it saw. */
  private ServerTransportFilter appendingFilter(String name) {
    return new ServerTransportFilter() {
      @Override
      public Attributes transportReady(Attributes attrs) {
        String steps = attrs.get(STEPS);
        events.add(name + ".ready(" + steps + ")");
        return attrs.toBuilder().set(STEPS, steps == null ? name : steps + "," + name).build();
      }

      @Override
      public void transportTerminated(Attributes attrs) {
        events.add(name + ".terminated(" + attrs.get(STEPS) + ")");
      }
    };
  }

  @Test
  void filters_runInOrderEachGivenThePreviousResult() throws IOException {
    builder.addTransportFilter(appendingFilter("a")).addTransportFilter(appendingFilter("b"));
    startServer();
    FakeServerTransport transport = transportServer.accept();

    Attributes result = transport.ready(Attributes.newBuilder().set(STEPS, "transport").build());

    assertThat(events).containsExactly("a.ready(transport)", "b.ready(transport,a)");
    assertThat(result.get(STEPS)).isEqualTo("transport,a,b");
  }

  @Test
  void filterAttributes_areVisibleToCallsThroughGetAttributes() throws IOException {
    builder.addTransportFilter(appendingFilter("auth"));
    startServer();
    FakeServerTransport transport = transportServer.accept();
    transport.ready(Attributes.EMPTY);

    transport.newStream("test.Echo/Unary", new Metadata());

    assertThat(handler.lastCall().getAttributes().get(STEPS)).isEqualTo("auth");
  }

  @Test
  void transportTerminated_givesEveryFilterTheFinalAttributes() throws IOException {
    builder.addTransportFilter(appendingFilter("a")).addTransportFilter(appendingFilter("b"));
    startServer();
    FakeServerTransport transport = transportServer.accept();
    transport.ready(Attributes.EMPTY);
    events.clear();

    transport.terminate();

    assertThat(events).containsExactly("a.terminated(a,b)", "b.terminated(a,b)");
  }

  @Test
  void throwingFilter_failsTheConnectionClosedButStillHearsTermination() throws IOException {
    ServerTransportFilter broken =
        new ServerTransportFilter() {
          @Override
          public Attributes transportReady(Attributes attrs) {
            throw new IllegalStateException("auth backend down");
          }
        };
    builder
        .addTransportFilter(appendingFilter("a"))
        .addTransportFilter(broken)
        .addTransportFilter(appendingFilter("c"));
    Server server = startServer();
    FakeServerTransport transport = transportServer.accept();

    transport.ready(Attributes.EMPTY);

    assertThat(events).containsExactly("a.ready(null)"); // c never saw the connection
    assertThat(transport.shutdownNowStatus.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    FakeServerStream stream = transport.newStream("test.Echo/Unary", new Metadata());
    assertThat(stream.closeStatus.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(handler.calls).isEmpty();

    // Filters after the broken one hear termination too, with the attributes as far as they got.
    transport.terminate();
    assertThat(events).endsWith("a.terminated(a)", "c.terminated(a)");
    server.shutdown();
    assertThat(server.isTerminated()).isTrue();
  }

  @Test
  void connectionNotReadyWithinTheHandshakeTimeout_isClosed() throws IOException {
    builder.handshakeTimeout(5, TimeUnit.SECONDS);
    startServer();
    FakeServerTransport slow = transportServer.accept();

    transportServer.scheduler.forwardTime(4, TimeUnit.SECONDS);
    assertThat(slow.shutdownNowStatus).isNull();
    transportServer.scheduler.forwardTime(1, TimeUnit.SECONDS);

    assertThat(slow.shutdownNowStatus.getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(slow.shutdownNowStatus.getDescription()).contains("Handshake timeout");
  }

  @Test
  void connectionReadyInTime_cancelsItsHandshakeTimer() throws IOException {
    startServer();
    FakeServerTransport transport = transportServer.accept();
    assertThat(ServerTestSupport.onlyPendingDelay(transportServer.scheduler, TimeUnit.SECONDS))
        .isEqualTo(20);

    transport.ready(Attributes.EMPTY);

    assertThat(transportServer.scheduler.getPendingTasks()).isEmpty();
    transportServer.scheduler.forwardTime(1, TimeUnit.HOURS);
    assertThat(transport.shutdownNowStatus).isNull();
  }

  @Test
  void connectionThatNeverBecameReady_stillTerminatesTheFiltersAndTheServer() throws IOException {
    builder.addTransportFilter(appendingFilter("a"));
    Server server = startServer();
    FakeServerTransport transport = transportServer.accept();
    server.shutdown();

    transport.terminate();

    assertThat(events).containsExactly("a.terminated(null)");
    assertThat(transportServer.scheduler.getPendingTasks()).isEmpty();
    assertThat(server.isTerminated()).isTrue();
  }

  /** Keeps the connection handle it is given; refuses every connection if told to. */
  private static final class HandleKeeper extends ServerTransportFilter {
    volatile ServerTransportFilter.Connection connection;
    volatile Status refuseWith;

    @Override
    public Attributes transportReady(Attributes attrs, ServerTransportFilter.Connection c) {
      connection = c;
      if (refuseWith != null) {
        c.refuse(refuseWith);
      }
      return attrs;
    }
  }

  @Test
  void refusingFilter_closesTheConnectionAndFailsItsCallsWithItsStatus() throws IOException {
    HandleKeeper keeper = new HandleKeeper();
    keeper.refuseWith = Status.UNAVAILABLE.withDescription("no filter chain matches");
    builder.addTransportFilter(keeper).addTransportFilter(appendingFilter("after"));
    startServer();
    FakeServerTransport transport = transportServer.accept();

    transport.ready(Attributes.EMPTY);

    assertThat(transport.shutdownNowStatus).isSameAs(keeper.refuseWith);
    assertThat(events).isEmpty(); // the filter after the refusing one never saw it
    FakeServerStream stream = transport.newStream("test.Echo/Unary", new Metadata());
    assertThat(stream.closeStatus.getDescription()).isEqualTo("no filter chain matches");
    assertThat(handler.calls).isEmpty();
  }

  @Test
  void refuse_rejectsAnOkStatus() throws IOException {
    HandleKeeper keeper = new HandleKeeper();
    builder.addTransportFilter(keeper);
    startServer();
    transportServer.accept().ready(Attributes.EMPTY);

    assertThatThrownBy(() -> keeper.connection.refuse(Status.OK))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("non-OK");
  }

  @Test
  void drain_shutsDownGracefullyThenClosesAfterTheGracePeriod() throws IOException {
    HandleKeeper keeper = new HandleKeeper();
    builder.addTransportFilter(keeper);
    startServer();
    FakeServerTransport transport = transportServer.accept();
    transport.ready(Attributes.EMPTY);
    FakeServerStream inFlight = transport.newStream("test.Echo/Unary", new Metadata());

    keeper.connection.drain(10, TimeUnit.SECONDS);
    keeper.connection.drain(1, TimeUnit.SECONDS); // a second drain changes nothing

    assertThat(transport.shutdownCalled).isTrue();
    assertThat(transport.shutdownNowStatus).isNull();
    assertThat(inFlight.closeStatus).isNull(); // the call in flight goes on
    transportServer.scheduler.forwardTime(9, TimeUnit.SECONDS);
    assertThat(transport.shutdownNowStatus).isNull();
    transportServer.scheduler.forwardTime(1, TimeUnit.SECONDS);
    assertThat(transport.shutdownNowStatus.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(transport.shutdownNowStatus.getDescription()).contains("grace period");
  }

  @Test
  void drainedConnectionThatEndsInTime_cancelsItsGraceTimer() throws IOException {
    HandleKeeper keeper = new HandleKeeper();
    builder.addTransportFilter(keeper);
    startServer();
    FakeServerTransport transport = transportServer.accept();
    transport.ready(Attributes.EMPTY);
    keeper.connection.drain(10, TimeUnit.SECONDS);

    transport.terminate();

    assertThat(transportServer.scheduler.getPendingTasks()).isEmpty();
    assertThatThrownBy(() -> keeper.connection.drain(-1, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("gracePeriod");
  }
}
