package dev.tern.internal.server;

import static dev.tern.internal.server.ServerTestSupport.echoService;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Attributes;
import dev.tern.Metadata;
import dev.tern.MutableHandlerRegistry;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.internal.server.ServerTestSupport.RecordingHandler;
import dev.tern.internal.wire.GrpcHeaders;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** The server's lifecycle: start, ports, shutdown, shutdownNow, termination. */
class ServerImplTest {
  private final RecordingHandler handler = new RecordingHandler();
  private final FakeServerBuilder builder = new FakeServerBuilder().directExecutor();
  private final FakeTransportServer transportServer = builder.transportServer;

  private Server newServer() {
    return builder.addService(echoService(handler)).build();
  }

  private FakeServerTransport connect() {
    FakeServerTransport transport = transportServer.accept();
    transport.ready(Attributes.EMPTY);
    return transport;
  }

  @Test
  void build_makesAServerImplThatReportsTheAddedServices() {
    ServerServiceDefinition other =
        ServerServiceDefinition.builder("test.Other")
            .addMethod(ServerTestSupport.method("test.Other/M", false), handler)
            .build();
    builder.addService(other);

    Server server = newServer();

    assertThat(server).isInstanceOf(ServerImpl.class);
    assertThat(server.getServices())
        .extracting(s -> s.getServiceDescriptor().getName())
        .containsExactly("test.Other", "test.Echo");
  }

  @Test
  void everyCallContext_holdsTheServerHandlingIt_withOrWithoutADeadline() throws IOException {
    MutableHandlerRegistry fallback = new MutableHandlerRegistry();
    fallback.addService(
        ServerServiceDefinition.builder("dyn.Svc")
            .addMethod(ServerTestSupport.method("dyn.Svc/M", false), handler)
            .build());
    Server server =
        builder.fallbackHandlerRegistry(fallback).addService(echoService(handler)).build();
    server.start();
    FakeServerTransport transport = connect();
    Metadata withDeadline = new Metadata();
    withDeadline.put(GrpcHeaders.TIMEOUT, "10S");

    transport.newStream("test.Echo/Unary", new Metadata());
    transport.newStream("test.Echo/Unary", withDeadline);
    transport.newStream("dyn.Svc/M", new Metadata());

    assertThat(handler.contexts).hasSize(3);
    assertThat(handler.contexts)
        .allSatisfy(c -> assertThat(Server.CONTEXT_KEY.get(c)).isSameAs(server));
    assertThat(handler.contexts.get(1).getDeadline()).isNotNull();
    assertThat(Server.CONTEXT_KEY.get()).isNull();
    server.shutdownNow();
  }

  @Test
  void getMutableServices_isWhatTheFallbackRegistryHoldsAtTheTime() {
    MutableHandlerRegistry fallback = new MutableHandlerRegistry();
    Server server =
        builder.fallbackHandlerRegistry(fallback).addService(echoService(handler)).build();
    assertThat(server.getMutableServices()).isEmpty();

    ServerServiceDefinition dynamic =
        ServerServiceDefinition.builder("dyn.Svc")
            .addMethod(ServerTestSupport.method("dyn.Svc/M", false), handler)
            .build();
    fallback.addService(dynamic);

    assertThat(server.getMutableServices()).containsExactly(dynamic);
    assertThat(server.getServices())
        .extracting(s -> s.getServiceDescriptor().getName())
        .containsExactly("test.Echo");
    fallback.removeService(dynamic);
    assertThat(server.getMutableServices()).isEmpty();
  }

  @Test
  void getMutableServices_isEmptyWithoutAFallbackRegistry() {
    assertThat(newServer().getMutableServices()).isEmpty();
  }

  @Test
  void start_startsTheTransportServerOnce() throws IOException {
    Server server = newServer();

    assertThat(server.start()).isSameAs(server);

    assertThat(transportServer.startCount).isEqualTo(1);
    assertThatThrownBy(server::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already started");
    assertThat(transportServer.startCount).isEqualTo(1);
  }

  @Test
  void start_afterShutdownThrows() {
    Server server = newServer();
    server.shutdown();

    assertThatThrownBy(server::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("shut down");
    assertThat(transportServer.startCount).isZero();
  }

  @Test
  void getPort_isThePortOfTheFirstInetAddress_andListenSocketsAreEmptyBeforeStart()
      throws IOException {
    SocketAddress nonInet = new SocketAddress() {};
    transportServer.listenAddresses = List.of(nonInet, new InetSocketAddress(50051));
    Server server = newServer();

    assertThat(server.getPort()).isEqualTo(-1);
    assertThat(server.getListenSockets()).isEmpty();
    server.start();

    assertThat(server.getPort()).isEqualTo(50051);
    assertThat(server.getListenSockets()).hasSize(2);
  }

  @Test
  void getPort_isMinusOneWithoutAnInetAddress() throws IOException {
    transportServer.listenAddresses = List.of(new SocketAddress() {});
    Server server = newServer().start();

    assertThat(server.getPort()).isEqualTo(-1);
  }

  @Test
  void neverStartedServer_terminatesAtOnceOnShutdownWithoutTouchingTheTransportServer()
      throws InterruptedException {
    Server server = newServer();

    server.shutdown();

    assertThat(server.isShutdown()).isTrue();
    assertThat(server.isTerminated()).isTrue();
    assertThat(server.awaitTermination(0, TimeUnit.SECONDS)).isTrue();
    assertThat(transportServer.shutdownCount).isZero();
  }

  @Test
  void failedStart_propagatesAndThenShutdownTerminatesAtOnce() {
    transportServer.startFailure = new IOException("Address already in use");
    Server server = newServer();

    assertThatThrownBy(server::start).isInstanceOf(IOException.class);
    assertThat(server.isTerminated()).isFalse();
    server.shutdown();

    assertThat(server.isTerminated()).isTrue();
    assertThat(transportServer.shutdownCount).isZero();
  }

  @Test
  void shutdown_letsCallsInFlightFinish_andTerminatesWhenTheLastTransportIsGone()
      throws IOException, InterruptedException {
    Server server = newServer().start();
    FakeServerTransport transport = connect();
    FakeServerStream stream = transport.newStream("test.Echo/Unary", new Metadata());

    server.shutdown();

    assertThat(server.isShutdown()).isTrue();
    assertThat(transportServer.shutdownCount).isEqualTo(1);
    assertThat(transport.shutdownCalled).isTrue();
    assertThat(transport.shutdownNowStatus).isNull();
    assertThat(server.isTerminated()).isFalse();
    assertThat(server.awaitTermination(1, TimeUnit.MILLISECONDS)).isFalse();

    // The call in flight goes on to a normal end.
    stream.clientSends("request");
    handler.lastCall().sendMessage("response");
    handler.lastCall().close(Status.OK, new Metadata());
    stream.completeClose();
    assertThat(stream.writtenMessages).containsExactly("response");
    assertThat(handler.lastListener().events).containsExactly("message:request", "complete");

    transport.terminate();
    assertThat(server.isTerminated()).isTrue();
    assertThat(server.awaitTermination(0, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void terminated_onlyAfterTheTransportServerReportsShutdownAndEveryTransportTerminates()
      throws IOException {
    transportServer.holdShutdownReport = true;
    Server server = newServer().start();
    FakeServerTransport first = connect();
    FakeServerTransport second = connect();
    server.shutdown();

    first.terminate();
    assertThat(server.isTerminated()).isFalse();
    transportServer.reportServerShutdown();
    assertThat(server.isTerminated()).isFalse();
    second.terminate();

    assertThat(server.isTerminated()).isTrue();
  }

  @Test
  void shutdownNow_cancelsCallsInFlightWithUnavailable() throws IOException {
    Server server = newServer().start();
    FakeServerTransport transport = connect();
    FakeServerStream stream = transport.newStream("test.Echo/Bidi", new Metadata());

    server.shutdownNow();

    assertThat(transport.shutdownNowStatus.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(transport.shutdownNowStatus.getDescription())
        .isEqualTo("Server shutdownNow invoked");
    assertThat(stream.cancelStatus).isSameAs(transport.shutdownNowStatus);
    assertThat(handler.lastListener().events).containsExactly("ready", "cancel");
    assertThat(handler.lastContext().isCancelled()).isTrue();
    assertThat(server.isShutdown()).isTrue();
    transport.terminate();
    assertThat(server.isTerminated()).isTrue();
  }

  @Test
  void shutdownNow_afterShutdownStillCancelsTheRemainingCalls() throws IOException {
    Server server = newServer().start();
    FakeServerTransport transport = connect();
    FakeServerStream stream = transport.newStream("test.Echo/Bidi", new Metadata());

    server.shutdown();
    assertThat(stream.cancelStatus).isNull();
    server.shutdownNow();

    assertThat(stream.cancelStatus.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void connectionAcceptedDuringShutdown_isShutDownWhenReady() throws IOException {
    transportServer.holdShutdownReport = true; // the listener may still hand us a connection
    Server server = newServer().start();
    server.shutdown();

    FakeServerTransport late = connect();
    assertThat(late.shutdownCalled).isTrue();
    assertThat(late.shutdownNowStatus).isNull();

    server.shutdownNow();
    FakeServerTransport later = connect();
    assertThat(later.shutdownNowStatus.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  /**
   * A connection the listener hands over after shutdown() is told at once, before its client's
   * preface: a client that became ready on it would send calls only to have them refused.
   */
  @Test
  void connectionAcceptedDuringShutdown_isShutDownBeforeItIsReady() throws IOException {
    transportServer.holdShutdownReport = true;
    Server server = newServer().start();
    server.shutdown();

    FakeServerTransport late = transportServer.accept();
    transportServer.scheduler.runDueTasks();
    assertThat(late.shutdownCalled).isTrue();
    assertThat(late.shutdownNowStatus).isNull();

    server.shutdownNow();
    FakeServerTransport later = transportServer.accept();
    transportServer.scheduler.runDueTasks();
    assertThat(later.shutdownNowStatus.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void awaitTermination_wakesAWaitingThreadWhenTheServerTerminates()
      throws IOException, InterruptedException, ExecutionException, TimeoutException {
    Server server = newServer().start();
    FakeServerTransport transport = connect();
    server.shutdown();
    CompletableFuture<Void> waiter =
        CompletableFuture.runAsync(
            () -> {
              try {
                server.awaitTermination();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    CompletableFuture<Boolean> timedWaiter =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return server.awaitTermination(1, TimeUnit.MINUTES);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(waiter.isDone()).isFalse();

    transport.terminate();

    waiter.get(30, TimeUnit.SECONDS);
    assertThat(timedWaiter.get(30, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void shutdown_isIdempotent() throws IOException {
    Server server = newServer().start();
    FakeServerTransport transport = connect();

    server.shutdown();
    server.shutdown();
    server.shutdownNow();
    server.shutdownNow();

    assertThat(transportServer.shutdownCount).isEqualTo(1);
    assertThat(transport.shutdownNowStatus).isNotNull();
  }

  @Test
  void shutdownDuringStart_stopsTheTransportServerOnceStartReturns() throws IOException {
    Server server = newServer();
    transportServer.duringStart = server::shutdown; // as another thread could

    server.start();

    assertThat(transportServer.shutdownCount).isEqualTo(1);
    assertThat(server.isTerminated()).isTrue();
  }
}
