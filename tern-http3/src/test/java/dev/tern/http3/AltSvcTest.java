package dev.tern.http3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientInterceptors;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.netty.NettySslContexts;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.MetadataUtils;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.TestPems;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server with HTTP/3 on listens on UDP at its TCP port's number and says so on its HTTP/2
 * responses ({@code alt-svc: h3=":port"}), as RFC 7838 and RFC 9114 section 3.1.1 describe; a
 * server without it says nothing of the kind.
 */
class AltSvcTest {
  private static final Metadata.Key<String> ALT_SVC =
      Metadata.Key.of("alt-svc", Metadata.ASCII_STRING_MARSHALLER);

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @TempDir Path dir;

  @Test
  void http2ResponsesAdvertiseTheUdpPortOnlyWhenHttp3IsOn() throws Exception {
    TestPems pems = TestPems.generate("localhost", "dns:localhost,ip:127.0.0.1");
    Path cert = Files.writeString(dir.resolve("cert.pem"), pems.certificatePem);
    Path key = Files.writeString(dir.resolve("key.pem"), pems.keyPem);
    Server withHttp3 = cleanup.register(server(cert, key, true));
    Server without = cleanup.register(server(cert, key, false));

    assertThat(withHttp3.getListenSockets())
        .singleElement()
        .satisfies(a -> assertThat(((InetSocketAddress) a).getPort()).isPositive());
    assertThat(altSvcOfAnHttp2Call(withHttp3, pems))
        .isEqualTo("h3=\":" + withHttp3.getPort() + "\"");
    assertThat(altSvcOfAnHttp2Call(without, pems)).isNull();
  }

  private static Server server(Path cert, Path key, boolean http3) throws Exception {
    NettyServerBuilder builder =
        NettyServerBuilder.forPort(0)
            .useTransportSecurity(cert.toFile(), key.toFile())
            .addService(EchoService.definition());
    if (http3) {
      builder.enableHttp3();
    }
    return builder.build().start();
  }

  private String altSvcOfAnHttp2Call(Server server, TestPems pems) throws Exception {
    ManagedChannel channel =
        cleanup.register(
            NettyChannelBuilder.forAddress("localhost", server.getPort())
                .sslContext(NettySslContexts.forClient().trustManager(pems.certificate).build())
                .build());
    AtomicReference<Metadata> headers = new AtomicReference<>();
    String answer =
        ClientCalls.blockingUnaryCall(
            ClientInterceptors.intercept(
                channel,
                MetadataUtils.newCaptureMetadataInterceptor(headers, new AtomicReference<>())),
            EchoService.UNARY,
            CallOptions.DEFAULT,
            "hello");
    assertThat(answer).isEqualTo("hello");
    return headers.get().get(ALT_SVC);
  }
}
