package dev.tern.netty.balancing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.netty.balancing.FlakyService.Attempt;
import dev.tern.netty.balancing.FlakyService.Reply;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.testing.RecordingClientCallListener;
import dev.tern.testing.TernCleanupExtension;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The retry buffer's per-call limit ({@code perRpcBufferLimit}) over a real transport: a
 * client-streaming call sends 10 requests of 512 bytes to a server that fails its first attempt
 * UNAVAILABLE after reading them all. A call whose requests do not fit its buffer commits to its
 * attempt and cannot be retried; one whose requests fit is retried with all of them.
 */
class RetryBufferEndToEndTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final int REQUESTS = 10;
  private static final String REQUEST = "x".repeat(512);

  @Test
  void callThatOutgrowsItsBufferIsNotRetried() throws Exception {
    FlakyService flaky = new FlakyService(Reply.fail(Status.Code.UNAVAILABLE));

    RecordingClientCallListener.Closed closed = upload(flaky, 1024);

    assertThat(closed.status().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    List<Attempt> attempts = flaky.attempts();
    assertThat(attempts).as("attempts the server saw").hasSize(1);
    assertThat(attempts.get(0).requests()).hasSize(REQUESTS);
  }

  @Test
  void callThatFitsItsBufferIsRetriedWithEveryRequest() throws Exception {
    FlakyService flaky = new FlakyService(Reply.fail(Status.Code.UNAVAILABLE));

    RecordingClientCallListener.Closed closed = upload(flaky, 64 * 1024);

    assertThat(closed.status().getCode()).isEqualTo(Status.Code.OK);
    List<Attempt> attempts = flaky.attempts();
    assertThat(attempts).as("attempts the server saw").hasSize(2);
    assertThat(attempts.get(1).previousAttempts()).isEqualTo("1");
    assertThat(attempts.get(1).requests()).hasSize(REQUESTS).containsOnly(REQUEST);
  }

  private RecordingClientCallListener.Closed upload(FlakyService flaky, long perRpcBufferLimit)
      throws Exception {
    Server server = flaky.serve(cleanup);
    ManagedChannel channel =
        cleanup.register(
            ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .usePlaintext()
                .defaultServiceConfigJson(
                    ServiceConfigs.retry(FlakyService.SERVICE, 3, "UNAVAILABLE"))
                .perRpcBufferLimit(perRpcBufferLimit)
                .build());
    ClientCall<String, String> call =
        channel.newCall(
            FlakyService.UPLOAD, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS));
    RecordingClientCallListener<String> listener = new RecordingClientCallListener<>();
    call.start(listener, new Metadata());
    call.request(1);
    for (int i = 0; i < REQUESTS; i++) {
      call.sendMessage(REQUEST);
    }
    call.halfClose();
    RecordingClientCallListener.Closed closed = listener.awaitClose();
    assertThat(listener.violations()).isEmpty();
    return closed;
  }
}
