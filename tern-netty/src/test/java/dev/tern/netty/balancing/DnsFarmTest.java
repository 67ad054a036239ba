package dev.tern.netty.balancing;

import dev.tern.netty.hostile.LeakWatch;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.Dnsmasq;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the tests of this package share: a real dnsmasq ({@link #dns}) serving the names of a {@link
 * ServerFarm} ({@link #farm}), both stopped after each test (the farm first), Netty's leak watch,
 * and the cleanup extension that shuts down what a test registers with it. A test class extends it
 * and starts the two in its tests.
 *
 * <p>Not thread-safe: used by JUnit's test thread.
 */
abstract class DnsFarmTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  /** The DNS server, once a test started it. */
  Dnsmasq dns;

  /** The servers, once a test started them. */
  ServerFarm farm;

  @AfterEach
  final void stopFarmAndDns() {
    if (farm != null) {
      farm.close();
    }
    if (dns != null) {
      dns.close();
    }
  }
}
