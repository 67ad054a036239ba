package dev.tern.examples.routeguide;

import com.google.protobuf.Any;
import com.google.rpc.BadRequest;
import com.google.rpc.Code;
import dev.tern.protobuf.StatusProto;
import dev.tern.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The route guide server's logic. GetFeature answers a point off the Earth (latitude beyond ±90°,
 * longitude beyond ±180°) with INVALID_ARGUMENT and a {@code google.rpc.BadRequest} naming the
 * field. Thread-safe: the feature database is immutable and the notes of {@link #routeChat} live in
 * a concurrent map whose per-point lists are guarded by themselves.
 */
final class RouteGuideService extends RouteGuideTern.RouteGuideImplBase {
  private final FeatureDatabase database;
  private final Map<Point, List<RouteNote>> notes = new ConcurrentHashMap<>();

  RouteGuideService(FeatureDatabase database) {
    this.database = database;
  }

  @Override
  public void getFeature(Point request, StreamObserver<Feature> responseObserver) {
    BadRequest invalid = validate(request);
    if (invalid != null) {
      responseObserver.onError(
          StatusProto.toStatusRuntimeException(
              com.google.rpc.Status.newBuilder()
                  .setCode(Code.INVALID_ARGUMENT.getNumber())
                  .setMessage("not a point on Earth")
                  .addDetails(Any.pack(invalid))
                  .build()));
      return;
    }
    responseObserver.onNext(database.featureAt(request));
    responseObserver.onCompleted();
  }

  /**
   * Why {@code point} is not on Earth (latitude beyond ±90°, longitude beyond ±180°, in E7), as
   * {@code google.rpc.BadRequest}; null if it is.
   */
  private static BadRequest validate(Point point) {
    BadRequest.Builder bad = BadRequest.newBuilder();
    if (Math.abs((long) point.getLatitude()) > 900_000_000L) {
      bad.addFieldViolations(
          BadRequest.FieldViolation.newBuilder()
              .setField("latitude")
              .setDescription(
                  "must be within ±900000000 (±90° in E7), was " + point.getLatitude()));
    }
    if (Math.abs((long) point.getLongitude()) > 1_800_000_000L) {
      bad.addFieldViolations(
          BadRequest.FieldViolation.newBuilder()
              .setField("longitude")
              .setDescription(
                  "must be within ±1800000000 (±180° in E7), was " + point.getLongitude()));
    }
    return bad.getFieldViolationsCount() == 0 ? null : bad.build();
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
