package dev.tern.examples.routeguide;

/** Geometry on points in E7 units; public for the blocking example. Stateless, thread-safe. */
public final class Geo {
  private static final double COORD_FACTOR = 1e7;
  private static final double EARTH_RADIUS_METRES = 6_371_000;

  private Geo() {}

  /** Whether {@code point} lies inside {@code rect} (corners in any order, edges included). */
  public static boolean contains(Rectangle rect, Point point) {
    int left = Math.min(rect.getLo().getLongitude(), rect.getHi().getLongitude());
    int right = Math.max(rect.getLo().getLongitude(), rect.getHi().getLongitude());
    int bottom = Math.min(rect.getLo().getLatitude(), rect.getHi().getLatitude());
    int top = Math.max(rect.getLo().getLatitude(), rect.getHi().getLatitude());
    return point.getLongitude() >= left
        && point.getLongitude() <= right
        && point.getLatitude() >= bottom
        && point.getLatitude() <= top;
  }

  /** Great-circle distance between two points (haversine formula), in metres. */
  public static double distanceMetres(Point from, Point to) {
    double lat1 = Math.toRadians(from.getLatitude() / COORD_FACTOR);
    double lat2 = Math.toRadians(to.getLatitude() / COORD_FACTOR);
    double dLat = lat2 - lat1;
    double dLon = Math.toRadians((to.getLongitude() - from.getLongitude()) / COORD_FACTOR);
    double a =
        Math.sin(dLat / 2) * Math.sin(dLat / 2)
            + Math.cos(lat1) * Math.cos(lat2) * Math.sin(dLon / 2) * Math.sin(dLon / 2);
    return EARTH_RADIUS_METRES * 2 * Math.atan2(Math.sqrt(a), Math.sqrt(1 - a));
  }

  /** {@code point} as "lat, lon" in degrees. */
  public static String format(Point point) {
    return String.format(
        "%.4f, %.4f", point.getLatitude() / COORD_FACTOR, point.getLongitude() / COORD_FACTOR);
  }
}
