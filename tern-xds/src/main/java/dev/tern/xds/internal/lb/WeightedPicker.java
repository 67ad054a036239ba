package dev.tern.xds.internal.lb;

import dev.tern.LoadBalancer.PickResult;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.LoadBalancer.SubchannelPicker;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * Picks one of several pickers in proportion to their weights, with a random number in {@code [0,
 * total)} from {@code random} (given the total), then delegates to it. Immutable; thread-safe if
 * {@code random} is.
 */
final class WeightedPicker extends SubchannelPicker {
  /** A picker and its weight (at least 1). */
  record Weighted(long weight, SubchannelPicker picker) {}

  private final long[] upperBounds;
  private final List<SubchannelPicker> pickers;
  private final LongUnaryOperator random;

  WeightedPicker(List<Weighted> choices, LongUnaryOperator random) {
    if (choices.isEmpty()) {
      throw new IllegalArgumentException("choices must not be empty");
    }
    this.upperBounds = new long[choices.size()];
    this.pickers = new ArrayList<>(choices.size());
    long total = 0;
    for (int i = 0; i < choices.size(); i++) {
      total += choices.get(i).weight();
      upperBounds[i] = total;
      pickers.add(choices.get(i).picker());
    }
    this.random = random;
  }

  @Override
  public PickResult pickSubchannel(PickSubchannelArgs args) {
    long value = random.applyAsLong(upperBounds[upperBounds.length - 1]);
    for (int i = 0; i < upperBounds.length; i++) {
      if (value < upperBounds[i]) {
        return pickers.get(i).pickSubchannel(args);
      }
    }
    return pickers.get(pickers.size() - 1).pickSubchannel(args);
  }

  @Override
  public String toString() {
    return "WeightedPicker{" + pickers + "}";
  }
}
