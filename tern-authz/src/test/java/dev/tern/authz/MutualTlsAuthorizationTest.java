package dev.tern.authz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientInterceptors;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.netty.NettySslContexts;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.MetadataUtils;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * End to end over the Netty transport: clients with certificates (spiffe:// URI SANs, DNS SANs, a
 * bare subject), a TLS client without one and a plaintext client, against one policy.
 */
class MutualTlsAuthorizationTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final String POLICY =
      "{\"name\": \"e2e\","
          + " \"deny_rules\": ["
          + "  {\"name\": \"blocked\","
          + "   \"request\": {\"headers\": [{\"key\": \"x-blocked\", \"values\": [\"*\"]}]}}],"
          + " \"allow_rules\": ["
          + "  {\"name\": \"admins\","
          + "   \"source\": {\"principals\": [\"spiffe://foo.com/sa/admin*\"]}},"
          + "  {\"name\": \"example-hosts\","
          + "   \"source\": {\"principals\": [\"*.example.com\"]},"
          + "   \"request\": {\"paths\": [\"/tern.testing.Echo/Unary\"]}},"
          + "  {\"name\": \"legacy\","
          + "   \"source\": {\"principals\": [\"CN=legacy,O=Tern\"]},"
          + "   \"request\": {\"paths\": [\"/tern.testing.Echo/Unary\"]}},"
          + "  {\"name\": \"tls-without-certificate\","
          + "   \"source\": {\"principals\": [\"\"]},"
          + "   \"request\": {\"headers\": [{\"key\": \"x-ticket\", \"values\": [\"ok-*\"]}]}},"
          + "  {\"name\": \"anyone-with-a-pass\","
          + "   \"request\": {\"paths\": [\"/tern.testing.Echo/Unary\"],"
          + "                 \"headers\": [{\"key\": \"x-pass\", \"values\": [\"letmein\"]}]}}]}";

  static KeytoolCertificate server;
  static KeytoolCertificate admin;
  static KeytoolCertificate reader;
  static KeytoolCertificate web;
  static KeytoolCertificate legacy;

  @BeforeAll
  static void certificates() throws Exception {
    server = KeytoolCertificate.generate("CN=server", "dns:localhost,ip:127.0.0.1");
    admin =
        KeytoolCertificate.generate(
            "CN=admin", "uri:spiffe://foo.com/sa/admin1,dns:admin.internal");
    reader =
        KeytoolCertificate.generate(
            "CN=reader", "uri:spiffe://foo.com/sa/reader,dns:reader.internal");
    web = KeytoolCertificate.generate("CN=web", "dns:web.example.com");
    legacy = KeytoolCertificate.generate("CN=legacy, O=Tern", null);
  }

  private Server tlsServer() throws Exception {
    SslContext context =
        NettySslContexts.forServer(server.key, server.certificate)
            .trustManager(
                admin.certificate, reader.certificate, web.certificate, legacy.certificate)
            .clientAuth(ClientAuth.OPTIONAL)
            .build();
    return start(
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).sslContext(context));
  }

  private Server start(NettyServerBuilder builder) throws Exception {
    Server server =
        builder
            .addService(EchoService.definition())
            .intercept(AuthorizationPolicyInterceptor.create(POLICY))
            .build();
    return cleanup.register(server).start();
  }

  private ManagedChannel tlsChannel(Server to, KeytoolCertificate client) throws Exception {
    SslContextBuilder context = NettySslContexts.forClient().trustManager(server.certificate);
    if (client != null) {
      context.keyManager(client.key, client.certificate);
    }
    return cleanup.register(
        NettyChannelBuilder.forAddress("127.0.0.1", to.getPort())
            .sslContext(context.build())
            .build());
  }

  private static Channel withHeaders(Channel channel, Map<String, String> headers) {
    Metadata metadata = new Metadata();
    headers.forEach(
        (key, value) ->
            metadata.put(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER), value));
    return ClientInterceptors.intercept(
        channel, MetadataUtils.newAttachHeadersInterceptor(metadata));
  }

  private static Status.Code unary(Channel channel) {
    try {
      assertThat(
              ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "hi"))
          .isEqualTo("hi");
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  private static Status.Code serverStreaming(Channel channel) {
    try {
      Iterator<String> replies =
          ClientCalls.blockingServerStreamingCall(
              channel, EchoService.SERVER_STREAMING, CallOptions.DEFAULT, "2");
      int count = 0;
      while (replies.hasNext()) {
        replies.next();
        count++;
      }
      assertThat(count).isEqualTo(2);
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  @Test
  void spiffeAdminIsAllowedEverywhere() throws Exception {
    ManagedChannel channel = tlsChannel(tlsServer(), admin);
    assertThat(unary(channel)).isEqualTo(Status.Code.OK);
    assertThat(serverStreaming(channel)).isEqualTo(Status.Code.OK);
  }

  @Test
  void otherSpiffeIdentityIsDenied() throws Exception {
    ManagedChannel channel = tlsChannel(tlsServer(), reader);
    assertThat(unary(channel)).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(serverStreaming(channel)).isEqualTo(Status.Code.PERMISSION_DENIED);
  }

  @Test
  void dnsIdentityIsAllowedOnlyItsPath() throws Exception {
    ManagedChannel channel = tlsChannel(tlsServer(), web);
    assertThat(unary(channel)).isEqualTo(Status.Code.OK);
    assertThat(serverStreaming(channel)).isEqualTo(Status.Code.PERMISSION_DENIED);
  }

  @Test
  void subjectIdentityWithoutSansIsMatchedInRfc2253Form() throws Exception {
    ManagedChannel channel = tlsChannel(tlsServer(), legacy);
    assertThat(unary(channel)).isEqualTo(Status.Code.OK);
    assertThat(serverStreaming(channel)).isEqualTo(Status.Code.PERMISSION_DENIED);
  }

  @Test
  void tlsClientWithoutCertificateMatchesTheEmptyPrincipal() throws Exception {
    ManagedChannel channel = tlsChannel(tlsServer(), null);
    assertThat(unary(channel)).isEqualTo(Status.Code.PERMISSION_DENIED);
    Channel ticket = withHeaders(channel, Map.of("x-ticket", "ok-42"));
    assertThat(unary(ticket)).isEqualTo(Status.Code.OK);
    assertThat(serverStreaming(ticket)).isEqualTo(Status.Code.OK);
    assertThat(unary(withHeaders(channel, Map.of("x-ticket", "no-42"))))
        .isEqualTo(Status.Code.PERMISSION_DENIED);
  }

  @Test
  void plaintextClientIsDeniedByPrincipalRulesButNotByOthers() throws Exception {
    Server plaintext = start(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)));
    ManagedChannel channel =
        cleanup.register(
            NettyChannelBuilder.forAddress("127.0.0.1", plaintext.getPort())
                .usePlaintext()
                .build());
    // The "" principal stands for a TLS peer without a certificate, not for a plaintext one.
    assertThat(unary(withHeaders(channel, Map.of("x-ticket", "ok-42"))))
        .isEqualTo(Status.Code.PERMISSION_DENIED);
    // A rule without principals applies to any peer.
    assertThat(unary(withHeaders(channel, Map.of("x-pass", "letmein")))).isEqualTo(Status.Code.OK);
  }

  @Test
  void denyRuleOnAHeaderOverridesTheAdminsAllowRule() throws Exception {
    ManagedChannel channel = tlsChannel(tlsServer(), admin);
    assertThat(unary(withHeaders(channel, Map.of("x-blocked", "yes"))))
        .isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(unary(channel)).isEqualTo(Status.Code.OK);
  }
}
