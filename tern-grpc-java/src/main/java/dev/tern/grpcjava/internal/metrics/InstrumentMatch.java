package dev.tern.grpcjava.internal.metrics;

import java.util.Arrays;
import java.util.List;

/**
 * A Tern instrument's grpc-java twin: the {@code io.grpc.MetricInstrument} of the same name, kind
 * and label keys, and how to reorder Tern's label values into grpc-java's order (the two may list
 * the same keys in different orders; values go by key).
 *
 * <p>Immutable; thread-safe.
 */
final class InstrumentMatch {
  /** What an instrument without a grpc-java twin maps to (a map cannot hold null). */
  static final InstrumentMatch NONE = new InstrumentMatch(null, null, null);

  private final io.grpc.MetricInstrument instrument;
  // For each of grpc-java's keys, the place of that key among Tern's; null when the orders agree.
  private final int[] required;
  private final int[] optional;

  private InstrumentMatch(io.grpc.MetricInstrument instrument, int[] required, int[] optional) {
    this.instrument = instrument;
    this.required = required;
    this.optional = optional;
  }

  /**
   * The match of {@code tern} with {@code grpcJava}, or null when their label keys are not the same
   * sets.
   */
  static InstrumentMatch of(dev.tern.MetricInstrument tern, io.grpc.MetricInstrument grpcJava) {
    int[] required = order(tern.requiredLabelKeys(), grpcJava.getRequiredLabelKeys());
    int[] optional = order(tern.optionalLabelKeys(), grpcJava.getOptionalLabelKeys());
    if (required == null || optional == null) {
      return null;
    }
    return new InstrumentMatch(
        grpcJava, isIdentity(required) ? null : required, isIdentity(optional) ? null : optional);
  }

  /** Where each of {@code to}'s keys is in {@code from}, or null if the two are not one set. */
  private static int[] order(List<String> from, List<String> to) {
    if (from.size() != to.size()) {
      return null;
    }
    int[] order = new int[to.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = from.indexOf(to.get(i));
      if (order[i] < 0) {
        return null;
      }
    }
    for (int i = 0; i < order.length; i++) {
      for (int j = i + 1; j < order.length; j++) {
        if (order[i] == order[j]) {
          return null; // a key listed twice on one side
        }
      }
    }
    return order;
  }

  private static boolean isIdentity(int[] order) {
    for (int i = 0; i < order.length; i++) {
      if (order[i] != i) {
        return false;
      }
    }
    return true;
  }

  io.grpc.MetricInstrument instrument() {
    return instrument;
  }

  /** Tern's required label values in grpc-java's order. */
  List<String> labels(List<String> ternValues) {
    return reorder(required, ternValues);
  }

  /** Tern's optional label values in grpc-java's order. */
  List<String> optionalLabels(List<String> ternValues) {
    return reorder(optional, ternValues);
  }

  private static List<String> reorder(int[] order, List<String> values) {
    if (order == null) {
      return values;
    }
    String[] reordered = new String[order.length];
    for (int i = 0; i < order.length; i++) {
      reordered[i] = values.get(order[i]);
    }
    return Arrays.asList(reordered);
  }
}
