package dev.tern.inprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.testing.RecordingClientStreamListener;
import dev.tern.testing.RecordingServerListener;
import dev.tern.testing.RecordingServerStreamListener;
import dev.tern.testing.RecordingServerTransportListener;
import dev.tern.testing.RecordingServerTransportListener.StreamCreated;
import dev.tern.testing.RecordingTransportListener;
import dev.tern.testing.TestMarshallers;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The in-process transport driven from several threads at once: events stay serialized (the
 * recording listeners report overlapping callbacks as violations) and complete.
 */
class InProcessTransportConcurrencyTest {
  private static final MethodDescriptor<byte[], byte[]> METHOD =
      MethodDescriptor.newBuilder(TestMarshallers.bytes(), TestMarshallers.bytes())
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName("test.Echo/Chat")
          .build();

  private final String name = "concurrency-test-" + UUID.randomUUID();
  private final RecordingServerListener serverListener = new RecordingServerListener();
  private final RecordingTransportListener clientListener = new RecordingTransportListener();
  private final ExecutorService threads = Executors.newFixedThreadPool(3);
  private InProcessServer server;
  private InProcessTransport transport;
  private RecordingServerTransportListener connection;

  @BeforeEach
  void connect() throws IOException {
    server = new InProcessServer(name);
    server.start(serverListener);
    transport = new InProcessTransport(new InProcessSocketAddress(name), "localhost", null, 8192);
    transport.start(clientListener).run();
    connection = serverListener.awaitTransport();
  }

  @AfterEach
  void tearDown() {
    threads.shutdownNow();
    transport.shutdownNow(Status.UNAVAILABLE);
    server.shutdown();
    assertThat(clientListener.violations()).as("client transport contract breaches").isEmpty();
    assertThat(serverListener.violations()).as("server side contract breaches").isEmpty();
  }

  private static InputStream message(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }

  /** Runs the tasks on separate threads, released together, and waits for all of them. */
  private void runTogether(List<Callable<Void>> tasks) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Void>> futures = new ArrayList<>();
    for (Callable<Void> task : tasks) {
      futures.add(
          threads.submit(
              () -> {
                go.await();
                return task.call();
              }));
    }
    go.countDown();
    for (Future<Void> f : futures) {
      f.get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void writesAndRequestsFromDifferentThreadsDeliverEveryMessageInOrder() throws Exception {
    int count = 2_000;
    RecordingClientStreamListener client = new RecordingClientStreamListener();
    ClientStream stream = transport.newStream(METHOD, new Metadata(), CallOptions.DEFAULT);
    stream.start(client);
    StreamCreated created = connection.awaitStream();
    RecordingServerStreamListener call = created.listener();

    runTogether(
        List.of(
            () -> {
              for (int i = 0; i < count; i++) {
                stream.writeMessage(message(Integer.toString(i)));
              }
              stream.halfClose();
              return null;
            },
            () -> {
              for (int i = 0; i < count; i++) {
                call.request(created.stream(), 1);
              }
              return null;
            },
            () -> {
              for (int i = 0; i < count; i++) {
                client.request(stream, 1);
              }
              return null;
            }));
    call.request(created.stream(), 1); // room for the half-close if the writer was last

    assertThat(call.messagesNotTaken()).isEqualTo(count);
    List<String> received = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      received.add(new String(call.awaitMessage(), StandardCharsets.UTF_8));
      expected.add(Integer.toString(i));
    }
    assertThat(received).isEqualTo(expected);
    // The server may be told it is ready to send at any time, half-closed or not: the last of
    // the other events is the half-close, after every message.
    assertThat(call.events()).filteredOn(event -> !event.equals("onReady")).endsWith("halfClosed");
    // Overlapping callbacks are violations.
    assertThat(call.violations()).isEmpty();
    assertThat(client.violations()).isEmpty();
  }

  @Test
  void cancellingWhileBothSidesWriteClosesEachSideExactlyOnce() throws Exception {
    for (int round = 0; round < 50; round++) {
      RecordingClientStreamListener client = new RecordingClientStreamListener();
      ClientStream stream = transport.newStream(METHOD, new Metadata(), CallOptions.DEFAULT);
      stream.start(client);
      StreamCreated created = connection.awaitStream();
      RecordingServerStreamListener call = created.listener();
      client.request(stream, Integer.MAX_VALUE);
      call.request(created.stream(), Integer.MAX_VALUE);

      runTogether(
          List.of(
              () -> {
                for (int i = 0; i < 100; i++) {
                  stream.writeMessage(message("c" + i));
                }
                return null;
              },
              () -> {
                for (int i = 0; i < 100; i++) {
                  created.stream().writeMessage(message("s" + i));
                }
                return null;
              },
              () -> {
                stream.cancel(Status.CANCELLED.withDescription("round over"));
                return null;
              }));

      // Closed already, and exactly once: a second closed() is a violation.
      assertThat(client.isClosed()).isTrue();
      assertThat(call.isClosed()).isTrue();
      assertThat(client.awaitStatus().getCode()).isEqualTo(Status.Code.CANCELLED);
      assertThat(call.awaitClosed().getCode()).isEqualTo(Status.Code.CANCELLED);
      assertThat(client.events()).last().isEqualTo("closed:CANCELLED");
      assertThat(call.events()).last().isEqualTo("closed:CANCELLED");
      assertThat(client.violations()).isEmpty();
      assertThat(call.violations()).isEmpty();
    }
    assertThat(clientListener.events()).last().isEqualTo("inUse:false");
  }

  /**
   * A channel learns that a connection is shut down from the transport's event; a stream refused
   * because of that shutdown must not close before the event has reached the channel, or the call's
   * transparent retry picks the same connection again (and again: CI once saw a call give up after
   * 100 such retries while another thread was still delivering the connection's previous event).
   */
  @Test
  void aStreamRefusedAfterShutdownClosesOnlyOnceTheClientHeardOfTheShutdown() throws Exception {
    List<String> heard = new CopyOnWriteArrayList<>();
    CountDownLatch inReady = new CountDownLatch(1);
    CountDownLatch letReadyReturn = new CountDownLatch(1);
    ManagedClientTransport.Listener slowListener =
        new ManagedClientTransport.Listener() {
          @Override
          public void transportReady() {
            inReady.countDown();
            try {
              letReadyReturn.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            heard.add("ready");
          }

          @Override
          public void transportShutdown(Status status) {
            heard.add("shutdown");
          }

          @Override
          public void transportTerminated() {
            heard.add("terminated");
          }

          @Override
          public void transportInUse(boolean inUse) {}
        };
    InProcessTransport second =
        new InProcessTransport(new InProcessSocketAddress(name), "localhost", null, 8192);
    // Another thread connects and is still delivering transportReady, so it owns the client events.
    Future<?> connecting = threads.submit(second.start(slowListener));
    assertThat(inReady.await(30, TimeUnit.SECONDS)).isTrue();
    try {
      serverListener.awaitTransport().transport().shutdown();
      RecordingClientStreamListener refused = new RecordingClientStreamListener();
      second.newStream(METHOD, new Metadata(), CallOptions.DEFAULT).start(refused);

      assertThat(refused.isClosed()).as("closed before the client heard of the shutdown").isFalse();
      letReadyReturn.countDown();
      connecting.get(30, TimeUnit.SECONDS);

      assertThat(heard).startsWith("ready", "shutdown");
      assertThat(refused.isClosed()).isTrue();
      assertThat(refused.awaitClosed().status().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(refused.awaitClosed().progress()).isEqualTo(RpcProgress.DROPPED);
      assertThat(refused.violations()).isEmpty();
    } finally {
      letReadyReturn.countDown();
      second.shutdownNow(Status.UNAVAILABLE);
    }
  }
}
