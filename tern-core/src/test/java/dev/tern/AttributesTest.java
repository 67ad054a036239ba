package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class AttributesTest {
  private static final Attributes.Key<String> ZONE = Attributes.Key.create("zone");
  private static final Attributes.Key<Integer> WEIGHT = Attributes.Key.create("weight");

  @Test
  void builderSetsAndGetsTypedValues() {
    Attributes attrs = Attributes.newBuilder().set(ZONE, "eu-1").set(WEIGHT, 3).build();

    assertThat(attrs.get(ZONE)).isEqualTo("eu-1");
    assertThat(attrs.get(WEIGHT)).isEqualTo(3);
    assertThat(attrs.keys()).containsExactlyInAnyOrder(ZONE, WEIGHT);
    assertThat(Attributes.EMPTY.get(ZONE)).isNull();
    assertThat(Attributes.EMPTY.keys()).isEmpty();
  }

  @Test
  void laterSetReplacesEarlierValue() {
    Attributes attrs = Attributes.newBuilder().set(ZONE, "a").set(ZONE, "b").build();
    assertThat(attrs.get(ZONE)).isEqualTo("b");
    assertThat(attrs.keys()).hasSize(1);
  }

  @Test
  void keysWithTheSameNameAreDifferentKeys() {
    Attributes.Key<String> otherZone = Attributes.Key.create("zone");
    Attributes attrs = Attributes.newBuilder().set(ZONE, "a").build();

    assertThat(attrs.get(otherZone)).isNull();
    assertThat(otherZone).isNotEqualTo(ZONE).hasToString("zone");
  }

  @Test
  void toBuilderCopiesAndLeavesTheOriginalUnchanged() {
    Attributes original = Attributes.newBuilder().set(ZONE, "a").set(WEIGHT, 1).build();

    Attributes changed = original.toBuilder().set(ZONE, "b").discard(WEIGHT).build();

    assertThat(original.get(ZONE)).isEqualTo("a");
    assertThat(original.get(WEIGHT)).isEqualTo(1);
    assertThat(changed.get(ZONE)).isEqualTo("b");
    assertThat(changed.keys()).containsExactly(ZONE);
  }

  @Test
  void unchangedBuilderReturnsItsBase() {
    Attributes original = Attributes.newBuilder().set(ZONE, "a").build();
    assertThat(original.toBuilder().build()).isSameAs(original);
    assertThat(original.toBuilder().discard(WEIGHT).build()).isSameAs(original);
    assertThat(Attributes.newBuilder().build()).isSameAs(Attributes.EMPTY);
  }

  @Test
  void discardingEverythingGivesEmpty() {
    Attributes attrs = Attributes.newBuilder().set(ZONE, "a").build();
    assertThat(attrs.toBuilder().discard(ZONE).build()).isSameAs(Attributes.EMPTY);
  }

  @Test
  void settingNullDiscards() {
    Attributes attrs = Attributes.newBuilder().set(ZONE, "a").set(ZONE, null).build();
    assertThat(attrs.keys()).isEmpty();
  }

  @Test
  void setAllMergesWithTheOtherSideWinning() {
    Attributes base = Attributes.newBuilder().set(ZONE, "a").set(WEIGHT, 1).build();
    Attributes overrides = Attributes.newBuilder().set(ZONE, "b").build();

    Attributes merged = base.toBuilder().setAll(overrides).build();

    assertThat(merged.get(ZONE)).isEqualTo("b");
    assertThat(merged.get(WEIGHT)).isEqualTo(1);
  }

  @Test
  void builderKeepsWorkingAfterBuildWithoutChangingBuiltInstances() {
    Attributes.Builder builder = Attributes.newBuilder().set(ZONE, "a");
    Attributes first = builder.build();

    Attributes second = builder.set(WEIGHT, 2).build();

    assertThat(first.keys()).containsExactly(ZONE);
    assertThat(second.get(ZONE)).isEqualTo("a");
    assertThat(second.get(WEIGHT)).isEqualTo(2);
  }

  @Test
  void equalityIsByContent() {
    Attributes a = Attributes.newBuilder().set(ZONE, "x").set(WEIGHT, 1).build();
    Attributes b = Attributes.newBuilder().set(WEIGHT, 1).set(ZONE, "x").build();
    Attributes c = Attributes.newBuilder().set(ZONE, "x").build();

    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b).isNotEqualTo(c);
    assertThat(c.toString()).isEqualTo("{zone=x}");
  }

  @Test
  void keysViewIsUnmodifiable() {
    Attributes attrs = Attributes.newBuilder().set(ZONE, "a").build();
    assertThatThrownBy(() -> attrs.keys().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void nullArgumentsAreNamed() {
    assertThatThrownBy(() -> Attributes.Key.create(null)).hasMessage("debugString");
    assertThatThrownBy(() -> Attributes.newBuilder().set(null, "x")).hasMessage("key");
    assertThatThrownBy(() -> Attributes.newBuilder().discard(null)).hasMessage("key");
    assertThatThrownBy(() -> Attributes.newBuilder().setAll(null)).hasMessage("other");
  }
}
