package dev.tern;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Every {@link MetricInstrument} a process may record (gRFC A79's instrument registry): the
 * standard ones of {@link MetricInstruments}, and any a plug-in (a balancer, a resolver) registers
 * for itself. Sinks read it to learn which names exist ({@link #instruments()}); a name may be
 * registered once.
 *
 * <p>Register instruments while classes initialize (as static fields), before the sinks that should
 * know of them are built. Thread-safe: registering takes a lock; {@link #instruments()} returns a
 * snapshot.
 */
public final class MetricInstrumentRegistry {
  private static final MetricInstrumentRegistry DEFAULT = new MetricInstrumentRegistry();

  private final Object lock = new Object();

  // Guarded by lock. Not annotated: code compiled against this public class would read the
  // build-time @GuardedBy annotation, and javac's classfile lint warns that it cannot find it.
  private final List<MetricInstrument> instruments = new ArrayList<>();

  private MetricInstrumentRegistry() {}

  /** The process's registry, holding the standard instruments and those plug-ins added. */
  public static MetricInstrumentRegistry getDefaultRegistry() {
    MetricInstruments.ensureRegistered();
    return DEFAULT;
  }

  /** The registry before the standard instruments are in it (for {@link MetricInstruments}). */
  static MetricInstrumentRegistry bare() {
    return DEFAULT;
  }

  /** The instruments registered so far, in the order of their {@link MetricInstrument#index()}. */
  public List<MetricInstrument> instruments() {
    synchronized (lock) {
      return List.copyOf(instruments);
    }
  }

  /** The instrument called {@code name}, or null. */
  public MetricInstrument find(String name) {
    Objects.requireNonNull(name, "name");
    synchronized (lock) {
      for (MetricInstrument instrument : instruments) {
        if (instrument.name().equals(name)) {
          return instrument;
        }
      }
      return null;
    }
  }

  /**
   * Registers an instrument.
   *
   * @param requiredLabelKeys labels every recording gives a value for, in order
   * @param optionalLabelKeys labels recorded only when a sink's user asks for them, in order
   * @param enabledByDefault whether sinks record it unless told otherwise (off for experimental
   *     instruments, as A79 asks)
   * @throws IllegalArgumentException if {@code name} is already registered, or empty
   */
  public MetricInstrument register(
      MetricInstrument.Kind kind,
      String name,
      String description,
      String unit,
      List<String> requiredLabelKeys,
      List<String> optionalLabelKeys,
      boolean enabledByDefault) {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty");
    }
    synchronized (lock) {
      for (MetricInstrument instrument : instruments) {
        if (instrument.name().equals(name)) {
          throw new IllegalArgumentException("name: metric '" + name + "' is already registered");
        }
      }
      MetricInstrument instrument =
          new MetricInstrument(
              instruments.size(),
              kind,
              name,
              description,
              unit,
              Objects.requireNonNull(requiredLabelKeys, "requiredLabelKeys"),
              Objects.requireNonNull(optionalLabelKeys, "optionalLabelKeys"),
              enabledByDefault);
      instruments.add(instrument);
      return instrument;
    }
  }
}
