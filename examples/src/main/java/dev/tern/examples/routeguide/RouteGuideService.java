package dev.tern.examples.routeguide;

import dev.tern.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The route guide server's logic. Thread-safe: the feature database is immutable and the notes of
 * {@link #routeChat} live in a concurrent map whose per-point lists are guarded by themselves.
 */
final class RouteGuideService extends RouteGuideTern.RouteGuideImplBase {
  private final FeatureDatabase database;
  private final Map<Point, List<RouteNote>> notes = new ConcurrentHashMap<>();

  RouteGuideService(FeatureDatabase database) {
    this.database = database;
  }

  @Override
  public void getFeature(Point request, StreamObserver<Feature> responseObserver) {
    responseObserver.onNext(database.featureAt(request));
    responseObserver.onCompleted();
  }

  @Override
  public void listFeatures(Rectangle request, StreamObserver<Feature> responseObserver) {
    for (Feature feature : database.features()) {
      if (!feature.getName().isEmpty() && Geo.contains(request, feature.getLocation())) {
        responseObserver.onNext(feature);
      }
    }
    responseObserver.onCompleted();
  }

  @Override
  public StreamObserver<Point> recordRoute(StreamObserver<RouteSummary> responseObserver) {
    long start = System.nanoTime();
    return new StreamObserver<>() {
      private int pointCount;
      private int featureCount;
      private double distance;
      private Point previous;

      @Override
      public void onNext(Point point) {
        pointCount++;
        if (!database.featureAt(point).getName().isEmpty()) {
          featureCount++;
        }
        if (previous != null) {
          distance += Geo.distanceMetres(previous, point);
        }
        previous = point;
      }

      @Override
      public void onError(Throwable t) {
        // The client gave up; there is nobody to answer.
      }

      @Override
      public void onCompleted() {
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        responseObserver.onNext(
            RouteSummary.newBuilder()
                .setPointCount(pointCount)
                .setFeatureCount(featureCount)
                .setDistance((int) Math.round(distance))
                .setElapsedTime((int) seconds)
                .build());
        responseObserver.onCompleted();
      }
    };
  }

  @Override
  public StreamObserver<RouteNote> routeChat(StreamObserver<RouteNote> responseObserver) {
    return new StreamObserver<>() {
      @Override
      public void onNext(RouteNote note) {
        List<RouteNote> here = notes.computeIfAbsent(note.getLocation(), p -> new ArrayList<>());
        List<RouteNote> earlier;
        synchronized (here) {
          earlier = List.copyOf(here);
          here.add(note);
        }
        for (RouteNote previous : earlier) {
          responseObserver.onNext(previous);
        }
      }

      @Override
      public void onError(Throwable t) {
        // The client gave up; there is nobody to answer.
      }

      @Override
      public void onCompleted() {
        responseObserver.onCompleted();
      }
    };
  }
}
