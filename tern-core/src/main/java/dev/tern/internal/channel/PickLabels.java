package dev.tern.internal.channel;

import dev.tern.CallOptions;
import dev.tern.ClientStreamTracer;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.internal.TracerEvents;
import java.util.Arrays;

/**
 * A traced attempt's arguments as its picker sees them: the attempt's own, plus a place for the
 * optional metric labels the picker names ({@link PickSubchannelArgs#addOptionalLabel}, gRFC
 * A78/A89), which the channel then tells the attempt's tracers. Made for one pick of a call that
 * has stream tracer factories; an untraced call's picker gets the call itself, whose labels go
 * nowhere.
 *
 * <p>Not thread-safe: filled by the picking thread, then read by it.
 */
final class PickLabels implements PickSubchannelArgs {
  private final PickSubchannelArgs args;
  private String[] entries; // key, value, key, value...; null until a label is named
  private int size;

  PickLabels(PickSubchannelArgs args) {
    this.args = args;
  }

  @Override
  public CallOptions getCallOptions() {
    return args.getCallOptions();
  }

  @Override
  public Metadata getHeaders() {
    return args.getHeaders();
  }

  @Override
  public MethodDescriptor<?, ?> getMethodDescriptor() {
    return args.getMethodDescriptor();
  }

  @Override
  public void addOptionalLabel(String key, String value) {
    if (key == null) {
      return; // nothing to label; a picker's slip must not fail only the traced calls
    }
    if (value == null) {
      value = "";
    }
    for (int i = 0; i < size; i += 2) {
      if (entries[i].equals(key)) {
        entries[i + 1] = value;
        return;
      }
    }
    if (entries == null) {
      entries = new String[4]; // xDS names two labels: locality and backend service
    } else if (size == entries.length) {
      entries = Arrays.copyOf(entries, size * 2);
    }
    entries[size++] = key;
    entries[size++] = value;
  }

  /** Whether the picker named any label. */
  boolean isEmpty() {
    return size == 0;
  }

  /** Tells {@code tracers} the labels, in the order they were first named. */
  void tell(ClientStreamTracer[] tracers) {
    if (size == 0) {
      return;
    }
    TracerEvents<ClientStreamTracer> events = new TracerEvents<>(tracers);
    for (int i = 0; i < size; i += 2) {
      String key = entries[i];
      String value = entries[i + 1];
      events.report(t -> t.addOptionalLabel(key, value));
    }
  }

  @Override
  public String toString() {
    return "PickLabels" + (entries == null ? "[]" : Arrays.toString(Arrays.copyOf(entries, size)));
  }
}
