package dev.tern.grpcjava.interop;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannelBuilder;
import io.grpc.TlsChannelCredentials;
import io.grpc.testing.TlsTesting;
import io.grpc.testing.integration.AbstractInteropTest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * grpc-java's own interop cases (its {@code AbstractInteropTest}, the code its {@code
 * TestServiceClient} runs) on a channel made the way a grpc-java application makes one, {@code
 * Grpc.newChannelBuilderForAddress}: with tern-grpc-java on the class path and no grpc-java
 * transport, a Tern channel. {@code TestServiceClient} itself cannot be moved onto Tern, because it
 * builds its plaintext and TLS channels with {@code NettyChannelBuilder} by name; this program is
 * that one method written against {@code io.grpc}, and nothing else of the cases is ours.
 *
 * <p>Flags as grpc's interop clients take them: {@code --server_host}, {@code --server_port},
 * {@code --use_tls}, {@code --use_test_ca} (grpc-java's test CA), {@code --server_host_override},
 * {@code --test_case} (a name or {@code all}). Prints {@code PASS <case>}, {@code FAIL <case>:
 * <reason>} or {@code SKIP <case>: <reason>} per case, first the channel's class, and exits 1 if a
 * case failed. Run by {@code tern-grpc-java/interop-client.sh}.
 */
public final class GrpcJavaInteropCasesClient {
  private GrpcJavaInteropCasesClient() {}

  /** What grpc-java's cases are called in grpc's interop doc, and how each runs. */
  private static final Map<String, InteropCase> CASES = new LinkedHashMap<>();

  static {
    CASES.put("empty_unary", Cases::emptyUnary);
    CASES.put("large_unary", Cases::largeUnary);
    CASES.put("client_compressed_unary", c -> c.clientCompressedUnary(true));
    CASES.put("server_compressed_unary", Cases::serverCompressedUnary);
    CASES.put("client_streaming", Cases::clientStreaming);
    CASES.put("client_compressed_streaming", c -> c.clientCompressedStreaming(true));
    CASES.put("server_streaming", Cases::serverStreaming);
    CASES.put("server_compressed_streaming", Cases::serverCompressedStreaming);
    CASES.put("ping_pong", Cases::pingPong);
    CASES.put("empty_stream", Cases::emptyStream);
    CASES.put("custom_metadata", Cases::customMetadata);
    CASES.put("status_code_and_message", Cases::statusCodeAndMessage);
    CASES.put("special_status_message", Cases::specialStatusMessage);
    CASES.put("unimplemented_method", Cases::unimplementedMethod);
    CASES.put("unimplemented_service", Cases::unimplementedService);
    CASES.put("cancel_after_begin", Cases::cancelAfterBegin);
    CASES.put("cancel_after_first_response", Cases::cancelAfterFirstResponse);
    CASES.put("timeout_on_sleeping_server", Cases::timeoutOnSleepingServer);
    CASES.put("very_large_request", Cases::veryLargeRequest);
  }

  /**
   * The soak cases: grpc-java runs them in {@code SoakClient}, a class of its own package that only
   * {@code TestServiceClient} can call.
   */
  private static final List<String> NOT_REACHABLE = List.of("rpc_soak", "channel_soak");

  /** One case of {@link Cases}. */
  private interface InteropCase {
    void run(Cases cases) throws Exception;
  }

  public static void main(String[] args) {
    Map<String, String> flags = new LinkedHashMap<>();
    for (String arg : args) {
      if (!arg.startsWith("--") || !arg.contains("=")) {
        System.err.println("unknown argument: " + arg + " (flags are --name=value)");
        System.exit(2);
      }
      flags.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
    }
    String host = flags.getOrDefault("server_host", "127.0.0.1");
    int port = Integer.parseInt(flags.getOrDefault("server_port", "8080"));
    boolean tls = Boolean.parseBoolean(flags.getOrDefault("use_tls", "false"));
    boolean testCa = Boolean.parseBoolean(flags.getOrDefault("use_test_ca", "false"));
    String override = flags.get("server_host_override");
    String testCase = flags.getOrDefault("test_case", "empty_unary");

    List<String> names =
        testCase.equals("all")
            ? java.util.stream.Stream.concat(CASES.keySet().stream(), NOT_REACHABLE.stream())
                .toList()
            : List.of(testCase);
    boolean failed = false;
    boolean first = true;
    for (String name : names) {
      if (NOT_REACHABLE.contains(name)) {
        System.out.println(
            "SKIP "
                + name
                + ": grpc-java runs it in SoakClient, which only TestServiceClient can call");
        continue;
      }
      InteropCase run = CASES.get(name);
      if (run == null) {
        System.out.println("FAIL " + name + ": not one of grpc-java's cases here");
        failed = true;
        continue;
      }
      Cases cases = new Cases(host, port, tls, testCa, override);
      try {
        cases.setUp();
        if (first) {
          System.out.println("channel " + cases.channelClass());
          first = false;
        }
        run.run(cases);
        System.out.println("PASS " + name);
      } catch (Throwable e) {
        System.out.println("FAIL " + name + ": " + String.valueOf(e).replace('\n', ' '));
        failed = true;
      } finally {
        cases.tearDown();
      }
      System.out.flush();
    }
    System.exit(failed ? 1 : 0);
  }

  /** grpc-java's cases with the channel made through {@code io.grpc}'s provider API. */
  private static final class Cases extends AbstractInteropTest {
    private final String host;
    private final int port;
    private final boolean tls;
    private final boolean testCa;
    private final String override;

    Cases(String host, int port, boolean tls, boolean testCa, String override) {
      this.host = host;
      this.port = port;
      this.tls = tls;
      this.testCa = testCa;
      this.override = override;
    }

    String channelClass() {
      return channel.getClass().getName();
    }

    @Override
    protected ManagedChannelBuilder<?> createChannelBuilder() {
      ChannelCredentials credentials = InsecureChannelCredentials.create();
      if (tls && testCa) {
        try (InputStream ca = TlsTesting.loadCert("ca.pem")) {
          credentials = TlsChannelCredentials.newBuilder().trustManager(ca).build();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      } else if (tls) {
        credentials = TlsChannelCredentials.create();
      }
      ManagedChannelBuilder<?> builder = Grpc.newChannelBuilderForAddress(host, port, credentials);
      if (override != null) {
        builder.overrideAuthority(override);
      }
      return builder.maxInboundMessageSize(AbstractInteropTest.MAX_MESSAGE_SIZE);
    }

    /** No census module here: the cases' stats checks are grpc-java's own instrumentation. */
    @Override
    protected boolean metricsExpected() {
      return false;
    }

    /** As TestServiceClient gives a loaded machine: 15 s per operation. */
    @Override
    protected int operationTimeoutMillis() {
      return 15_000;
    }
  }
}
