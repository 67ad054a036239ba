package dev.tern.netty.hostile;

import static dev.tern.netty.hostile.RawHttp2Connection.GOAWAY;
import static dev.tern.netty.hostile.RawHttp2Connection.SETTINGS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.Server;
import dev.tern.ServerTransportFilter;
import dev.tern.Status;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.netty.hostile.RawHttp2Connection.Frame;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A connection that a transport filter refuses (as an xDS server that is not serving refuses every
 * connection) ends with the server's SETTINGS and a GOAWAY on the wire before the close: a client
 * then knows the server is going away (its channel reconnects at once when the server serves again)
 * instead of seeing a connection cut during its handshake (which it backs off from). The refusal
 * comes while the server reads the client's preface, so a GOAWAY held back until that read's end
 * must still be written before the close.
 */
class RefusedConnectionWireTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @Test
  void aRefusedConnectionGetsSettingsAndAGoAwayBeforeTheClose() throws Exception {
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addTransportFilter(
                    new ServerTransportFilter() {
                      @Override
                      public Attributes transportReady(Attributes attrs, Connection connection) {
                        connection.refuse(Status.UNAVAILABLE.withDescription("not serving"));
                        return attrs;
                      }
                    })
                .addService(EchoService.definition())
                .build()
                .start());

    try (RawHttp2Connection raw = RawHttp2Connection.open(server.getPort())) {
      List<Frame> frames = raw.awaitClose();

      assertThat(frames).extracting(Frame::type).contains(SETTINGS);
      assertThat(frames).extracting(Frame::type).last().isEqualTo(GOAWAY);
    }
  }
}
