package dev.tern.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.testing.FakeClock;
import org.junit.jupiter.api.Test;

/** Which adaptive limit a call meets: the server's, or its method's. */
class AdaptiveLimitsTest {
  private final FakeClock clock = new FakeClock();

  @Test
  void oneForTheServer_everyMethodMeetsTheSameLimit() {
    AdaptiveLimits limits = new AdaptiveLimits(clock.getTicker(), false);

    assertThat(limits.perMethod()).isFalse();
    assertThat(limits.forMethod("a.S/M")).isSameAs(limits.forMethod("b.S/N"));
  }

  @Test
  void serverStreams_eachMethodMeetsItsOwnLimit_notTheUnaryOne() {
    AdaptiveLimits limits = new AdaptiveLimits(clock.getTicker(), false);

    AdaptiveConcurrencyLimit watch = limits.forServerStream("a.S/Watch");

    assertThat(limits.forServerStream("a.S/Watch")).isSameAs(watch);
    assertThat(limits.forServerStream("a.S/Tail")).isNotSameAs(watch);
    assertThat(limits.forMethod("a.S/M")).isNotSameAs(watch);
  }

  @Test
  void perMethod_eachMethodMeetsItsOwnLimit_everyTime() {
    AdaptiveLimits limits = new AdaptiveLimits(clock.getTicker(), true);

    AdaptiveConcurrencyLimit m = limits.forMethod("a.S/M");

    assertThat(limits.perMethod()).isTrue();
    assertThat(limits.forMethod("a.S/M")).isSameAs(m);
    assertThat(limits.forMethod("b.S/N")).isNotSameAs(m);
  }

  @Test
  void perMethod_methodsBeyondTheBound_shareOneLimit() {
    AdaptiveLimits limits = new AdaptiveLimits(clock.getTicker(), true);
    for (int i = 0; i < AdaptiveLimits.MAX_METHODS; i++) {
      limits.forMethod("s.S/M" + i);
    }

    AdaptiveConcurrencyLimit beyond = limits.forMethod("s.S/Beyond");

    assertThat(limits.forMethod("s.S/FurtherStill")).isSameAs(beyond);
    assertThat(limits.forMethod("s.S/M0")).isNotSameAs(beyond);
  }
}
