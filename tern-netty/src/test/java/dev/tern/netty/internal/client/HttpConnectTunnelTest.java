package dev.tern.netty.internal.client;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.HttpConnectProxiedSocketAddress;
import dev.tern.Status;
import dev.tern.netty.hostile.LeakWatch;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The CONNECT handshake on an embedded channel: the request, the answers a proxy may give (fed
 * whole and one byte at a time), and what the handlers behind it see.
 */
class HttpConnectTunnelTest {
  /** Fails the test if a buffer leaked (the build runs Netty's detector at paranoid). */
  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  private static final InetSocketAddress PROXY = new InetSocketAddress("127.0.0.1", 3128);
  private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final List<Status> failures = new ArrayList<>();
  private final List<Object> behind = new ArrayList<>();
  private EmbeddedChannel channel;

  @AfterEach
  void releaseEverything() {
    if (channel != null) {
      channel.finishAndReleaseAll();
    }
    for (Object o : behind) {
      if (o instanceof ByteBuf buf) {
        buf.release();
      }
    }
  }

  private static HttpConnectProxiedSocketAddress address(String user, String password) {
    return HttpConnectProxiedSocketAddress.newBuilder()
        .setProxyAddress(PROXY)
        .setTargetAddress(InetSocketAddress.createUnresolved("api.example.com", 443))
        .setUsername(user)
        .setPassword(password)
        .build();
  }

  /** A channel with the tunnel, then a handler that records what passes it; connected. */
  private void connect(HttpConnectProxiedSocketAddress address) {
    // Registered and active at once, as a connection to the proxy that has just been made.
    channel =
        new EmbeddedChannel(
            new HttpConnectTunnel(address, System.nanoTime() + TIMEOUT_NANOS, failures::add),
            new ChannelInboundHandlerAdapter() {
              @Override
              public void channelActive(ChannelHandlerContext ctx) {
                behind.add("active");
                // As TLS or HTTP/2 would: write at once.
                ctx.writeAndFlush(Unpooled.copiedBuffer("first bytes", ISO_8859_1));
              }

              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                behind.add(msg);
              }
            });
  }

  private String written() {
    StringBuilder out = new StringBuilder();
    ByteBuf buf;
    while ((buf = channel.readOutbound()) != null) {
      out.append(buf.toString(ISO_8859_1));
      buf.release();
    }
    return out.toString();
  }

  private void answer(String text, boolean byteAtATime) {
    byte[] bytes = text.getBytes(ISO_8859_1);
    if (!byteAtATime) {
      channel.writeInbound(Unpooled.wrappedBuffer(bytes));
      return;
    }
    for (int i = 0; i < bytes.length && channel.isOpen(); i++) {
      byte b = bytes[i];
      channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
    }
  }

  @Test
  void sendsConnectWithHostAndNoCredentials() {
    connect(address(null, null));

    assertThat(written())
        .isEqualTo("CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n");
    assertThat(behind).as("nothing behind starts before the answer").isEmpty();
  }

  @Test
  void sendsBasicCredentialsAsUtf8() {
    connect(address("ålice", "p:w"));

    assertThat(written())
        .contains("Proxy-Authorization: Basic w6VsaWNlOnA6dw==\r\n")
        .endsWith("\r\n\r\n");
  }

  @Test
  void anIpv6TargetIsBracketed() {
    channel =
        new EmbeddedChannel(
            new HttpConnectTunnel(
                HttpConnectProxiedSocketAddress.newBuilder()
                    .setProxyAddress(PROXY)
                    .setTargetAddress(InetSocketAddress.createUnresolved("2001:db8::1", 50051))
                    .build(),
                System.nanoTime() + TIMEOUT_NANOS,
                failures::add));

    assertThat(written())
        .startsWith("CONNECT [2001:db8::1]:50051 HTTP/1.1\r\nHost: [2001:db8::1]:50051\r\n");
  }

  @Test
  void aTwoHundredOpensTheTunnelAndHandsOnWhatFollows() {
    for (boolean byteAtATime : new boolean[] {false, true}) {
      behind.clear();
      connect(address(null, null));
      written();

      answer("HTTP/1.1 200 Connection established\r\nProxy-agent: x\r\n\r\nSERVER", byteAtATime);

      assertThat(failures).isEmpty();
      assertThat(channel.pipeline().get(HttpConnectTunnel.class)).as("left the pipeline").isNull();
      assertThat(behind.get(0)).isEqualTo("active");
      StringBuilder after = new StringBuilder();
      for (Object o : behind.subList(1, behind.size())) {
        after.append(((ByteBuf) o).toString(ISO_8859_1));
      }
      assertThat(after.toString()).isEqualTo("SERVER");
      assertThat(written()).isEqualTo("first bytes");
      channel.finishAndReleaseAll();
      for (Object o : behind) {
        if (o instanceof ByteBuf buf) {
          buf.release();
        }
      }
      behind.clear();
      channel = null;
    }
  }

  @Test
  void writesFromBehindAreHeldUntilTheTunnelIsOpen() {
    connect(address(null, null));
    written();
    ChannelFuture early = channel.writeAndFlush(Unpooled.copiedBuffer("early", ISO_8859_1));

    assertThat(written()).isEmpty();
    answer("HTTP/1.0 200 OK\n\n", false);

    assertThat(early.isSuccess()).isTrue();
    assertThat(written()).isEqualTo("earlyfirst bytes");
  }

  @Test
  void a407WithoutCredentialsSaysTheProxyWantsThem() {
    for (boolean byteAtATime : new boolean[] {false, true}) {
      failures.clear();
      connect(address(null, null));
      ChannelFuture early = channel.writeAndFlush(Unpooled.copiedBuffer("early", ISO_8859_1));

      answer(
          "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\nbody",
          byteAtATime);

      assertThat(failures).hasSize(1);
      Status status = failures.get(0);
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(status.getDescription())
          .isEqualTo(
              "HTTP CONNECT proxy 127.0.0.1:3128 refused to open a tunnel to api.example.com:443:"
                  + " HTTP/1.1 407 Proxy Authentication Required (the proxy wants credentials;"
                  + " none were configured)");
      assertThat(channel.isOpen()).isFalse();
      assertThat(early.isSuccess()).isFalse();
      assertThat(behind).isEmpty();
      channel.finishAndReleaseAll();
      channel = null;
    }
  }

  @Test
  void a407WithCredentialsSaysTheyWereRefused() {
    connect(address("alice", "wrong"));

    answer("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n", false);

    assertThat(failures.get(0).getDescription())
        .endsWith("(the proxy did not accept the credentials of alice)");
  }

  @Test
  void anyOtherStatusFailsWithTheStatusLine() {
    connect(address(null, null));

    answer("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n", false);

    assertThat(failures.get(0).getDescription())
        .isEqualTo(
            "HTTP CONNECT proxy 127.0.0.1:3128 refused to open a tunnel to api.example.com:443:"
                + " HTTP/1.1 403 Forbidden");
  }

  @Test
  void noAnswerWithinTheConnectTimeoutFails() {
    connect(address(null, null));

    channel.advanceTimeBy(TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
    channel.runScheduledPendingTasks();

    assertThat(failures).hasSize(1);
    assertThat(failures.get(0).getDescription())
        .startsWith("HTTP CONNECT proxy 127.0.0.1:3128 did not answer CONNECT api.example.com:443")
        .endsWith("ms (the connect timeout)");
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void aProxyThatClosesFirstFails() {
    connect(address(null, null));

    channel.close();

    assertThat(failures.get(0).getDescription())
        .isEqualTo(
            "HTTP CONNECT proxy 127.0.0.1:3128 closed the connection before answering CONNECT"
                + " api.example.com:443");
  }

  @Test
  void anOversizedAnswerFails() {
    connect(address(null, null));

    answer("HTTP/1.1 200 OK\r\nX: " + "a".repeat(HttpConnectResponse.MAX_HEAD_BYTES), false);

    assertThat(failures.get(0).getDescription())
        .endsWith("answered CONNECT with a head longer than 8192 bytes");
  }

  @Test
  void aMalformedAnswerFailsQuotingItPrintably() {
    for (String answer :
        new String[] {
          "SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", "HTTP/1.1 2000\r\n\r\n"
        }) {
      failures.clear();
      connect(address(null, null));

      answer(answer, false);

      assertThat(failures).as(answer).hasSize(1);
      assertThat(failures.get(0).getDescription()).as(answer).contains("answered CONNECT with");
      channel.finishAndReleaseAll();
      channel = null;
    }
    failures.clear();
    connect(address(null, null));
    answer("\u0001\u0002junk\r\n\r\n", false);
    assertThat(failures.get(0).getDescription())
        .isEqualTo(
            "HTTP CONNECT proxy 127.0.0.1:3128 answered CONNECT with something other than"
                + " HTTP/1.x: \"??junk\"");
  }
}
