package dev.tern.examples.deadline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.testing.TernCleanupExtension;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The deadline example over HTTP/2: what {@code DeadlineClient} gets from a real server. */
class DeadlineExampleTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();
  private DeadlineServer server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    server = DeadlineServer.start(0);
    channel =
        cleanup.register(
            ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());
  }

  @AfterEach
  void stop() throws InterruptedException {
    server.stop();
  }

  @Test
  void aLongEnoughDeadlineGetsTheGreeting() {
    assertThat(DeadlineClient.sayHello(channel, "Ada", 2000)).startsWith("Hello, Ada!");
  }

  @Test
  void aShortDeadlineFailsWithDeadlineExceeded() {
    assertThatThrownBy(() -> DeadlineClient.sayHello(channel, "Ada", 50))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
  }

  @Test
  void eachHopGetsWhatIsLeftOfTheClientsDeadline() {
    String reply = DeadlineClient.sayHello(channel, ">>Ada", 3000);

    // Three servers worked 200 ms each before the last one answered: it had the client's deadline
    // less at least 400 ms, not a fresh deadline (nor none).
    Matcher left = Pattern.compile("the last hop had (\\d+) ms left").matcher(reply);
    assertThat(left.find()).as(reply).isTrue();
    assertThat(Long.parseLong(left.group(1))).isBetween(1L, 3000L - 2 * DeadlineServer.WORK_MILLIS);
  }

  @Test
  void aChainLongerThanTheDeadlineFailsAtTheClientInTime() {
    long start = System.nanoTime();

    assertThatThrownBy(() -> DeadlineClient.sayHello(channel, ">".repeat(9) + "Ada", 700))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
    // The client gives up at its deadline, not after the ten servers' 2 s of work.
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
        .isLessThan(10 * DeadlineServer.WORK_MILLIS);
  }
}
