package dev.tern.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.testtools.ToolProcess;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A frozen server: one of three Tern servers runs in a child JVM that is stopped with SIGSTOP (the
 * process keeps its sockets but answers nothing, as a server in a long GC pause or a hung host
 * would). Keepalive ({@link ChaosService#KEEPALIVE_TIME_SECONDS} s, then a {@link
 * ChaosService#KEEPALIVE_TIMEOUT_SECONDS} s timeout) must find its connection dead, and the calls
 * must move to the two other servers: calls succeed again within keepalive time + timeout + a
 * margin, and keep succeeding (the frozen server is out of the rotation). SIGCONT, then a stop by
 * its PID, end the child.
 */
@Tag("external-check") // long, or a rerun: -Pexternal-checks and CI (README.md#development)
class FrozenServerTest {
  private static final Pattern PORT = Pattern.compile(ChaosServerMain.READY + "(\\d+)");

  /** Successes in a row that show the frozen server is out of the round_robin rotation. */
  private static final int IN_A_ROW = 30;

  @Test
  @Timeout(90)
  void keepaliveDetectsAFrozenServerAndCallsMoveToTheOthers() throws Exception {
    TernPeer peer = new TernPeer();
    List<InetSocketAddress> servers =
        new ArrayList<>(peer.startServers(ChaosRun.HOSTS.subList(0, 2)));
    ToolProcess child =
        ToolProcess.start(
            "chaos-server",
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                ChaosServerMain.class.getName(),
                ChaosRun.HOSTS.get(2)));
    Peer.Client client = null;
    try {
      assertThat(child.awaitOutput(o -> PORT.matcher(o).find(), Duration.ofSeconds(30)))
          .as("the child server starts: %s", child.output())
          .isTrue();
      Matcher port = PORT.matcher(child.output());
      assertThat(port.find()).isTrue();
      servers.add(new InetSocketAddress(ChaosRun.HOSTS.get(2), Integer.parseInt(port.group(1))));
      client = peer.newClient(servers);
      Workload workload = Workload.start(client, 6);
      List<Outcome> outcomes;
      long frozen;
      long recovered;
      try {
        assertThat(workload.awaitSuccesses(System.nanoTime(), IN_A_ROW, Duration.ofSeconds(20)))
            .as("calls succeed before the freeze")
            .isPositive();
        signal("STOP", child.pid());
        frozen = System.nanoTime();
        recovered =
            workload.awaitSuccesses(
                frozen,
                IN_A_ROW,
                Duration.ofSeconds(
                    ChaosService.KEEPALIVE_TIME_SECONDS
                        + ChaosService.KEEPALIVE_TIMEOUT_SECONDS
                        + 8));
      } finally {
        outcomes = workload.stop();
        signal("CONT", child.pid());
      }
      assertThat(recovered)
          .as(
              "%d calls in a row succeed within keepalive time + timeout + 8 s of the freeze",
              IN_A_ROW)
          .isPositive();
      assertThat(outcomes.stream().filter(o -> !o.allowed()).toList())
          .as("calls that hung or ended with a wrong status")
          .isEmpty();
    } finally {
      if (client != null) {
        client.shutdown(Duration.ofSeconds(5));
      }
      child.stop(Duration.ofSeconds(5));
      peer.stopServers(Duration.ofSeconds(5));
    }
  }

  /** Sends SIG{@code name} to {@code pid} with kill(1). */
  private static void signal(String name, long pid) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0)
        .as("kill -%s %d", name, pid)
        .isTrue();
  }
}
