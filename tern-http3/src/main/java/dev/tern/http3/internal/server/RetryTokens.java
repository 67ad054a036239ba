package dev.tern.http3.internal.server;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.quic.QuicTokenHandler;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * QUIC address validation with stateless Retry (RFC 9000 section 8.1.2): when {@link
 * AddressValidation} wants it, a client's first Initial gets a Retry packet carrying a token, and
 * only an Initial that returns a valid token from the same address opens a connection. A spoofed
 * source address never sees the token, so a flood of spoofed Initials costs the server one small
 * Retry each and no connection state.
 *
 * <p>A token is {@code version(1) | issued-at millis(8) | HMAC-SHA256(32) | original DCID(<=20)}.
 * The MAC covers the version, the time, the client's IP address and port and the original
 * destination connection id, under a random 256-bit key each server socket draws when it starts
 * (never stored: a restarted server refuses its predecessor's tokens, which costs a client one more
 * Retry). A token is valid for {@link #VALIDITY_MILLIS} (a Retry is answered within a round trip).
 *
 * <p>Thread-safe: the MAC is used under its own lock (the codec calls from the socket's event loop,
 * so the lock is uncontended).
 */
final class RetryTokens implements QuicTokenHandler {
  /** How long a Retry token is accepted after it was issued. */
  static final long VALIDITY_MILLIS = TimeUnit.SECONDS.toMillis(10);

  private static final byte VERSION = 1;
  private static final int MAC_LENGTH = 32;
  private static final int ODCID_OFFSET = 1 + 8 + MAC_LENGTH;

  /** The longest connection id QUIC v1 allows (RFC 9000 section 17.2). */
  private static final int MAX_CID_LENGTH = 20;

  private final Mac mac;
  private final LongSupplier clockMillis;
  private final BooleanSupplier retryNow;

  /**
   * A handler with a fresh random key and the system clock, asking for Retry when {@code retryNow}
   * says so (a first Initial is otherwise answered with the handshake).
   */
  static RetryTokens create(BooleanSupplier retryNow) {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return new RetryTokens(key, System::currentTimeMillis, retryNow);
  }

  /** A handler that always asks for Retry. */
  RetryTokens(byte[] key, LongSupplier clockMillis) {
    this(key, clockMillis, () -> true);
  }

  RetryTokens(byte[] key, LongSupplier clockMillis, BooleanSupplier retryNow) {
    this.retryNow = retryNow;
    try {
      mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
    this.clockMillis = clockMillis;
  }

  /**
   * Writes a token for {@code dcid} (the client's original destination id) and asks for Retry, when
   * Retry is wanted now.
   */
  @Override
  public boolean writeToken(ByteBuf out, ByteBuf dcid, InetSocketAddress address) {
    if (!retryNow.getAsBoolean() || dcid.readableBytes() > MAX_CID_LENGTH) {
      return false; // not a QUIC v1 Initial; quiche refuses it anyway
    }
    long now = clockMillis.getAsLong();
    byte[] odcid = new byte[dcid.readableBytes()];
    dcid.getBytes(dcid.readerIndex(), odcid);
    out.writeByte(VERSION);
    out.writeLong(now);
    out.writeBytes(sign(now, address, odcid));
    out.writeBytes(odcid);
    return true;
  }

  /**
   * The offset of the original destination connection id in {@code token}, or -1 when the token is
   * not one this handler wrote, was issued for another address, or has expired: quiche then drops
   * the Initial.
   */
  @Override
  public int validateToken(ByteBuf token, InetSocketAddress address) {
    int length = token.readableBytes();
    if (length < ODCID_OFFSET || length > ODCID_OFFSET + MAX_CID_LENGTH) {
      return -1;
    }
    int start = token.readerIndex();
    if (token.getByte(start) != VERSION) {
      return -1;
    }
    long issued = token.getLong(start + 1);
    long age = clockMillis.getAsLong() - issued;
    if (age < 0 || age > VALIDITY_MILLIS) {
      return -1;
    }
    byte[] macBytes = new byte[MAC_LENGTH];
    token.getBytes(start + 9, macBytes);
    byte[] odcid = new byte[length - ODCID_OFFSET];
    token.getBytes(start + ODCID_OFFSET, odcid);
    return MessageDigest.isEqual(macBytes, sign(issued, address, odcid)) ? ODCID_OFFSET : -1;
  }

  @Override
  public int maxTokenLength() {
    return ODCID_OFFSET + MAX_CID_LENGTH;
  }

  private byte[] sign(long issued, InetSocketAddress address, byte[] odcid) {
    byte[] ip = address.getAddress().getAddress();
    int port = address.getPort();
    synchronized (mac) {
      mac.update(VERSION);
      for (int shift = 56; shift >= 0; shift -= 8) {
        mac.update((byte) (issued >>> shift));
      }
      mac.update((byte) ip.length);
      mac.update(ip);
      mac.update((byte) (port >>> 8));
      mac.update((byte) port);
      mac.update(odcid);
      return mac.doFinal();
    }
  }
}
