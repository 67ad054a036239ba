package dev.tern.authz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.netty.NettySslContexts;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.stub.ClientCalls;
import io.netty.handler.ssl.ClientAuth;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** grpc-java's client, with its own TLS set-up and headers, against a Tern server's policy. */
class GrpcJavaClientAuthorizationTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final String POLICY =
      "{\"name\": \"grpc-java-peer\","
          + " \"allow_rules\": ["
          + "  {\"name\": \"admins\","
          + "   \"source\": {\"principals\": [\"spiffe://foo.com/sa/admin1\"]},"
          + "   \"request\": {\"paths\": [\"/tern.testing.Echo/Unary\"],"
          + "                 \"headers\": [{\"key\": \"user-agent\", \"values\": [\"grpc-java-*\"]}]}}]}";

  /** The echo service's unary method, as grpc-java sees it. */
  private static final MethodDescriptor<String, String> UNARY =
      MethodDescriptor.<String, String>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("tern.testing.Echo/Unary")
          .setRequestMarshaller(new Utf8())
          .setResponseMarshaller(new Utf8())
          .build();

  static KeytoolCertificate server;
  static KeytoolCertificate admin;
  static KeytoolCertificate reader;

  private ManagedChannel channel;

  @BeforeAll
  static void certificates() throws Exception {
    server = KeytoolCertificate.generate("CN=server", "dns:localhost,ip:127.0.0.1");
    admin = KeytoolCertificate.generate("CN=admin", "uri:spiffe://foo.com/sa/admin1");
    reader = KeytoolCertificate.generate("CN=reader", "uri:spiffe://foo.com/sa/reader");
  }

  @AfterEach
  void closeChannel() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  private Server start() throws Exception {
    Server tern =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .sslContext(
                NettySslContexts.forServer(server.key, server.certificate)
                    .trustManager(admin.certificate, reader.certificate)
                    .clientAuth(ClientAuth.REQUIRE)
                    .build())
            .addService(EchoService.definition())
            .intercept(AuthorizationPolicyInterceptor.create(POLICY))
            .build();
    return cleanup.register(tern).start();
  }

  private String call(KeytoolCertificate client) throws Exception {
    KeyStore keys = KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    keys.setKeyEntry("client", client.key, new char[0], new Certificate[] {client.certificate});
    KeyManagerFactory keyManagers =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(keys, new char[0]);
    KeyStore trusted = KeyStore.getInstance("PKCS12");
    trusted.load(null, null);
    trusted.setCertificateEntry("server", server.certificate);
    TrustManagerFactory trustManagers =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(trusted);
    ChannelCredentials credentials =
        TlsChannelCredentials.newBuilder()
            .keyManager(keyManagers.getKeyManagers())
            .trustManager(trustManagers.getTrustManagers())
            .build();
    channel = Grpc.newChannelBuilderForAddress("localhost", start().getPort(), credentials).build();
    return ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT, "hello");
  }

  @Test
  void grpcJavaClientWithTheAdminCertificateIsAllowed() throws Exception {
    assertThat(call(admin)).isEqualTo("hello");
  }

  @Test
  void grpcJavaClientWithAnotherCertificateIsDenied() throws Exception {
    try {
      call(reader);
      throw new AssertionError("the call should have been denied");
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(e.getStatus().getDescription())
          .isEqualTo("Access denied: the server's authorization policy does not permit this call");
    }
  }

  /** UTF-8 strings, the echo service's messages. */
  private static final class Utf8 implements MethodDescriptor.Marshaller<String> {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
