package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LoadBalancerRegistryTest {
  private final LoadBalancerRegistry registry = new LoadBalancerRegistry();

  @Test
  void theAvailableProviderWithTheHighestPriorityWins() {
    FakeProvider low = new FakeProvider("round_robin", 1);
    FakeProvider high = new FakeProvider("round_robin", 7);
    FakeProvider unavailable = new FakeProvider("round_robin", 10);
    unavailable.available = false;
    registry.register(low);
    registry.register(unavailable);
    registry.register(high);

    assertThat(registry.getProvider("round_robin")).isSameAs(high);

    registry.deregister(high);
    assertThat(registry.getProvider("round_robin")).isSameAs(low);
  }

  @Test
  void unknownPolicyHasNoProvider() {
    registry.register(new FakeProvider("pick_first", 5));

    assertThat(registry.getProvider("no_such_policy")).isNull();
    assertThat(registry.getProvider("PICK_FIRST")).as("names are exact").isNull();
  }

  @Test
  void policyNamesAreTheAvailableOnesSortedOnce() {
    FakeProvider unavailable = new FakeProvider("weighted", 5);
    unavailable.available = false;
    registry.register(new FakeProvider("round_robin", 5));
    registry.register(new FakeProvider("pick_first", 5));
    registry.register(new FakeProvider("pick_first", 6));
    registry.register(unavailable);

    assertThat(registry.policyNames()).containsExactly("pick_first", "round_robin");
  }

  @Test
  void aRegistryWithAFallbackAsksItsOwnThenItsParentThenTheFallback() {
    LoadBalancerRegistry parent = new LoadBalancerRegistry();
    FakeProvider parentsRoundRobin = new FakeProvider("round_robin", 5);
    parent.register(parentsRoundRobin);
    FakeProvider fallbacksRoundRobin = new FakeProvider("round_robin", 10);
    FakeProvider fallbacksCustom = new FakeProvider("custom", 5);
    FakeProvider unavailable = new FakeProvider("unavailable", 5);
    unavailable.available = false;
    Map<String, LoadBalancerProvider> elsewhere =
        Map.of(
            "round_robin", fallbacksRoundRobin,
            "custom", fallbacksCustom,
            "unavailable", unavailable,
            "misnamed", new FakeProvider("other", 5));
    LoadBalancerRegistry withFallback = new LoadBalancerRegistry(parent, elsewhere::get);
    FakeProvider own = new FakeProvider("custom", 1);

    assertThat(withFallback.getProvider("round_robin"))
        .as("the parent's policy keeps its name, whatever the fallback's priority")
        .isSameAs(parentsRoundRobin);
    assertThat(withFallback.getProvider("custom")).isSameAs(fallbacksCustom);
    assertThat(withFallback.getProvider("unavailable")).isNull();
    assertThat(withFallback.getProvider("misnamed")).isNull();
    assertThat(withFallback.getProvider("nowhere")).isNull();
    withFallback.register(own);
    assertThat(withFallback.getProvider("custom")).isSameAs(own);
    assertThat(withFallback.policyNames()).containsExactly("custom", "round_robin");
    assertThatThrownBy(() -> new LoadBalancerRegistry(null, elsewhere::get))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("parent");
  }

  @Test
  void emptyPolicyNameIsRejected() {
    assertThatThrownBy(() -> registry.register(new FakeProvider("", 5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("policy name");
  }

  @Test
  void defaultRegistryHasTheBuiltInPolicies() {
    LoadBalancerRegistry defaults = LoadBalancerRegistry.getDefaultRegistry();

    assertThat(defaults.policyNames()).contains("pick_first", "round_robin", "least_request");
    assertThat(LoadBalancerRegistry.getDefaultRegistry()).isSameAs(defaults);
  }

  @Test
  void aPolicyWithoutConfigurationRejectsAnyNamingThePolicyAndTheFields() {
    FakeProvider provider = new FakeProvider("plain", 5);

    assertThat(provider.parseLoadBalancingPolicyConfig(Map.of()).getConfig()).isNotNull();
    assertThat(provider.parseLoadBalancingPolicyConfig(null).getConfig()).isNotNull();
    NameResolver.ConfigOrError bad = provider.parseLoadBalancingPolicyConfig(Map.of("weight", 3.0));
    assertThat(bad.getError().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(bad.getError().getDescription()).contains("plain").contains("weight");
  }

  private static final class FakeProvider extends LoadBalancerProvider {
    private final String name;
    private final int priority;
    boolean available = true;

    FakeProvider(String name, int priority) {
      this.name = name;
      this.priority = priority;
    }

    @Override
    public boolean isAvailable() {
      return available;
    }

    @Override
    public int getPriority() {
      return priority;
    }

    @Override
    public String getPolicyName() {
      return name;
    }

    @Override
    public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
      throw new UnsupportedOperationException();
    }
  }
}
