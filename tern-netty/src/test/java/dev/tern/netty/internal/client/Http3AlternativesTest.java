package dev.tern.netty.internal.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * What a channel remembers of advertised HTTP/3 alternatives, on a fake clock: max-age, {@code
 * clear}, same-host only, malformed values ignored, and the back-off after QUIC fails.
 */
class Http3AlternativesTest {
  private static final InetSocketAddress SERVER = new InetSocketAddress("127.0.0.1", 8443);
  private static final String AUTHORITY = "example.com:8443";

  private final AtomicLong now = new AtomicLong(1_000);
  private final Http3Alternatives alternatives = new Http3Alternatives(now::get);

  private void advance(long time, TimeUnit unit) {
    now.addAndGet(unit.toNanos(time));
  }

  private InetSocketAddress alternative() {
    return alternatives.alternativeFor(SERVER, AUTHORITY);
  }

  @Test
  void anAdvertisedAlternativeIsRacedAtTheSameAddressUntilItsMaxAgeRunsOut() {
    assertThat(alternative()).isNull();

    assertThat(alternatives.heard(SERVER, AUTHORITY, "h3=\":9443\"; ma=60")).isTrue();

    assertThat(alternative()).isEqualTo(new InetSocketAddress("127.0.0.1", 9443));
    advance(59, TimeUnit.SECONDS);
    assertThat(alternative()).isNotNull();
    advance(1, TimeUnit.SECONDS);
    assertThat(alternative()).isNull();
  }

  @Test
  void hearingItAgainRefreshesItWithoutRetiringAnotherConnection() {
    assertThat(alternatives.heard(SERVER, AUTHORITY, "h3=\":9443\"; ma=60")).isTrue();
    advance(50, TimeUnit.SECONDS);
    assertThat(alternatives.heard(SERVER, AUTHORITY, "h3=\":9443\"; ma=60")).isFalse();
    advance(50, TimeUnit.SECONDS);
    assertThat(alternative()).isNotNull();
  }

  @Test
  void withoutMaxAgeAnAlternativeLastsADay() {
    alternatives.heard(SERVER, AUTHORITY, "h3=\":9443\"");
    advance(23, TimeUnit.HOURS);
    assertThat(alternative()).isNotNull();
    advance(1, TimeUnit.HOURS);
    assertThat(alternative()).isNull();
  }

  @Test
  void clearAndAFieldWithoutH3ForgetTheAlternative() {
    alternatives.heard(SERVER, AUTHORITY, "h3=\":9443\"");
    alternatives.heard(SERVER, AUTHORITY, "clear");
    assertThat(alternative()).isNull();

    alternatives.heard(SERVER, AUTHORITY, "h3=\":9443\"");
    alternatives.heard(SERVER, AUTHORITY, "h2=\":9444\"");
    assertThat(alternative()).isNull();

    alternatives.heard(SERVER, AUTHORITY, "h3=\":9443\"");
    alternatives.heard(SERVER, AUTHORITY, "h3=\":9443\"; ma=0");
    assertThat(alternative()).isNull();
  }

  @Test
  void onlyTheOriginsOwnHostIsTrusted() {
    assertThat(alternatives.heard(SERVER, AUTHORITY, "h3=\"evil.example:443\"")).isFalse();
    assertThat(alternative()).isNull();
    // Draft versions are not HTTP/3; the first acceptable alternative is taken.
    alternatives.heard(
        SERVER, AUTHORITY, "h3-29=\":1\", h3=\"other.example:2\", h3=\"EXAMPLE.com:3\"");
    assertThat(alternative()).isEqualTo(new InetSocketAddress("127.0.0.1", 3));
  }

  @Test
  void aMalformedFieldIsIgnoredAndChangesNothing() {
    alternatives.heard(SERVER, AUTHORITY, "h3=\":9443\"");
    assertThat(alternatives.heard(SERVER, AUTHORITY, "h3=\":9443")).isFalse();
    assertThat(alternative()).isEqualTo(new InetSocketAddress("127.0.0.1", 9443));
  }

  @Test
  void alternativesArePerAddressAndAuthority() {
    alternatives.heard(SERVER, AUTHORITY, "h3=\":9443\"");
    assertThat(alternatives.alternativeFor(new InetSocketAddress("127.0.0.2", 8443), AUTHORITY))
        .isNull();
    assertThat(alternatives.alternativeFor(SERVER, "other.example:8443")).isNull();
    assertThat(alternatives.heard(new InetSocketAddress("h", 1), "h:1", "h3=\":2\"")).isFalse();
  }

  @Test
  void aBrokenAlternativeWaitsOutABackOffThatDoublesUntilQuicWorks() {
    alternatives.heard(SERVER, AUTHORITY, "h3=\":9443\"");

    alternatives.broken(SERVER, AUTHORITY);
    assertThat(alternative()).isNull();
    // Still advertised: a broken alternative does not retire the HTTP/2 connection again.
    assertThat(alternatives.heard(SERVER, AUTHORITY, "h3=\":9443\"")).isFalse();
    advance(5, TimeUnit.MINUTES);
    assertThat(alternative()).isNotNull();

    alternatives.broken(SERVER, AUTHORITY);
    advance(9, TimeUnit.MINUTES);
    assertThat(alternative()).isNull();
    advance(1, TimeUnit.MINUTES);
    assertThat(alternative()).isNotNull();

    alternatives.worked(SERVER, AUTHORITY);
    alternatives.broken(SERVER, AUTHORITY);
    advance(5, TimeUnit.MINUTES);
    assertThat(alternative()).isNotNull();
  }

  @Test
  void theBackOffStopsGrowingAtADay() {
    alternatives.heard(SERVER, AUTHORITY, "h3=\":9443\"; ma=31536000");
    for (int i = 0; i < 20; i++) {
      alternatives.broken(SERVER, AUTHORITY);
    }
    advance(24, TimeUnit.HOURS);
    assertThat(alternative()).isNotNull();
  }
}
