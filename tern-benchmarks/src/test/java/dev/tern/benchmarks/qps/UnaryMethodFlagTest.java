package dev.tern.benchmarks.qps;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ServerCalls;
import dev.tern.testtools.ProgramRun;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --unary_method}, which bin/bench-compare's client part uses to point both qps clients
 * ({@link QpsClient} and grpc-java's {@link GrpcJavaBalancedClient}) at nghttpd's static answer:
 * the calls go to the named method, and a call counts only if it ended with status OK (nghttpd
 * answers every path, so an answer alone proves nothing).
 */
class UnaryMethodFlagTest {
  /** A method name with an extension, as nghttpd needs to give its answer a content-type. */
  private static final String STATIC_PATH = "grpc.testing.BenchmarkService/Unary.grpc";

  private Server server;

  @AfterEach
  void stopServer() throws InterruptedException {
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void bothClientsCallTheNamedMethod() throws Exception {
    server =
        start(
            ServerCalls.asyncUnaryCall(
                (request, answer) -> {
                  answer.onNext(SimpleResponse.getDefaultInstance());
                  answer.onCompleted();
                }));

    for (ProgramRun.Program client : clients()) {
      List<String> lines = QpsToolsTest.runClient(client, flags("--unary_method=" + STATIC_PATH));

      QpsToolsTest.assertSummaryShape(lines.subList(0, 11));
    }
  }

  @Test
  void withoutTheFlagTheCallsGoToUnaryCallWhichThisServerLacks() throws Exception {
    server = start(ServerCalls.asyncUnaryCall((request, answer) -> answer.onCompleted()));

    ProgramRun tern = ProgramRun.of(QpsClient::run, flags());
    ProgramRun grpcJava = ProgramRun.of(GrpcJavaBalancedClient::run, flags());

    assertThat(tern.status()).isEqualTo(1);
    assertThat(tern.err()).contains("UNIMPLEMENTED");
    assertThat(grpcJava.status()).isEqualTo(1);
    assertThat(grpcJava.err()).contains("UNIMPLEMENTED");
  }

  @Test
  void anAnswerFollowedByAnErrorStatusIsNotACall() throws Exception {
    server = start(new AnswerThenFail());

    ProgramRun tern = ProgramRun.of(QpsClient::run, flags("--unary_method=" + STATIC_PATH));
    ProgramRun grpcJava =
        ProgramRun.of(GrpcJavaBalancedClient::run, flags("--unary_method=" + STATIC_PATH));

    // Tern's client checks the server with one call first and stops there.
    assertThat(tern.status()).isEqualTo(1);
    assertThat(tern.err()).contains("failed: INTERNAL: after its answer");
    // grpc-java's has no such check: every call answered and then failed, so none counts.
    assertThat(grpcJava.status()).isEqualTo(1);
    assertThat(grpcJava.err())
        .contains("INTERNAL: after its answer")
        .contains("no call succeeded in the measured window");
  }

  @Test
  void aMethodNameWithoutOneSlashIsAUsageError() throws Exception {
    for (String bad : List.of("UnaryCall", "/grpc.testing.BenchmarkService/UnaryCall", "a/")) {
      for (ProgramRun.Program client : clients()) {
        ProgramRun run =
            ProgramRun.of(client, "--target=ipv4:127.0.0.1:1", "--unary_method=" + bad);

        assertThat(run.status()).as(bad).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err())
            .contains("--unary_method must be SERVICE/METHOD (one slash, neither side empty)")
            .contains("'" + bad + "'");
      }
    }
  }

  /** Answers with a message, then ends the call with INTERNAL. */
  private static final class AnswerThenFail
      implements ServerCallHandler<SimpleRequest, SimpleResponse> {
    @Override
    public ServerCall.Listener<SimpleRequest> startCall(
        ServerCall<SimpleRequest, SimpleResponse> call, Metadata headers) {
      call.request(1);
      return new ServerCall.Listener<>() {
        @Override
        public void onHalfClose() {
          call.sendHeaders(new Metadata());
          call.sendMessage(SimpleResponse.getDefaultInstance());
          call.close(Status.INTERNAL.withDescription("after its answer"), new Metadata());
        }
      };
    }
  }

  private static List<ProgramRun.Program> clients() {
    return List.of(QpsClient::run, GrpcJavaBalancedClient::run);
  }

  /** One second of two calls in flight on one channel to the server, then {@code more}. */
  private String[] flags(String... more) {
    String address = "127.0.0.1:" + server.getPort();
    // QpsClient takes either; GrpcJavaBalancedClient needs --target.
    List<String> flags =
        new ArrayList<>(
            List.of(
                "--target=ipv4:" + address,
                "--channels=1",
                "--outstanding_rpcs=2",
                "--warmup_duration=0",
                "--duration=1"));
    flags.addAll(List.of(more));
    return flags.toArray(String[]::new);
  }

  private static Server start(ServerCallHandler<SimpleRequest, SimpleResponse> handler)
      throws Exception {
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("grpc.testing.BenchmarkService")
            .addMethod(QpsClient.unaryMethod(STATIC_PATH), handler)
            .build();
    return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(service)
        .build()
        .start();
  }
}
