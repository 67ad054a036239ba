package dev.tern.opentelemetry;

import dev.tern.Status;
import io.opentelemetry.api.common.Attributes;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;

/**
 * The metric attributes of one method (and, on a client, one target): without a status, and with
 * each status code, made once and reused so that recording a call allocates no attributes.
 *
 * <p>Thread-safe: the per-status attributes are filled in lazily; two threads racing make equal
 * values and either is kept.
 */
final class MethodAttributes {
  private static final Status.Code[] CODES = Status.Code.values();

  private final Attributes base;
  private final AtomicReferenceArray<Attributes> byCode = new AtomicReferenceArray<>(CODES.length);

  MethodAttributes(Attributes base) {
    this.base = base;
  }

  /** The attributes without {@code grpc.status}. */
  Attributes base() {
    return base;
  }

  /** The attributes with {@code grpc.status} set to {@code code}'s name. */
  Attributes withStatus(Status.Code code) {
    Attributes attributes = byCode.get(code.ordinal());
    if (attributes == null) {
      attributes = base.toBuilder().put(Instruments.STATUS, code.name()).build();
      byCode.set(code.ordinal(), attributes);
    }
    return attributes;
  }

  /**
   * A cache of attributes by key, bounded: keys are method names the application or the server
   * registered (plus "other"), so it stays small; past {@code limit} entries it makes them afresh
   * each time rather than grow. Thread-safe (a concurrent map; racing makers keep one value).
   */
  static final class Cache {
    private final Map<String, MethodAttributes> entries = new ConcurrentHashMap<>();
    private final int limit;

    Cache(int limit) {
      this.limit = limit;
    }

    MethodAttributes get(String key, Supplier<Attributes> base) {
      MethodAttributes attributes = entries.get(key);
      if (attributes == null) {
        attributes = new MethodAttributes(base.get());
        if (entries.size() < limit) {
          MethodAttributes raced = entries.putIfAbsent(key, attributes);
          if (raced != null) {
            attributes = raced;
          }
        }
      }
      return attributes;
    }
  }
}
