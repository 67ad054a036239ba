package dev.tern.http3.internal.server;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A UDP relay between one client and a server on 127.0.0.1 that records every datagram both ways:
 * the client sends to {@link #address}, the server sees the relay's other socket. It forwards only
 * the client's first {@code forwardFromClient} datagrams (the rest are recorded and dropped), so a
 * test can keep a packet the server never saw and send it later from another address.
 *
 * <p>Thread-safe: two threads of its own forward; {@link #close} stops them.
 */
final class UdpRelay implements AutoCloseable {
  private final DatagramSocket clientSide;
  private final DatagramSocket serverSide;
  private final InetSocketAddress server;
  private final int forwardFromClient;
  private final LinkedBlockingQueue<byte[]> fromClient = new LinkedBlockingQueue<>();
  private final LinkedBlockingQueue<byte[]> fromServer = new LinkedBlockingQueue<>();
  private final Thread up;
  private final Thread down;
  private volatile SocketAddress client;

  UdpRelay(InetSocketAddress server, int forwardFromClient) throws IOException {
    this.server = server;
    this.forwardFromClient = forwardFromClient;
    clientSide = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
    serverSide = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
    up = new Thread(this::forwardUp, "udp-relay-up");
    down = new Thread(this::forwardDown, "udp-relay-down");
    up.start();
    down.start();
  }

  /** Where the client sends. */
  InetSocketAddress address() {
    return (InetSocketAddress) clientSide.getLocalSocketAddress();
  }

  /** The relay's socket facing the server: the address the server sees. */
  DatagramSocket serverSide() {
    return serverSide;
  }

  /** The client's next datagram, in order (forwarded or not). */
  byte[] nextFromClient() throws InterruptedException {
    return poll(fromClient);
  }

  /** The server's next datagram, in order. */
  byte[] nextFromServer() throws InterruptedException {
    return poll(fromServer);
  }

  private static byte[] poll(LinkedBlockingQueue<byte[]> queue) throws InterruptedException {
    byte[] datagram = queue.poll(10, TimeUnit.SECONDS);
    if (datagram == null) {
      throw new AssertionError("no datagram within 10 s");
    }
    return datagram;
  }

  private void forwardUp() {
    int count = 0;
    byte[] buffer = new byte[65_536];
    try {
      while (true) {
        DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
        clientSide.receive(packet);
        client = packet.getSocketAddress();
        fromClient.add(Arrays.copyOf(packet.getData(), packet.getLength()));
        if (count++ < forwardFromClient) {
          serverSide.send(new DatagramPacket(packet.getData(), packet.getLength(), server));
        }
      }
    } catch (IOException closed) {
      // close() closed the socket: done.
    }
  }

  private void forwardDown() {
    byte[] buffer = new byte[65_536];
    try {
      while (true) {
        DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
        serverSide.receive(packet);
        fromServer.add(Arrays.copyOf(packet.getData(), packet.getLength()));
        SocketAddress to = client;
        if (to != null) {
          clientSide.send(new DatagramPacket(packet.getData(), packet.getLength(), to));
        }
      }
    } catch (IOException closed) {
      // close() closed the socket: done.
    }
  }

  @Override
  public void close() {
    clientSide.close();
    serverSide.close();
    try {
      up.join();
      down.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** QUIC v1's long-header packet types (RFC 9000 section 17.2), visible without decrypting. */
  static final int INITIAL = 0;

  static final int RETRY = 3;

  /** The long-header packet type of {@code datagram}'s first packet, or -1 for a short header. */
  static int packetType(byte[] datagram) {
    int first = datagram[0] & 0xff;
    return (first & 0x80) == 0 ? -1 : (first & 0x30) >> 4;
  }
}
