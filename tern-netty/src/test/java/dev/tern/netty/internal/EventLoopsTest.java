package dev.tern.netty.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.netty.testing.TransportGroups;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** How the transport kind is chosen, and how channel types follow the group. */
class EventLoopsTest {
  @RegisterExtension static final TransportGroups loops = new TransportGroups();

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
  void eachKindGetsItsOwnSocketChannels() {
    EventLoopGroup nio = loops.group(TransportKind.NIO);
    assertThat(TransportKind.of(nio)).isEqualTo(TransportKind.NIO);
    assertChannels(nio, NioSocketChannel.class, NioServerSocketChannel.class);

    EventLoopGroup epoll = loops.group(TransportKind.EPOLL);
    assertThat(TransportKind.of(epoll)).isEqualTo(TransportKind.EPOLL);
    assertChannels(epoll, EpollSocketChannel.class, EpollServerSocketChannel.class);

    EventLoopGroup uring = loops.group(TransportKind.IO_URING);
    assertThat(TransportKind.of(uring)).isEqualTo(TransportKind.IO_URING);
    assertChannels(uring, IoUringSocketChannel.class, IoUringServerSocketChannel.class);
  }

  private static void assertChannels(EventLoopGroup group, Class<?> client, Class<?> server) {
    assertThat(newChannel(EventLoops.clientChannelFactory(group))).isInstanceOf(client);
    assertThat(newChannel(EventLoops.serverChannelFactory(group))).isInstanceOf(server);
  }

  /** A channel of the factory's type, closed at once (only its class is of interest). */
  private static Channel newChannel(ChannelFactory<? extends Channel> factory) {
    Channel channel = factory.newChannel();
    channel.unsafe().closeForcibly();
    return channel;
  }
}
