package dev.tern.netty.internal.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.MethodDescriptor;
import dev.tern.testing.TestMarshallers;
import org.junit.jupiter.api.Test;

class RequestPathsTest {
  private final RequestPaths paths = new RequestPaths();

  @Test
  void aMethodsPathIsMadeOnceAndReused() {
    MethodDescriptor<?, ?> method = method("pkg.Greeter/SayHello");

    assertThat(paths.of(method).toString()).isEqualTo("/pkg.Greeter/SayHello");
    assertThat((Object) paths.of(method)).isSameAs(paths.of(method));
  }

  @Test
  void eachMethodGetsItsOwnPathEvenWhenTheyShareASlot() {
    // More methods than slots: some share a slot and take it over from each other.
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < 100; i++) {
        assertThat(paths.of(method("pkg.Svc/M" + i)).toString()).isEqualTo("/pkg.Svc/M" + i);
      }
    }
  }

  @Test
  void descriptorsWithEqualNamesShareThePath() {
    assertThat((Object) paths.of(method("pkg.Greeter/SayHello")))
        .isSameAs(paths.of(method("pkg.Greeter/SayHello")));
  }

  private static MethodDescriptor<?, ?> method(String fullName) {
    return MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
        .setFullMethodName(fullName)
        .setType(MethodDescriptor.MethodType.UNARY)
        .build();
  }
}
