package dev.tern.inprocess;

import static dev.tern.inprocess.RecordingListeners.METHOD;
import static dev.tern.inprocess.RecordingListeners.message;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.inprocess.RecordingListeners.ClientCall;
import dev.tern.inprocess.RecordingListeners.ClientTransportEvents;
import dev.tern.inprocess.RecordingListeners.ServerCall;
import dev.tern.inprocess.RecordingListeners.ServerEvents;
import dev.tern.spi.ClientStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The transport driven from several threads at once: events stay serialized and complete. */
class InProcessTransportConcurrencyTest {
  private final String name = "concurrency-test-" + UUID.randomUUID();
  private final ServerEvents serverEvents = new ServerEvents();
  private final ClientTransportEvents clientEvents = new ClientTransportEvents();
  private final ExecutorService threads = Executors.newFixedThreadPool(3);
  private InProcessServer server;
  private InProcessTransport transport;

  @BeforeEach
  void connect() throws IOException {
    server = new InProcessServer(name);
    server.start(serverEvents);
    transport = new InProcessTransport(new InProcessSocketAddress(name), "localhost", null, 8192);
    transport.start(clientEvents).run();
  }

  @AfterEach
  void tearDown() {
    threads.shutdownNow();
    transport.shutdownNow(Status.UNAVAILABLE);
    server.shutdown();
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
    ClientCall client = new ClientCall();
    ClientStream stream = transport.newStream(METHOD, new Metadata(), CallOptions.DEFAULT);
    stream.start(client);
    ServerCall call = serverEvents.onlyConnection().lastCall();

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
                call.stream.request(1);
              }
              return null;
            },
            () -> {
              for (int i = 0; i < count; i++) {
                stream.request(1);
              }
              return null;
            }));
    call.stream.request(1); // room for the half-close if the writer was last

    List<String> expected = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      expected.add(Integer.toString(i));
    }
    assertThat(call.messages).isEqualTo(expected);
    assertThat(call.events).endsWith("halfClosed");
    assertThat(call.overlaps).hasValue(0);
    assertThat(client.overlaps).hasValue(0);
  }

  @Test
  void cancellingWhileBothSidesWriteClosesEachSideExactlyOnce() throws Exception {
    for (int round = 0; round < 50; round++) {
      ClientCall client = new ClientCall();
      ClientStream stream = transport.newStream(METHOD, new Metadata(), CallOptions.DEFAULT);
      stream.start(client);
      ServerCall call = serverEvents.onlyConnection().lastCall();
      stream.request(Integer.MAX_VALUE);
      call.stream.request(Integer.MAX_VALUE);

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
                  call.stream.writeMessage(message("s" + i));
                }
                return null;
              },
              () -> {
                stream.cancel(Status.CANCELLED.withDescription("round over"));
                return null;
              }));

      assertThat(client.closedCount).hasValue(1);
      assertThat(client.status.getCode()).isEqualTo(Status.Code.CANCELLED);
      assertThat(call.closedStatus.getCode()).isEqualTo(Status.Code.CANCELLED);
      assertThat(client.events).last().isEqualTo("closed:CANCELLED");
      assertThat(call.events).last().isEqualTo("closed:CANCELLED");
      assertThat(client.overlaps).hasValue(0);
      assertThat(call.overlaps).hasValue(0);
    }
    assertThat(clientEvents.events).last().isEqualTo("inUse:false");
  }
}
