package dev.tern.examples.keepalive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.Server;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The keepalive example as a user runs it: its server and its client over HTTP/2 on loopback. */
class KeepAliveExampleTest {
  private Server server;
  private ManagedChannel channel;

  @AfterEach
  void stop() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void theClientWithKeepaliveGreetsTheServerWithKeepalive() throws Exception {
    server = KeepAliveServer.start(0);
    channel = KeepAliveClient.channel("127.0.0.1:" + server.getPort());

    List<String> replies = KeepAliveClient.greet(channel, List.of("Ada", "Grace"), 0);

    assertThat(replies).containsExactly("Hello, Ada!", "Hello, Grace!");
  }
}
