package dev.tern;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.testing.FakeClock;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

class CallOptionsTest {
  private static final CallOptions.Key<String> TENANT = CallOptions.Key.create("tenant");
  private static final CallOptions.Key<Integer> PRIORITY =
      CallOptions.Key.createWithDefault("priority", 5);

  private static final CallCredentials NO_OP_CREDENTIALS =
      new CallCredentials() {
        @Override
        public void applyRequestMetadata(
            RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier) {
          applier.apply(new Metadata());
        }
      };

  @Test
  void defaultHasNothingSet() {
    CallOptions options = CallOptions.DEFAULT;

    assertThat(options.getDeadline()).isNull();
    assertThat(options.getAuthority()).isNull();
    assertThat(options.getCredentials()).isNull();
    assertThat(options.getCompressor()).isNull();
    assertThat(options.getExecutor()).isNull();
    assertThat(options.isWaitForReady()).isFalse();
    assertThat(options.getMaxInboundMessageSize()).isNull();
    assertThat(options.getMaxOutboundMessageSize()).isNull();
    assertThat(options.toString()).isEqualTo("CallOptions{}");
  }

  @Test
  void withMethodsReturnNewInstancesAndLeaveTheOriginalUnchanged() {
    Deadline deadline = Deadline.after(1, SECONDS, new FakeClock().getTicker());
    Executor executor = Runnable::run;

    CallOptions options =
        CallOptions.DEFAULT
            .withDeadline(deadline)
            .withAuthority("api.example.com")
            .withCallCredentials(NO_OP_CREDENTIALS)
            .withCompression("gzip")
            .withExecutor(executor)
            .withWaitForReady()
            .withMaxInboundMessageSize(1024)
            .withMaxOutboundMessageSize(2048);

    assertThat(options.getDeadline()).isSameAs(deadline);
    assertThat(options.getAuthority()).isEqualTo("api.example.com");
    assertThat(options.getCredentials()).isSameAs(NO_OP_CREDENTIALS);
    assertThat(options.getCompressor()).isEqualTo("gzip");
    assertThat(options.getExecutor()).isSameAs(executor);
    assertThat(options.isWaitForReady()).isTrue();
    assertThat(options.getMaxInboundMessageSize()).isEqualTo(1024);
    assertThat(options.getMaxOutboundMessageSize()).isEqualTo(2048);
    assertThat(CallOptions.DEFAULT.getAuthority()).isNull();
    assertThat(CallOptions.DEFAULT.isWaitForReady()).isFalse();
  }

  @Test
  void eachWithMethodChangesOnlyItsOwnSetting() {
    CallOptions base = CallOptions.DEFAULT.withAuthority("a").withMaxInboundMessageSize(10);

    CallOptions changed = base.withCompression("gzip");

    assertThat(changed).isNotSameAs(base);
    assertThat(changed.getAuthority()).isEqualTo("a");
    assertThat(changed.getMaxInboundMessageSize()).isEqualTo(10);
    assertThat(base.getCompressor()).isNull();
  }

  @Test
  void unchangedSettingsReturnTheSameInstance() {
    CallOptions options =
        CallOptions.DEFAULT.withAuthority("a").withMaxInboundMessageSize(10).withWaitForReady();

    assertThat(options.withAuthority("a")).isSameAs(options);
    assertThat(options.withMaxInboundMessageSize(10)).isSameAs(options);
    assertThat(options.withWaitForReady()).isSameAs(options);
    assertThat(CallOptions.DEFAULT.withoutWaitForReady()).isSameAs(CallOptions.DEFAULT);
    assertThat(CallOptions.DEFAULT.withDeadline(null)).isSameAs(CallOptions.DEFAULT);
    assertThat(CallOptions.DEFAULT.withOption(TENANT, null)).isSameAs(CallOptions.DEFAULT);
  }

  @Test
  void settingsCanBeClearedAgain() {
    CallOptions options =
        CallOptions.DEFAULT.withAuthority("a").withCompression("gzip").withWaitForReady();

    CallOptions cleared = options.withAuthority(null).withCompression(null).withoutWaitForReady();

    assertThat(cleared.getAuthority()).isNull();
    assertThat(cleared.getCompressor()).isNull();
    assertThat(cleared.isWaitForReady()).isFalse();
  }

  @Test
  void deadlineAfterUsesTheSystemTicker() {
    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(10, SECONDS);

    assertThat(options.getDeadline().timeRemaining(SECONDS)).isBetween(8L, 10L);
    assertThat(options.getDeadline().isBefore(Deadline.after(11, SECONDS))).isTrue();
  }

  @Test
  void negativeMessageSizesAreRejected() {
    assertThatThrownBy(() -> CallOptions.DEFAULT.withMaxInboundMessageSize(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxSize");
    assertThatThrownBy(() -> CallOptions.DEFAULT.withMaxOutboundMessageSize(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxSize");
    assertThat(CallOptions.DEFAULT.withMaxInboundMessageSize(0).getMaxInboundMessageSize())
        .isZero();
  }

  @Test
  void customOptionsFallBackToTheirDefaults() {
    assertThat(CallOptions.DEFAULT.getOption(TENANT)).isNull();
    assertThat(CallOptions.DEFAULT.getOption(PRIORITY)).isEqualTo(5);
    assertThat(PRIORITY.getDefault()).isEqualTo(5);
    assertThat(PRIORITY.toString()).isEqualTo("priority");
  }

  @Test
  void customOptionsCanBeSetReplacedAndRemoved() {
    CallOptions options = CallOptions.DEFAULT.withOption(TENANT, "acme").withOption(PRIORITY, 1);

    CallOptions replaced = options.withOption(TENANT, "globex");
    CallOptions removed = replaced.withOption(PRIORITY, null);

    assertThat(options.getOption(TENANT)).isEqualTo("acme");
    assertThat(replaced.getOption(TENANT)).isEqualTo("globex");
    assertThat(replaced.getOption(PRIORITY)).isEqualTo(1);
    assertThat(removed.getOption(PRIORITY)).isEqualTo(5);
    assertThat(removed.getOption(TENANT)).isEqualTo("globex");
    assertThat(CallOptions.DEFAULT.getOption(TENANT)).isNull();
  }

  @Test
  void customOptionKeysAreComparedByIdentity() {
    CallOptions.Key<String> otherTenant = CallOptions.Key.create("tenant");
    CallOptions options = CallOptions.DEFAULT.withOption(TENANT, "acme");

    assertThat(options.getOption(otherTenant)).isNull();
  }

  @Test
  void toStringListsOnlyWhatIsSet() {
    CallOptions options =
        CallOptions.DEFAULT.withAuthority("a.example").withWaitForReady().withOption(TENANT, "x");

    assertThat(options.toString())
        .isEqualTo("CallOptions{authority=a.example, waitForReady=true, tenant=x}");
  }

  @Test
  void nullKeysAreNamed() {
    assertThatThrownBy(() -> CallOptions.DEFAULT.withOption(null, "x")).hasMessage("key");
    assertThatThrownBy(() -> CallOptions.DEFAULT.getOption(null)).hasMessage("key");
    assertThatThrownBy(() -> CallOptions.Key.create(null)).hasMessage("debugString");
    assertThatThrownBy(() -> CallOptions.DEFAULT.withDeadlineAfter(1, null)).hasMessage("unit");
  }

  @Test
  void aBuilderSetsSeveralOptionsAtOnce() {
    Deadline deadline = Deadline.after(1, SECONDS, new FakeClock().getTicker());

    CallOptions options =
        CallOptions.newBuilder()
            .setDeadline(deadline)
            .setAuthority("api.example.com")
            .setCallCredentials(NO_OP_CREDENTIALS)
            .setCompression("gzip")
            .setWaitForReady(true)
            .setMaxInboundMessageSize(1024)
            .setMaxOutboundMessageSize(2048)
            .setOption(TENANT, "acme")
            .build();

    assertThat(options.getDeadline()).isSameAs(deadline);
    assertThat(options.getAuthority()).isEqualTo("api.example.com");
    assertThat(options.getCredentials()).isSameAs(NO_OP_CREDENTIALS);
    assertThat(options.getCompressor()).isEqualTo("gzip");
    assertThat(options.isWaitForReady()).isTrue();
    assertThat(options.getMaxInboundMessageSize()).isEqualTo(1024);
    assertThat(options.getMaxOutboundMessageSize()).isEqualTo(2048);
    assertThat(options.getOption(TENANT)).isEqualTo("acme");
    assertThat(CallOptions.newBuilder().build().toString()).isEqualTo("CallOptions{}");
  }

  @Test
  void toBuilderStartsFromTheOptionsAndLeavesThemUnchanged() {
    CallOptions original =
        CallOptions.DEFAULT.withAuthority("a").withOption(TENANT, "acme").withOption(PRIORITY, 1);

    CallOptions.Builder builder = original.toBuilder().setAuthority("b").setOption(PRIORITY, null);
    CallOptions changed = builder.build();
    builder.setOption(TENANT, "globex");
    CallOptions changedAgain = builder.build();

    assertThat(original.getAuthority()).isEqualTo("a");
    assertThat(original.getOption(PRIORITY)).isEqualTo(1);
    assertThat(changed.getAuthority()).isEqualTo("b");
    assertThat(changed.getOption(PRIORITY)).isEqualTo(5);
    assertThat(changed.getOption(TENANT)).isEqualTo("acme");
    assertThat(changedAgain.getOption(TENANT)).isEqualTo("globex");
    assertThat(original.getOption(TENANT)).isEqualTo("acme");
  }

  @Test
  void theBuilderRejectsNegativeSizesAndNullKeys() {
    assertThatThrownBy(() -> CallOptions.newBuilder().setMaxInboundMessageSize(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxSize");
    assertThatThrownBy(() -> CallOptions.newBuilder().setMaxOutboundMessageSize(-2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxSize");
    assertThatThrownBy(() -> CallOptions.newBuilder().setOption(null, "x")).hasMessage("key");
    assertThat(
            CallOptions.DEFAULT.withMaxInboundMessageSize(7).toBuilder()
                .setMaxInboundMessageSize(null)
                .build()
                .getMaxInboundMessageSize())
        .isNull();
  }
}
