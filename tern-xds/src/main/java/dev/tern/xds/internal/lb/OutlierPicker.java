package dev.tern.xds.internal.lb;

import dev.tern.LoadBalancer.PickResult;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.LoadBalancer.SubchannelPicker;

/**
 * Outlier detection's picker: the child's pick, with the real subchannel in place of the wrapper
 * the child knows, and (when an ejection algorithm is on) a tracer counting the call's result.
 * Allocates nothing per pick unless the child's pick carries a tracer of its own. Immutable;
 * thread-safe if the child's picker is.
 */
final class OutlierPicker extends SubchannelPicker {
  private final SubchannelPicker child;
  private final boolean counting;

  OutlierPicker(SubchannelPicker child, boolean counting) {
    this.child = child;
    this.counting = counting;
  }

  @Override
  public PickResult pickSubchannel(PickSubchannelArgs args) {
    PickResult result = child.pickSubchannel(args);
    if (!(result.getSubchannel() instanceof OutlierSubchannel wrapper)) {
      return result;
    }
    return PickResult.withSubchannel(
        wrapper.delegate(),
        counting
            ? OutlierCallTracer.factory(wrapper, result.getStreamTracerFactory())
            : result.getStreamTracerFactory());
  }

  @Override
  public String toString() {
    return "OutlierPicker{" + child + (counting ? ", counting" : "") + "}";
  }
}
