package dev.tern.interop.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Status;
import java.util.List;
import org.junit.jupiter.api.Test;

class RpcBehaviorTest {
  private static RpcBehavior on(String host, int previousAttempts, String... values) {
    return RpcBehavior.of(List.of(values), host, previousAttempts);
  }

  @Test
  void noHeaderServesAtOnce() {
    RpcBehavior behavior = on("a", 0);
    assertThat(behavior.outcome()).isEqualTo(RpcBehavior.Outcome.SERVE);
    assertThat(behavior.delayMillis()).isZero();
  }

  @Test
  void sleepsAddUpAcrossItemsAndHeaderValuesBeforeTheOutcome() {
    RpcBehavior behavior = on("a", 0, "sleep-1,sleep-2", "error-code-5");
    assertThat(behavior.delayMillis()).isEqualTo(3000);
    assertThat(behavior.outcome()).isEqualTo(RpcBehavior.Outcome.FAIL);
    assertThat(behavior.error().getCode()).isEqualTo(Status.Code.NOT_FOUND);
  }

  @Test
  void theFirstEndingBehaviourWins() {
    assertThat(on("a", 0, "keep-open,error-code-5").outcome())
        .isEqualTo(RpcBehavior.Outcome.KEEP_OPEN);
    assertThat(on("a", 0, "error-code-5", "keep-open").outcome())
        .isEqualTo(RpcBehavior.Outcome.FAIL);
  }

  @Test
  void hostnamePrefixAppliesOnlyOnTheNamedHost() {
    assertThat(on("a", 0, "hostname=a error-code-7").outcome()).isEqualTo(RpcBehavior.Outcome.FAIL);
    RpcBehavior elsewhere = on("b", 0, "hostname=a error-code-7,hostname=a sleep-1");
    assertThat(elsewhere.outcome()).isEqualTo(RpcBehavior.Outcome.SERVE);
    assertThat(elsewhere.delayMillis()).isZero();
  }

  @Test
  void successOnRetryAttemptSkipsWhatFollowsOnlyOnThatAttempt() {
    String value = "success-on-retry-attempt-2,error-code-14";
    assertThat(on("a", 0, value).outcome()).isEqualTo(RpcBehavior.Outcome.FAIL);
    assertThat(on("a", 1, value).outcome()).isEqualTo(RpcBehavior.Outcome.FAIL);
    assertThat(on("a", 2, value).outcome()).isEqualTo(RpcBehavior.Outcome.SERVE);
  }

  @Test
  void badBehavioursAreNamed() {
    assertThatThrownBy(() -> on("a", 0, "explode"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown rpc-behavior 'explode'");
    assertThatThrownBy(() -> on("a", 0, "sleep-x"))
        .hasMessageContaining("'sleep-x'")
        .hasMessageContaining("whole number");
    assertThatThrownBy(() -> on("a", 0, "error-code-0"))
        .hasMessageContaining("status code from 1 to 16");
    assertThatThrownBy(() -> on("a", 0, "error-code-17"))
        .hasMessageContaining("status code from 1 to 16");
    assertThatThrownBy(() -> on("a", 0, "hostname=a")).hasMessageContaining("followed by");
  }
}
