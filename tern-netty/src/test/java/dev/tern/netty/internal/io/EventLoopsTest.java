package dev.tern.netty.internal.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.netty.testing.TransportGroups;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.uring.IoUringDomainSocketChannel;
import io.netty.channel.uring.IoUringServerDomainSocketChannel;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** How the transport kind is chosen, and how channel types follow the group and the address. */
class EventLoopsTest {
  @RegisterExtension static final TransportGroups loops = new TransportGroups();

  private static final SocketAddress TCP = new InetSocketAddress("127.0.0.1", 0);
  private static final SocketAddress UDS = new DomainSocketAddress("/tmp/unused.sock");

  @Test
  void withoutThePropertyTheKindIsEpollWhereItRunsElseNio() {
    assertThat(EventLoops.chooseKind(null))
        .isEqualTo(TransportKind.EPOLL.isAvailable() ? TransportKind.EPOLL : TransportKind.NIO);
    assertThat(EventLoops.chooseKind("")).isEqualTo(EventLoops.chooseKind(null));
  }

  @Test
  void thePropertyNamesTheKind() {
    assertThat(EventLoops.chooseKind("nio")).isEqualTo(TransportKind.NIO);
    TransportGroups.assumeAvailable(TransportKind.IO_URING);
    assertThat(EventLoops.chooseKind("io_uring")).isEqualTo(TransportKind.IO_URING);
    assertThat(EventLoops.chooseKind("IO_URING")).isEqualTo(TransportKind.IO_URING);
  }

  @Test
  void anUnknownKindIsAnErrorNamingTheProperty() {
    assertThatThrownBy(() -> EventLoops.chooseKind("kqueue"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("-Ddev.tern.netty.transport=kqueue")
        .hasMessageContaining("nio, epoll or io_uring");
  }

  @Test
  void theSharedGroupsAreOfTheSharedKind() {
    assertThat(TransportKind.of(EventLoops.sharedWorkerGroup())).isEqualTo(EventLoops.sharedKind());
    assertThat(TransportKind.of(EventLoops.sharedBossGroup())).isEqualTo(EventLoops.sharedKind());
  }

  @Test
  void eachKindGetsItsOwnSocketAndDomainSocketChannels() {
    EventLoopGroup nio = loops.group(TransportKind.NIO);
    assertThat(TransportKind.of(nio)).isEqualTo(TransportKind.NIO);
    assertClientChannel(EventLoops.forClient(nio, TCP), nio, NioSocketChannel.class);
    assertServerChannel(EventLoops.forServer(nio, nio, TCP), nio, NioServerSocketChannel.class);

    EventLoopGroup epoll = loops.group(TransportKind.EPOLL);
    assertThat(TransportKind.of(epoll)).isEqualTo(TransportKind.EPOLL);
    assertClientChannel(EventLoops.forClient(epoll, TCP), epoll, EpollSocketChannel.class);
    assertClientChannel(EventLoops.forClient(epoll, UDS), epoll, EpollDomainSocketChannel.class);
    assertServerChannel(
        EventLoops.forServer(epoll, epoll, TCP), epoll, EpollServerSocketChannel.class);
    assertServerChannel(
        EventLoops.forServer(epoll, epoll, UDS), epoll, EpollServerDomainSocketChannel.class);

    EventLoopGroup uring = loops.group(TransportKind.IO_URING);
    assertThat(TransportKind.of(uring)).isEqualTo(TransportKind.IO_URING);
    assertClientChannel(EventLoops.forClient(uring, TCP), uring, IoUringSocketChannel.class);
    assertClientChannel(EventLoops.forClient(uring, UDS), uring, IoUringDomainSocketChannel.class);
    assertServerChannel(
        EventLoops.forServer(uring, uring, TCP), uring, IoUringServerSocketChannel.class);
    assertServerChannel(
        EventLoops.forServer(uring, uring, UDS), uring, IoUringServerDomainSocketChannel.class);
  }

  @Test
  void aDomainSocketWantedOnNioRunsOnTheSharedNativeGroups() {
    EventLoopGroup nio = loops.group(TransportKind.NIO);
    TransportGroups.assumeAvailable(TransportKind.EPOLL);
    EventLoops.ClientLoops client = EventLoops.forClient(nio, UDS);
    assertThat(TransportKind.of(client.group()).supportsDomainSockets()).isTrue();
    assertThat(newChannel(client.channelFactory()).getClass().getSimpleName())
        .endsWith("DomainSocketChannel");
    EventLoops.ServerLoops server = EventLoops.forServer(nio, nio, UDS);
    assertThat(TransportKind.of(server.boss())).isEqualTo(TransportKind.of(server.workers()));
    assertThat(TransportKind.of(server.workers()).supportsDomainSockets()).isTrue();
    assertThat(newChannel(server.channelFactory()).getClass().getSimpleName())
        .endsWith("ServerDomainSocketChannel");
  }

  @Test
  void theJdksDomainSocketAddressBecomesNettys() {
    Path path = Path.of("/tmp/some.sock");
    SocketAddress converted = DomainSockets.toNetty(UnixDomainSocketAddress.of(path));
    assertThat(converted).isEqualTo(new DomainSocketAddress(path.toString()));
    assertThat(DomainSockets.isDomainSocket(UnixDomainSocketAddress.of(path))).isTrue();
    assertThat(DomainSockets.isDomainSocket(converted)).isTrue();
    assertThat(DomainSockets.isDomainSocket(TCP)).isFalse();
    assertThat(DomainSockets.toNetty(TCP)).isSameAs(TCP);
  }

  private static void assertClientChannel(
      EventLoops.ClientLoops loops, EventLoopGroup group, Class<?> type) {
    assertThat(loops.group()).isSameAs(group);
    assertThat(newChannel(loops.channelFactory())).isInstanceOf(type);
  }

  private static void assertServerChannel(
      EventLoops.ServerLoops loops, EventLoopGroup group, Class<?> type) {
    assertThat(loops.boss()).isSameAs(group);
    assertThat(loops.workers()).isSameAs(group);
    assertThat(newChannel(loops.channelFactory())).isInstanceOf(type);
  }

  /** A channel of the factory's type, closed at once (only its class is of interest). */
  private static Channel newChannel(ChannelFactory<? extends Channel> factory) {
    Channel channel = factory.newChannel();
    channel.unsafe().closeForcibly();
    return channel;
  }
}
