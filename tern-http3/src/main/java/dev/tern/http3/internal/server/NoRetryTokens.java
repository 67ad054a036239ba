package dev.tern.http3.internal.server;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.quic.QuicTokenHandler;
import java.net.InetSocketAddress;

/**
 * QUIC address validation without Retry packets: every Initial is served at once, which saves a
 * round trip per connection. QUIC's amplification limit (RFC 9000 section 8.1: at most three times
 * what an unvalidated address sent) still bounds what a spoofed address can be sent; stateless
 * Retry tokens against floods of spoofed Initials are not done yet (docs/http3.md). Stateless;
 * thread-safe.
 */
final class NoRetryTokens implements QuicTokenHandler {
  static final NoRetryTokens INSTANCE = new NoRetryTokens();

  private NoRetryTokens() {}

  @Override
  public boolean writeToken(ByteBuf out, ByteBuf dcid, InetSocketAddress address) {
    return false;
  }

  @Override
  public int validateToken(ByteBuf token, InetSocketAddress address) {
    return 0;
  }

  @Override
  public int maxTokenLength() {
    return 0;
  }
}
