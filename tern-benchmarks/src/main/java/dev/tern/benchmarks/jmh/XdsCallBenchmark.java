package dev.tern.benchmarks.jmh;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.testtools.ExternalTool;
import dev.tern.testtools.ToolProcess;
import dev.tern.xds.Bootstrap;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * An xDS channel's per-call cost (issue 35): a blocking unary call carrying 1 KiB each way to one
 * Tern server on 127.0.0.1, through a channel to {@code xds:///bench} (listener, inline route, EDS
 * cluster and its one endpoint from the test control plane, {@code tern-xds-controlplane}, which
 * tools/install-xds-tools.sh builds) or through a plain round_robin channel to the same server;
 * each on Tern's channel and on grpc-java's (grpc-xds and grpc-netty-shaded), so that the xDS
 * channel's cost is seen beside the plain channel of the same stack.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class XdsCallBenchmark {
  private static final Pattern PORT = Pattern.compile("(?m)^(ads|http)-port=(\\d+)$");
  private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

  /**
   * {@code xds}: a Tern channel to {@code xds:///bench}; {@code plain}: a Tern round_robin channel
   * to the server's address; {@code grpc-java-xds} and {@code grpc-java-plain}: the same on
   * grpc-java's channel.
   */
  @Param({"plain", "xds", "grpc-java-plain", "grpc-java-xds"})
  public String channelKind;

  private final byte[] message = new byte[1024];
  private Server server;
  private ToolProcess controlPlane;
  private ManagedChannel channel;
  private io.grpc.ManagedChannel grpcJavaChannel;

  /** The measured call, on the channel of {@link #channelKind}. */
  private UnaryOperator<byte[]> call;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(
                ServerServiceDefinition.builder("bench.Echo")
                    .addMethod(
                        TernEchoTarget.UNARY,
                        ServerCalls.asyncUnaryCall(
                            (byte[] request, dev.tern.stub.StreamObserver<byte[]> responses) -> {
                              responses.onNext(request);
                              responses.onCompleted();
                            }))
                    .build())
            .build()
            .start();
    String target = "127.0.0.1:" + server.getPort();
    if (channelKind.endsWith("xds")) {
      int adsPort = startControlPlane(server.getPort());
      // Read by both stacks: Tern's Bootstrap and grpc-java's grpc-xds take the same property.
      System.setProperty(
          Bootstrap.BOOTSTRAP_CONFIG_PROPERTY,
          "{\"xds_servers\": [{\"server_uri\": \"127.0.0.1:"
              + adsPort
              + "\", \"channel_creds\": [{\"type\": \"insecure\"}]}],"
              + " \"node\": {\"id\": \"bench\"}}");
      target = "xds:///bench";
    }
    switch (channelKind) {
      case "plain", "xds" -> {
        ManagedChannelBuilder<?> builder = ManagedChannelBuilder.forTarget(target).usePlaintext();
        if (channelKind.equals("plain")) {
          builder.defaultLoadBalancingPolicy("round_robin");
        }
        channel = builder.build();
        call =
            request ->
                ClientCalls.blockingUnaryCall(
                    channel, TernEchoTarget.UNARY, CallOptions.DEFAULT, request);
      }
      case "grpc-java-plain", "grpc-java-xds" -> {
        io.grpc.ManagedChannelBuilder<?> builder =
            io.grpc.Grpc.newChannelBuilder(target, io.grpc.InsecureChannelCredentials.create());
        if (channelKind.equals("grpc-java-plain")) {
          builder.defaultLoadBalancingPolicy("round_robin");
        }
        grpcJavaChannel = builder.build();
        call =
            request ->
                io.grpc.stub.ClientCalls.blockingUnaryCall(
                    grpcJavaChannel,
                    GrpcJavaEchoTarget.UNARY,
                    io.grpc.CallOptions.DEFAULT,
                    request);
      }
      default ->
          throw new IllegalArgumentException(
              "channelKind: plain, xds, grpc-java-plain or grpc-java-xds");
    }
    // The first call waits for the configuration (and the connection); it is not measured.
    if (grpcJavaChannel != null) {
      io.grpc.stub.ClientCalls.blockingUnaryCall(
          grpcJavaChannel,
          GrpcJavaEchoTarget.UNARY,
          io.grpc.CallOptions.DEFAULT.withWaitForReady().withDeadlineAfter(20, TimeUnit.SECONDS),
          message);
    } else {
      ClientCalls.blockingUnaryCall(
          channel,
          TernEchoTarget.UNARY,
          CallOptions.DEFAULT.withWaitForReady().withDeadlineAfter(20, TimeUnit.SECONDS),
          message);
    }
  }

  /** Starts the control plane serving node "bench" its resources; returns its ADS port. */
  private int startControlPlane(int backendPort) throws IOException, InterruptedException {
    String program = ExternalTool.require(ExternalTool.XDS_CONTROLPLANE).toString();
    controlPlane = ToolProcess.start(ExternalTool.XDS_CONTROLPLANE, List.of(program));
    if (!controlPlane.awaitOutput(text -> text.contains("http-port="), START_TIMEOUT)) {
      throw new IOException("the control plane did not start: " + controlPlane.output());
    }
    int ads = 0;
    int http = 0;
    Matcher ports = PORT.matcher(controlPlane.output());
    while (ports.find()) {
      if (ports.group(1).equals("ads")) {
        ads = Integer.parseInt(ports.group(2));
      } else {
        http = Integer.parseInt(ports.group(2));
      }
    }
    String listener =
        "{\"name\": \"bench\", \"apiListener\": {\"apiListener\": {\"@type\":"
            + " \"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3"
            + ".HttpConnectionManager\", \"routeConfig\": {\"name\": \"r\", \"virtualHosts\":"
            + " [{\"name\": \"vh\", \"domains\": [\"*\"], \"routes\": [{\"match\": {\"prefix\":"
            + " \"\"}, \"route\": {\"cluster\": \"c1\"}}]}]}, \"httpFilters\": [{\"name\":"
            + " \"router\", \"typedConfig\": {\"@type\":"
            + " \"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router\"}}]}}}";
    String cluster =
        "{\"name\": \"c1\", \"type\": \"EDS\", \"edsClusterConfig\": {\"edsConfig\": {\"ads\":"
            + " {}}, \"serviceName\": \"c1\"}}";
    String endpoints =
        "{\"clusterName\": \"c1\", \"endpoints\": [{\"locality\": {\"zone\": \"z\"}, \"loadBalancingWeight\": 1,"
            + " \"lbEndpoints\": [{\"endpoint\": {\"address\": {\"socketAddress\": {\"address\":"
            + " \"127.0.0.1\", \"portValue\": "
            + backendPort
            + "}}}}]}]}";
    String snapshot =
        "{\"node\": \"bench\", \"version\": \"1\", \"listeners\": ["
            + listener
            + "], \"clusters\": ["
            + cluster
            + "], \"endpoints\": ["
            + endpoints
            + "]}";
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http + "/snapshot"))
                    .POST(HttpRequest.BodyPublishers.ofString(snapshot, UTF_8))
                    .build(),
                HttpResponse.BodyHandlers.ofString(UTF_8));
    if (response.statusCode() != 204) {
      throw new IOException("the control plane refused the snapshot: " + response.body());
    }
    return ads;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      channel.awaitTermination(10, TimeUnit.SECONDS);
    }
    if (grpcJavaChannel != null) {
      grpcJavaChannel.shutdownNow();
      grpcJavaChannel.awaitTermination(10, TimeUnit.SECONDS);
    }
    server.shutdownNow();
    server.awaitTermination(10, TimeUnit.SECONDS);
    if (controlPlane != null) {
      controlPlane.stop(Duration.ofSeconds(10));
      System.clearProperty(Bootstrap.BOOTSTRAP_CONFIG_PROPERTY);
    }
  }

  /** One blocking unary call, 1 KiB each way. */
  @Benchmark
  public byte[] unaryCall1024() {
    return call.apply(message);
  }
}
