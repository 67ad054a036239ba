package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.FLAG_END_HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.HEADERS;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcMessage;
import static dev.tern.netty.hostile.RawHttp2Connection.grpcRequestHeaders;
import static dev.tern.netty.hostile.RawHttp2Connection.headerBlock;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.ServerStreamTracer;
import dev.tern.Status;
import dev.tern.testing.Await;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import java.io.IOException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A client whose connection dies of a TCP reset under a call: the server ends the call UNAVAILABLE
 * saying it was an I/O error, with the IOException as the cause, and logs no WARNING, whether the
 * reset reaches it as a failed read or as a failed write.
 */
class ConnectionResetStatusTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @Test
  void callOnAConnectionResetByTheClientEndsWithTheIoErrorAsCause() throws Exception {
    HostileProbe probe = new HostileProbe();
    BlockingQueue<Status> closed = new LinkedBlockingQueue<>();
    Server server = start(probe, closed);
    try (LogCapture tail = new LogCapture("io.netty.channel.DefaultChannelPipeline", null);
        RawHttp2Connection raw = RawHttp2Connection.open(server.getPort())) {
      raw.writeFrame(
          HEADERS,
          FLAG_END_HEADERS,
          1,
          headerBlock(grpcRequestHeaders("/" + HostileProbe.HANG.getFullMethodName())));
      assertThat(probe.hangsStarted.poll(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS))
          .as("the call started")
          .isNotNull();

      raw.reset();

      assertThat(assertEndedByTheReset(closed).getDescription()).containsIgnoringCase("reset");
      assertThat(tail.records()).isEmpty();
    }
  }

  /**
   * The reset meets the server writing: its responses fill the client's small TCP window, the
   * server stops reading while it cannot write, and the reset reaches it as a failed write (which
   * closes the channel without an exceptionCaught) rather than as a failed read.
   */
  @Test
  void callWhoseResponseWriteMeetsTheResetEndsWithTheIoErrorAsCause() throws Exception {
    HostileProbe probe = new HostileProbe();
    BlockingQueue<Status> closed = new LinkedBlockingQueue<>();
    Server server = start(probe, closed);
    try (LogCapture tail = new LogCapture("io.netty.channel.DefaultChannelPipeline", null);
        RawHttp2Connection raw = RawHttp2Connection.openWithReceiveBuffer(server.getPort(), 4096)) {
      // Windows wide open, so that only TCP holds the server's DATA back.
      raw.writeWindowUpdate(0, Integer.MAX_VALUE - 65_535);
      raw.writeHeaders(1, false, grpcRequestHeaders("/" + HostileProbe.BULK.getFullMethodName()));
      raw.writeWindowUpdate(1, Integer.MAX_VALUE - 65_535);
      raw.writeData(1, true, grpcMessage(0, "100000:16384".getBytes(UTF_8)));
      assertThat(probe.bulkHeldBack.poll(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS))
          .as("the server's writes held back by the full connection")
          .isNotNull();

      raw.reset();

      assertEndedByTheReset(closed);
      assertThat(tail.records()).isEmpty();
    }
  }

  private static Status assertEndedByTheReset(BlockingQueue<Status> closed)
      throws InterruptedException {
    Status status = closed.poll(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
    assertThat(status).as("the call's end on the server").isNotNull();
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).contains("I/O error");
    assertThat(status.getCause()).isInstanceOf(IOException.class);
    return status;
  }

  private Server start(HostileProbe probe, BlockingQueue<Status> closed) throws IOException {
    return cleanup.register(
        ServerBuilder.forPort(0)
            .addService(probe.definition())
            .addStreamTracerFactory(
                new ServerStreamTracer.Factory() {
                  @Override
                  public ServerStreamTracer newServerStreamTracer(
                      String fullMethodName, Metadata headers) {
                    return new ServerStreamTracer() {
                      @Override
                      public void streamClosed(Status status) {
                        closed.add(status);
                      }
                    };
                  }
                })
            .build()
            .start());
  }
}
