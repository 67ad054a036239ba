package dev.tern.xds.internal.lb;

import dev.tern.xds.internal.XxHash64;
import java.util.Arrays;
import java.util.List;

/**
 * A ring_hash ring (gRFC A42): each endpoint gets a number of points in proportion to its
 * normalised weight, scaled so that the lightest endpoint gets at least one point and the ring has
 * at least {@code minSize} and at most {@code maxSize} points; point {@code i} of an endpoint is
 * the xxHash64 of {@code "<key>_<i>"} ({@code key} is {@code <ip>:<port>}). A call's hash goes to
 * the first point at or after it, wrapping around. Immutable; thread-safe.
 */
final class Ring {
  /** An endpoint's key on the ring and its weight (at least 1). */
  record Member(String key, long weight) {}

  private final long[] hashes;
  private final int[] members;

  private Ring(long[] hashes, int[] members) {
    this.hashes = hashes;
    this.members = members;
  }

  /**
   * @param members not empty; each weight at least 1
   * @param minSize at least 1
   * @param maxSize at least {@code minSize}
   */
  static Ring build(List<Member> members, long minSize, long maxSize) {
    if (members.isEmpty()) {
      throw new IllegalArgumentException("members: empty");
    }
    if (minSize < 1 || maxSize < minSize) {
      throw new IllegalArgumentException("ring sizes: min " + minSize + ", max " + maxSize);
    }
    double total = 0;
    for (Member member : members) {
      if (member.weight() < 1) {
        throw new IllegalArgumentException("members: weight " + member.weight() + " < 1");
      }
      total += member.weight();
    }
    double minNormalized = Double.MAX_VALUE;
    for (Member member : members) {
      minNormalized = Math.min(minNormalized, member.weight() / total);
    }
    double scale = Math.min(Math.ceil(minNormalized * minSize) / minNormalized, maxSize);
    int size = (int) Math.ceil(scale);
    long[] points = new long[size];
    int[] owners = new int[size];
    int count = 0;
    double current = 0;
    double target = 0;
    for (int m = 0; m < members.size(); m++) {
      Member member = members.get(m);
      target += scale * member.weight() / total;
      String prefix = member.key() + "_";
      for (int i = 0; current < target && count < size; i++, current++) {
        points[count] = XxHash64.hash(prefix + i);
        owners[count] = m;
        count++;
      }
    }
    return sorted(Arrays.copyOf(points, count), Arrays.copyOf(owners, count));
  }

  private static Ring sorted(long[] points, int[] owners) {
    Integer[] order = new Integer[points.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Long.compareUnsigned(points[a], points[b]));
    long[] hashes = new long[points.length];
    int[] members = new int[points.length];
    for (int i = 0; i < order.length; i++) {
      hashes[i] = points[order[i]];
      members[i] = owners[order[i]];
    }
    return new Ring(hashes, members);
  }

  /** The number of points. */
  int size() {
    return hashes.length;
  }

  /** The member (an index into the list it was built from) of point {@code index}. */
  int memberAt(int index) {
    return members[index];
  }

  /** The index of the first point at or after {@code hash} (unsigned), wrapping to 0. */
  int indexOf(long hash) {
    int low = 0;
    int high = hashes.length;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (Long.compareUnsigned(hashes[mid], hash) < 0) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low == hashes.length ? 0 : low;
  }

  /** How many points each member has, by member index. */
  int[] pointsPerMember(int memberCount) {
    int[] counts = new int[memberCount];
    for (int member : members) {
      counts[member]++;
    }
    return counts;
  }
}
