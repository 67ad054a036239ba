package dev.tern.benchmarks.qps;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.testtools.ProgramRun;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LossProbe's client roles against its server on loopback, over HTTP/2 with TLS and over HTTP/3
 * (the programs bin/h3-loss runs in its network namespace), and its answers to bad flags. The
 * numbers are only checked to be there: timings on a shared machine prove nothing.
 */
class LossProbeTest {
  /** The client roles' one line; counts and latencies are whole numbers. */
  private static final String RESULT =
      "count=[1-9][0-9]* p50_us=\\d+ p90_us=\\d+ p95_us=\\d+ p99_us=\\d+ max_us=\\d+ failed=0";

  @TempDir static Path dir;

  /** One server for the class (its certificate costs a key pair). */
  private static Server server;

  @BeforeAll
  static void startServer() throws Exception {
    server = LossProbe.startServer(new InetSocketAddress("127.0.0.1", 0), dir.resolve("cert.pem"));
  }

  @AfterAll
  static void stopServer() throws InterruptedException {
    server.shutdownNow();
    assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  private static String[] client(String role, boolean http3, String... more) {
    return client(server.getPort(), role, http3, more);
  }

  private static String[] client(int port, String role, boolean http3, String... more) {
    List<String> args = new ArrayList<>();
    args.add("--role=" + role);
    args.add("--address=127.0.0.1:" + port);
    args.add("--ca=" + dir.resolve("cert.pem"));
    if (http3) {
      args.add("--http3");
    }
    args.addAll(List.of(more));
    return args.toArray(new String[0]);
  }

  @Test
  void streamsOverBothProtocolsPrintTheirLatencies() throws Exception {
    for (boolean http3 : new boolean[] {false, true}) {
      ProgramRun run =
          ProgramRun.of(
              LossProbe::run, client("streams", http3, "--calls=4", "--warmup=0", "--duration=1"));
      assertThat(run.status()).as(run.err()).isZero();
      assertThat(run.out().strip()).matches(RESULT);
      assertPercentilesInOrder(run.out());
    }
  }

  @Test
  void firstCallsOverBothProtocolsPrintTheirLatencies() throws Exception {
    for (boolean http3 : new boolean[] {false, true}) {
      ProgramRun run =
          ProgramRun.of(
              LossProbe::run, client("first_call", http3, "--samples=3", "--warmup_samples=1"));
      assertThat(run.status()).as(run.err()).isZero();
      assertThat(run.out().strip()).matches(RESULT.replace("[1-9][0-9]*", "3"));
      assertPercentilesInOrder(run.out());
    }
  }

  /** p50, p90, p95, p99 and max of a result line, each no less than the one before. */
  private static void assertPercentilesInOrder(String line) {
    List<Long> values = new ArrayList<>();
    for (String name : List.of("p50_us", "p90_us", "p95_us", "p99_us", "max_us")) {
      Matcher value = Pattern.compile(" " + name + "=(\\d+)").matcher(line);
      assertThat(value.find()).as(line).isTrue();
      values.add(Long.parseLong(value.group(1)));
    }
    assertThat(values).as(line).isSorted();
  }

  @Test
  void aServerThatIsNotThereIsOneFailedCall() throws Exception {
    int freePort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      freePort = socket.getLocalPort();
    }
    ProgramRun run =
        ProgramRun.of(
            LossProbe::run,
            client(freePort, "first_call", false, "--samples=1", "--warmup_samples=0"));
    assertThat(run.status()).isEqualTo(1);
    assertThat(run.err()).contains("h3-loss-probe: a first call failed: UNAVAILABLE");
    assertThat(run.out()).contains("failed=1");
  }

  @Test
  void badFlagsAreOneLineNamingTheFlag() throws Exception {
    ProgramRun role = ProgramRun.of(LossProbe::run, "--role=client", "--ca=x");
    assertThat(role.status()).isEqualTo(2);
    assertThat(role.err()).contains("--role must be server, streams or first_call, not client");
    ProgramRun noCa = ProgramRun.of(LossProbe::run, "--role=streams");
    assertThat(noCa.status()).isEqualTo(2);
    assertThat(noCa.err()).contains("--role=streams needs --ca");
    ProgramRun noCert = ProgramRun.of(LossProbe::run, "--role=server");
    assertThat(noCert.status()).isEqualTo(2);
    assertThat(noCert.err()).contains("--role=server needs --cert_out");
    ProgramRun address =
        ProgramRun.of(LossProbe::run, "--role=streams", "--address=nowhere", "--ca=x");
    assertThat(address.status()).isEqualTo(2);
    assertThat(address.err()).contains("--address must be host:port");
  }
}
