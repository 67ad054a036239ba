package dev.tern.reliability;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one fault did to one peer's calls: every outcome, and how long after the fault was taken off
 * calls succeeded again ({@code recoveryMillis}, -1 if they did not within the run's limit).
 */
public record FaultResult(String peer, Fault fault, List<Outcome> outcomes, long recoveryMillis) {
  /** Calls per status code (and {@link Outcome#HANG}). */
  public Map<String, Integer> codes() {
    Map<String, Integer> codes = new TreeMap<>();
    for (Outcome outcome : outcomes) {
      codes.merge(outcome.code(), 1, Integer::sum);
    }
    return codes;
  }

  /** Calls that hung or ended with a status a network fault must not cause. */
  public List<Outcome> findings() {
    return outcomes.stream().filter(o -> !o.allowed()).toList();
  }
}
