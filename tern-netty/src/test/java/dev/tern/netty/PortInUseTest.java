package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tern.Server;
import dev.tern.netty.internal.io.EventLoops;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A server whose address is taken fails {@code start} with a {@link BindException} naming the
 * address, whichever transport it runs on (the JDK's NIO throws one; epoll's and io_uring's native
 * errors are plain {@code IOException}s), so that code that picks another port on a BindException
 * works everywhere. Runs in the default execution (a native transport where the machine has one)
 * and in the no-native one (NIO).
 */
class PortInUseTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @Test
  void anAddressInUseFailsStartWithABindExceptionNamingIt() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", taken.getLocalPort());
      Server server =
          cleanup.register(
              NettyServerBuilder.forAddress(address).addService(EchoService.definition()).build());

      BindException e = catchThrowableOfType(BindException.class, server::start);

      assertThat(e).as("start on %s, taken, with %s", address, EventLoops.sharedKind()).isNotNull();
      assertThat(e.getMessage())
          .contains("Failed to bind to")
          .contains(":" + taken.getLocalPort())
          .containsIgnoringCase("in use");
    }
  }
}
