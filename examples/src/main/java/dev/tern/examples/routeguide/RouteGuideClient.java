package dev.tern.examples.routeguide;

import dev.tern.Channel;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.opentelemetry.GrpcOpenTelemetry;
import dev.tern.stub.StreamObserver;
import java.io.PrintStream;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Calls a route guide server with each of the four call types and prints what comes back. Run it
 * with {@code bin/routeguide-client [--target=HOST:PORT]} (default {@code localhost:50051}). Not
 * thread-safe: one thread drives it.
 */
public final class RouteGuideClient {
  private final RouteGuideTern.RouteGuideBlockingStub blockingStub;
  private final RouteGuideTern.RouteGuideStub asyncStub;
  private final PrintStream out;

  /** A client on {@code channel} that prints to {@code out}. */
  public RouteGuideClient(Channel channel, PrintStream out) {
    this.blockingStub =
        RouteGuideTern.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    this.asyncStub = RouteGuideTern.newStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    this.out = out;
  }

  /** Unary: the feature at one point. */
  public Feature getFeature(int latitude, int longitude) {
    Point point = Tour.point(latitude, longitude);
    Feature feature = blockingStub.getFeature(point);
    if (feature.getName().isEmpty()) {
      out.println("GetFeature:   nothing known at " + Geo.format(point));
    } else {
      out.println("GetFeature:   \"" + feature.getName() + "\" at " + Geo.format(point));
    }
    return feature;
  }

  /** Server streaming: every feature inside a rectangle, printed as it arrives. */
  public int listFeatures(Rectangle area) {
    out.println(
        "ListFeatures: between " + Geo.format(area.getLo()) + " and " + Geo.format(area.getHi()));
    int count = 0;
    for (Iterator<Feature> it = blockingStub.listFeatures(area); it.hasNext(); ) {
      Feature feature = it.next();
      out.println(
          "              \"" + feature.getName() + "\" at " + Geo.format(feature.getLocation()));
      count++;
    }
    out.println("              " + count + " features");
    return count;
  }

  /** Client streaming: sends a route point by point, then prints the server's summary. */
  public RouteSummary recordRoute(List<Point> route) {
    CompletableFuture<RouteSummary> summary = new CompletableFuture<>();
    StreamObserver<Point> points =
        asyncStub.recordRoute(
            new StreamObserver<>() {
              @Override
              public void onNext(RouteSummary value) {
                summary.complete(value);
              }

              @Override
              public void onError(Throwable t) {
                summary.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {
                summary.completeExceptionally(new IllegalStateException("no summary sent"));
              }
            });
    for (Point point : route) {
      points.onNext(point);
    }
    points.onCompleted();
    RouteSummary result = await(summary);
    out.println(
        "RecordRoute:  "
            + result.getPointCount()
            + " points, "
            + result.getFeatureCount()
            + " known features, "
            + result.getDistance()
            + " m");
    return result;
  }

  /** Bidirectional streaming: leaves notes and prints the earlier notes the server sends back. */
  public int routeChat(List<RouteNote> notes) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    int[] received = new int[1];
    StreamObserver<RouteNote> requests =
        asyncStub.routeChat(
            new StreamObserver<>() {
              @Override
              public void onNext(RouteNote note) {
                synchronized (received) {
                  received[0]++;
                }
                out.println(
                    "RouteChat:    got \""
                        + note.getMessage()
                        + "\" at "
                        + Geo.format(note.getLocation()));
              }

              @Override
              public void onError(Throwable t) {
                done.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {
                done.complete(null);
              }
            });
    for (RouteNote note : notes) {
      out.println(
          "RouteChat:    sent \"" + note.getMessage() + "\" at " + Geo.format(note.getLocation()));
      requests.onNext(note);
    }
    requests.onCompleted();
    await(done);
    synchronized (received) {
      return received[0];
    }
  }

  /** Runs the tour of all four call types against the server behind {@code channel}. */
  public void runTour() {
    getFeature(515055000, -754000);
    getFeature(0, 0);
    listFeatures(Tour.AREA);
    recordRoute(Tour.ROUTE);
    routeChat(Tour.NOTES);
  }

  private static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get(15, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof StatusRuntimeException sre) {
        throw sre;
      }
      throw new IllegalStateException(e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("no answer within 15 s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  static final String PROGRAM = "routeguide-client";

  /** What {@code --help} prints. */
  static final String HELP =
      """
      routeguide-client: the route guide client: calls a route guide server with each of the \
      four kinds of call and prints the answers

      Usage: bin/routeguide-client [FLAGS]

      Flags:
        --target=HOST:PORT    the server (any Tern target) (default: localhost:50051)
        --otlp=URL            send metrics and spans to an OpenTelemetry Collector,
                              e.g. http://127.0.0.1:4318 (default: none)
        -h, --help            print this and exit

      Exit status: 0 when every call succeeded; 1 when a call failed or the server could not be
      reached; 2 for a bad flag.

      Example:
        bin/routeguide-client --target=127.0.0.1:50051
      """;

  /** {@code bin/routeguide-client [--target=HOST:PORT] [--otlp=URL]}. */
  public static void main(String[] args) throws InterruptedException {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the tour the flags describe, printing it to {@code out}.
   *
   * @return 0 when every call succeeded (or after {@code --help}); 1 after a one-line message to
   *     {@code err} when a call failed; 2 after a one-line message naming the flag if a flag is bad
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws InterruptedException {
    String target;
    String otlp;
    try {
      Map<String, String> flags = Flags.parse(PROGRAM, HELP, args, "target", "otlp");
      target = flags.getOrDefault("target", "localhost:50051");
      otlp = flags.get("otlp");
    } catch (Flags.Stop stop) {
      return stop.report(out, err);
    }
    Telemetry telemetry = otlp == null ? null : new Telemetry("routeguide-client", otlp, -1);
    try {
      runTour(target, telemetry == null ? null : telemetry.grpc(), out);
      return 0;
    } catch (StatusRuntimeException e) {
      Status status = e.getStatus();
      err.println(
          PROGRAM
              + (status.getCode() == Status.Code.UNAVAILABLE
                  ? ": could not connect to " + target + ": "
                  : ": a call to " + target + " failed: ")
              + status.getCode()
              + ": "
              + String.valueOf(status.getDescription()).replace('\n', ' '));
      return 1;
    } catch (IllegalStateException e) { // no answer in time
      err.println(PROGRAM + ": " + e.getMessage());
      return 1;
    } finally {
      if (telemetry != null) {
        telemetry.close(); // exports the last metrics and spans
      }
    }
  }

  /**
   * Runs the tour against {@code target} on a channel of its own, with OpenTelemetry from {@code
   * otel} (null for none), and shuts the channel down.
   */
  static void runTour(String target, GrpcOpenTelemetry otel, PrintStream out)
      throws InterruptedException {
    ManagedChannelBuilder<?> builder = ManagedChannelBuilder.forTarget(target).usePlaintext();
    if (otel != null) {
      otel.configureChannelBuilder(builder);
    }
    ManagedChannel channel = builder.build();
    try {
      new RouteGuideClient(channel, out).runTour();
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
