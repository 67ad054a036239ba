package dev.tern.examples.blocking;

import dev.tern.Channel;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.StatusException;
import dev.tern.examples.routeguide.Feature;
import dev.tern.examples.routeguide.Geo;
import dev.tern.examples.routeguide.Point;
import dev.tern.examples.routeguide.Rectangle;
import dev.tern.examples.routeguide.RouteGuideTern;
import dev.tern.examples.routeguide.RouteNote;
import dev.tern.examples.routeguide.RouteSummary;
import dev.tern.examples.routeguide.Tour;
import dev.tern.stub.BlockingClientCall;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Calls a route guide server with each of the four call types through the blocking V2 stub: unary
 * calls return the response, streaming calls hand back a {@link BlockingClientCall} to write and
 * read through. Run it with {@code bin/lib/launch.sh examples
 * dev.tern.examples.blocking.BlockingRouteGuideClient [--target=HOST:PORT]}. Not thread-safe: one
 * thread drives it (the chat reads on a second thread of its own).
 */
public final class BlockingRouteGuideClient {
  private final RouteGuideTern.RouteGuideBlockingV2Stub stub;
  private final PrintStream out;

  /** A client on {@code channel} that prints to {@code out}. */
  public BlockingRouteGuideClient(Channel channel, PrintStream out) {
    this.stub = RouteGuideTern.newBlockingV2Stub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    this.out = out;
  }

  /** Unary: the feature at one point. */
  public Feature getFeature(int latitude, int longitude) throws StatusException {
    Feature feature = stub.getFeature(Tour.point(latitude, longitude));
    String where = Geo.format(feature.getLocation());
    out.println(
        feature.getName().isEmpty()
            ? "GetFeature:   nothing known at " + where
            : "GetFeature:   \"" + feature.getName() + "\" at " + where);
    return feature;
  }

  /** Server streaming: every feature inside a rectangle, read one at a time. */
  public int listFeatures(Rectangle area) throws InterruptedException, StatusException {
    BlockingClientCall<Rectangle, Feature> call = stub.listFeatures(area);
    int count = 0;
    for (Feature feature = call.read(); feature != null; feature = call.read()) {
      out.println(
          "              \"" + feature.getName() + "\" at " + Geo.format(feature.getLocation()));
      count++;
    }
    out.println("ListFeatures: " + count + " features");
    return count;
  }

  /** Client streaming: writes the route point by point, half-closes, reads the summary. */
  public RouteSummary recordRoute(List<Point> route) throws InterruptedException, StatusException {
    BlockingClientCall<Point, RouteSummary> call = stub.recordRoute();
    for (Point point : route) {
      call.write(point); // waits while the server is not keeping up
    }
    call.halfClose();
    RouteSummary summary = call.read();
    out.println(
        "RecordRoute:  "
            + summary.getPointCount()
            + " points, "
            + summary.getFeatureCount()
            + " known features, "
            + summary.getDistance()
            + " m");
    return summary;
  }

  /**
   * Bidirectional streaming: this thread writes the notes while a second one reads the earlier
   * notes the server sends back (reading and writing on one thread could wait on each other).
   */
  public int routeChat(List<RouteNote> notes) throws InterruptedException, StatusException {
    BlockingClientCall<RouteNote, RouteNote> call = stub.routeChat();
    CompletableFuture<Integer> received = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try {
                int count = 0;
                for (RouteNote note = call.read(); note != null; note = call.read()) {
                  out.println(
                      "RouteChat:    got \""
                          + note.getMessage()
                          + "\" at "
                          + Geo.format(note.getLocation()));
                  count++;
                }
                received.complete(count);
              } catch (InterruptedException | StatusException | RuntimeException e) {
                received.completeExceptionally(e);
              }
            },
            "route-chat-reader");
    reader.start();
    for (RouteNote note : notes) {
      out.println(
          "RouteChat:    sent \"" + note.getMessage() + "\" at " + Geo.format(note.getLocation()));
      call.write(note);
    }
    call.halfClose();
    try {
      return received.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof StatusException failure) {
        throw failure;
      }
      throw new IllegalStateException("reading the chat failed", e.getCause());
    } finally {
      reader.join();
    }
  }

  /** Runs the tour of all four call types against the server behind the channel. */
  public void runTour() throws InterruptedException, StatusException {
    getFeature(515055000, -754000);
    getFeature(0, 0);
    listFeatures(Tour.AREA);
    recordRoute(Tour.ROUTE);
    routeChat(Tour.NOTES);
  }

  /** {@code BlockingRouteGuideClient [--target=HOST:PORT]}. */
  public static void main(String[] args) throws InterruptedException {
    String target = "localhost:50051";
    for (String arg : args) {
      if (arg.startsWith("--target=")) {
        target = arg.substring("--target=".length());
      } else {
        System.err.println("usage: BlockingRouteGuideClient [--target=HOST:PORT]");
        System.exit(2);
      }
    }
    ManagedChannel channel = ManagedChannelBuilder.forTarget(target).usePlaintext().build();
    try {
      new BlockingRouteGuideClient(channel, System.out).runTour();
    } catch (StatusException e) {
      System.err.println("call failed: " + e.getStatus());
      System.exit(1);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
