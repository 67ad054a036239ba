package dev.tern.examples.blocking;

import dev.tern.examples.routeguide.Feature;
import dev.tern.examples.routeguide.FeatureDatabase;
import dev.tern.examples.routeguide.Geo;
import dev.tern.examples.routeguide.Point;
import dev.tern.examples.routeguide.Rectangle;
import dev.tern.examples.routeguide.RouteGuideTern;
import dev.tern.examples.routeguide.RouteNote;
import dev.tern.examples.routeguide.RouteSummary;
import dev.tern.stub.BlockingServerReader;
import dev.tern.stub.BlockingServerWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The route guide written against the generated blocking interface: every method is straight-line
 * code on a thread of its own (a virtual thread on JDK 21 and later), reading and writing with
 * blocking calls that wait for the other side (flow control) instead of callbacks.
 *
 * <p>Thread-safe: the database is immutable and the notes live in a concurrent map whose per-point
 * lists are guarded by themselves.
 */
final class BlockingRouteGuideService implements RouteGuideTern.BlockingService {
  private final FeatureDatabase database;
  private final Map<Point, List<RouteNote>> notes = new ConcurrentHashMap<>();

  BlockingRouteGuideService(FeatureDatabase database) {
    this.database = database;
  }

  @Override
  public Feature getFeature(Point request) {
    return database.featureAt(request);
  }

  @Override
  public void listFeatures(Rectangle request, BlockingServerWriter<Feature> responses)
      throws Exception {
    for (Feature feature : database.features()) {
      if (!feature.getName().isEmpty() && Geo.contains(request, feature.getLocation())) {
        responses.write(feature); // waits while the client is not keeping up
      }
    }
  }

  @Override
  public RouteSummary recordRoute(BlockingServerReader<Point> requests) throws Exception {
    long start = System.nanoTime();
    int pointCount = 0;
    int featureCount = 0;
    double distance = 0;
    Point previous = null;
    for (Point point = requests.read(); point != null; point = requests.read()) {
      pointCount++;
      if (!database.featureAt(point).getName().isEmpty()) {
        featureCount++;
      }
      if (previous != null) {
        distance += Geo.distanceMetres(previous, point);
      }
      previous = point;
    }
    return RouteSummary.newBuilder()
        .setPointCount(pointCount)
        .setFeatureCount(featureCount)
        .setDistance((int) Math.round(distance))
        .setElapsedTime((int) TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start))
        .build();
  }

  @Override
  public void routeChat(
      BlockingServerReader<RouteNote> requests, BlockingServerWriter<RouteNote> responses)
      throws Exception {
    for (RouteNote note = requests.read(); note != null; note = requests.read()) {
      List<RouteNote> here = notes.computeIfAbsent(note.getLocation(), p -> new ArrayList<>());
      List<RouteNote> earlier;
      synchronized (here) {
        earlier = List.copyOf(here);
        here.add(note);
      }
      for (RouteNote previous : earlier) {
        responses.write(previous);
      }
    }
  }
}
