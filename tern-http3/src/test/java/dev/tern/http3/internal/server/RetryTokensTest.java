package dev.tern.http3.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The Retry tokens: bound to the client's address and original DCID, signed, short-lived. */
class RetryTokensTest {
  private static final byte[] KEY = new byte[32];
  private static final byte[] ODCID = {1, 2, 3, 4, 5, 6, 7, 8};

  private final AtomicLong now = new AtomicLong(1_800_000_000_000L);
  private final RetryTokens tokens = new RetryTokens(KEY, now::get);
  private final InetSocketAddress client = address("127.0.0.7", 40000);
  private ByteBuf token;

  private static InetSocketAddress address(String ip, int port) {
    try {
      return new InetSocketAddress(InetAddress.getByName(ip), port);
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  private ByteBuf issue(RetryTokens issuer) {
    ByteBuf out = Unpooled.buffer(issuer.maxTokenLength());
    assertThat(issuer.writeToken(out, Unpooled.wrappedBuffer(ODCID), client)).isTrue();
    assertThat(out.readableBytes()).isLessThanOrEqualTo(issuer.maxTokenLength());
    return out;
  }

  @AfterEach
  void release() {
    if (token != null) {
      token.release();
    }
  }

  @Test
  void aTokenFromTheSameAddressInTimeGivesBackTheOriginalDcid() {
    token = issue(tokens);
    now.addAndGet(RetryTokens.VALIDITY_MILLIS);
    int offset = tokens.validateToken(token, client);
    assertThat(offset).isPositive();
    byte[] odcid = new byte[token.readableBytes() - offset];
    token.getBytes(token.readerIndex() + offset, odcid);
    assertThat(odcid).isEqualTo(ODCID);
  }

  @Test
  void aTokenFromAnotherAddressOrPortIsRefused() {
    token = issue(tokens);
    assertThat(tokens.validateToken(token, address("127.0.0.8", 40000))).isEqualTo(-1);
    assertThat(tokens.validateToken(token, address("127.0.0.7", 40001))).isEqualTo(-1);
    assertThat(tokens.validateToken(token, address("::1", 40000))).isEqualTo(-1);
  }

  @Test
  void anExpiredTokenOrOneFromTheFutureIsRefused() {
    token = issue(tokens);
    now.addAndGet(RetryTokens.VALIDITY_MILLIS + 1);
    assertThat(tokens.validateToken(token, client)).isEqualTo(-1);
    now.addAndGet(-2 * RetryTokens.VALIDITY_MILLIS);
    assertThat(tokens.validateToken(token, client)).isEqualTo(-1);
  }

  @Test
  void aForgedTokenIsRefused() {
    token = issue(tokens);
    for (int i = 0; i < token.readableBytes(); i++) {
      ByteBuf forged = token.copy();
      forged.setByte(i, forged.getByte(i) ^ 0x01);
      assertThat(tokens.validateToken(forged, client)).as("byte %d flipped", i).isEqualTo(-1);
      forged.release();
    }
    // Another server's key; a token cut short; an empty one; one with a longer DCID appended.
    byte[] otherKey = new byte[32];
    otherKey[0] = 1;
    assertThat(new RetryTokens(otherKey, now::get).validateToken(token, client)).isEqualTo(-1);
    assertThat(tokens.validateToken(token.slice(0, 40), client)).isEqualTo(-1);
    assertThat(tokens.validateToken(Unpooled.EMPTY_BUFFER, client)).isEqualTo(-1);
    ByteBuf longer = Unpooled.wrappedBuffer(token.copy(), Unpooled.wrappedBuffer(new byte[13]));
    assertThat(tokens.validateToken(longer, client)).isEqualTo(-1);
    longer.release();
  }

  @Test
  void aDcidLongerThanQuicAllowsGetsNoRetry() {
    ByteBuf out = Unpooled.buffer(tokens.maxTokenLength());
    assertThat(tokens.writeToken(out, Unpooled.wrappedBuffer(new byte[21]), client)).isFalse();
    out.release();
  }
}
