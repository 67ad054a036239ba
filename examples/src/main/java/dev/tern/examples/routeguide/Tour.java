package dev.tern.examples.routeguide;

import java.util.List;

/**
 * What the route guide clients' tour asks for, shared by {@link RouteGuideClient} and the blocking
 * example's client so that both make the same calls. Immutable; thread-safe.
 */
public final class Tour {
  /** The rectangle whose features {@code ListFeatures} lists. */
  public static final Rectangle AREA =
      Rectangle.newBuilder()
          .setLo(point(515000000, -1000000))
          .setHi(point(515200000, -750000))
          .build();

  /** The route {@code RecordRoute} sends. */
  public static final List<Point> ROUTE =
      List.of(
          point(515138000, -984000),
          point(515095000, -985000),
          point(515076000, -994000),
          point(515081000, -972000));

  /** The notes {@code RouteChat} leaves, two at each of two places. */
  public static final List<RouteNote> NOTES =
      List.of(
          note("first note", 515055000, -754000),
          note("second note", 515033000, -1196000),
          note("third note", 515055000, -754000),
          note("fourth note", 515033000, -1196000));

  private Tour() {}

  /** A point from E7 coordinates. */
  public static Point point(int latitude, int longitude) {
    return Point.newBuilder().setLatitude(latitude).setLongitude(longitude).build();
  }

  private static RouteNote note(String message, int latitude, int longitude) {
    return RouteNote.newBuilder()
        .setMessage(message)
        .setLocation(point(latitude, longitude))
        .build();
  }
}
