package dev.tern.http3.internal.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicChannel;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * When a UDP socket asks new clients to prove their address with a stateless Retry: under load (the
 * default), once {@link #UNDER_LOAD_HANDSHAKES} connections are in the middle of their handshake on
 * the socket (a flood of Initials from spoofed addresses leaves that many behind, each closed at
 * the handshake timeout), so that an ordinary client keeps QUIC's one-round-trip handshake; or
 * always, with the system property {@value #PROPERTY}{@code =always}, for every new client at the
 * cost of one more round trip.
 *
 * <p>Thread-safe: the count is atomic; {@link #handshaking} is called on the socket's event loop.
 */
final class AddressValidation implements BooleanSupplier {
  /** {@code always}, or {@code under-load} (the default). */
  static final String PROPERTY = "dev.tern.http3.addressValidation";

  /** Handshakes in progress at which new clients are sent a Retry first, by default. */
  static final int UNDER_LOAD_HANDSHAKES = 16;

  private final int threshold;
  private final AtomicInteger handshaking = new AtomicInteger();

  private AddressValidation(int threshold) {
    this.threshold = threshold;
  }

  /**
   * The policy {@value #PROPERTY} names.
   *
   * @throws IllegalStateException naming the property if its value is neither
   */
  static AddressValidation fromProperty() {
    String value = System.getProperty(PROPERTY, "under-load").trim().toLowerCase(Locale.ROOT);
    switch (value) {
      case "always":
        return new AddressValidation(0);
      case "under-load":
        return new AddressValidation(UNDER_LOAD_HANDSHAKES);
      default:
        throw new IllegalStateException(
            PROPERTY + " must be always or under-load, was " + System.getProperty(PROPERTY));
    }
  }

  /** Whether a new client's first Initial is answered with a Retry now. */
  @Override
  public boolean getAsBoolean() {
    return handshaking.get() >= threshold;
  }

  /** Counts {@code connection} as handshaking until it becomes active or closes. */
  void handshaking(QuicChannel connection) {
    handshaking.incrementAndGet();
    AtomicBoolean done = new AtomicBoolean();
    Runnable finished =
        () -> {
          if (done.compareAndSet(false, true)) {
            handshaking.decrementAndGet();
          }
        };
    connection.closeFuture().addListener(f -> finished.run());
    connection
        .pipeline()
        .addFirst(
            new ChannelInboundHandlerAdapter() {
              @Override
              public void channelActive(ChannelHandlerContext ctx) {
                finished.run();
                ctx.pipeline().remove(this);
                ctx.fireChannelActive();
              }
            });
  }
}
