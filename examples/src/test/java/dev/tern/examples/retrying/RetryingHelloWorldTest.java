package dev.tern.examples.retrying;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.examples.retrying.RetryingHelloWorldClient.Result;
import dev.tern.testing.TernCleanupExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The retrying example over HTTP/2: a flaky server, and a client whose service config retries. */
class RetryingHelloWorldTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @Test
  void everyCallSucceedsAfterRetries() throws Exception {
    Server server = cleanup.register(RetryingHelloWorldServer.start(0, 2));

    Result result = RetryingHelloWorldClient.greet("127.0.0.1:" + server.getPort(), 10, true);

    // Each call fails twice with UNAVAILABLE, then succeeds on its third attempt.
    assertThat(result).isEqualTo(new Result(10, 10, 30));
  }

  @Test
  void withoutRetriesOnlyTheLuckyCallsSucceed() throws Exception {
    Server server = cleanup.register(RetryingHelloWorldServer.start(0, 2));

    Result result = RetryingHelloWorldClient.greet("127.0.0.1:" + server.getPort(), 9, false);

    assertThat(result).isEqualTo(new Result(9, 3, 9));
  }

  @Test
  void theServiceConfigIsTheResourceShippedWithTheClient() {
    assertThat(RetryingHelloWorldClient.serviceConfig())
        .contains(
            "\"retryPolicy\"", "\"maxAttempts\": 5", "\"retryableStatusCodes\": [\"UNAVAILABLE\"]");
  }
}
