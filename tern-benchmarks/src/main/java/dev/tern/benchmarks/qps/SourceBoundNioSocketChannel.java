package dev.tern.benchmarks.qps;

import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.SocketAddress;

/**
 * A NIO socket channel that binds its local end to the next of {@link ConnectionsClient}'s source
 * addresses before it connects, for Tern's channels. Tern's {@code NettyChannelBuilder} has no
 * option for the local address of its connections (grpc-java's has {@code localSocketPicker}, which
 * {@link GrpcJavaConnectionOpener} uses); its {@code channelType} option takes any socket channel
 * class with a public no-argument constructor, which is how this one comes in. Because a class is
 * all the builder takes, the addresses are set here, once, by {@link #use}.
 *
 * <p>Thread-safe as {@link NioSocketChannel} is; the addresses are read through a volatile field.
 */
public final class SourceBoundNioSocketChannel extends NioSocketChannel {
  private static volatile SourceAddresses sources;

  /** Created by Netty, through the builder's channel type. */
  public SourceBoundNioSocketChannel() {}

  /** The addresses that channels created from now on bind to, in turn. */
  static void use(SourceAddresses addresses) {
    sources = addresses;
  }

  @Override
  protected boolean doConnect(SocketAddress remoteAddress, SocketAddress localAddress)
      throws Exception {
    SourceAddresses addresses = sources;
    if (localAddress == null && addresses != null) {
      localAddress = addresses.next();
    }
    return super.doConnect(remoteAddress, localAddress);
  }
}
