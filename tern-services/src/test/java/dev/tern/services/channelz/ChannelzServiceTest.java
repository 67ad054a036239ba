package dev.tern.services.channelz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.ConnectivityState;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.channelz.Channelz;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.services.AdminServices;
import dev.tern.services.channelz.v1.Address;
import dev.tern.services.channelz.v1.Channel;
import dev.tern.services.channelz.v1.ChannelConnectivityState;
import dev.tern.services.channelz.v1.ChannelTraceEvent;
import dev.tern.services.channelz.v1.ChannelzTern;
import dev.tern.services.channelz.v1.GetChannelRequest;
import dev.tern.services.channelz.v1.GetServerRequest;
import dev.tern.services.channelz.v1.GetServerSocketsRequest;
import dev.tern.services.channelz.v1.GetServerSocketsResponse;
import dev.tern.services.channelz.v1.GetServersRequest;
import dev.tern.services.channelz.v1.GetSocketRequest;
import dev.tern.services.channelz.v1.GetSubchannelRequest;
import dev.tern.services.channelz.v1.GetTopChannelsRequest;
import dev.tern.services.channelz.v1.GetTopChannelsResponse;
import dev.tern.services.channelz.v1.Socket;
import dev.tern.services.channelz.v1.Subchannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The channelz service, asked over a real connection (Tern's own stub, on an admin server made by
 * {@link AdminServices}) about a real load: 50 unary calls, 3 failing, over a Tern Netty channel to
 * a Tern Netty server.
 */
class ChannelzServiceTest {
  private TernLoad load;
  private Server admin;
  private ManagedChannel adminChannel;
  private ChannelzTern.ChannelzBlockingStub channelz;

  @BeforeEach
  void setUp() throws Exception {
    load = new TernLoad();
    admin =
        AdminServices.addTo(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)))
            .build()
            .start();
    adminChannel =
        NettyChannelBuilder.forAddress("127.0.0.1", admin.getPort()).usePlaintext().build();
    channelz = ChannelzTern.newBlockingStub(adminChannel);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (load != null) {
      load.close();
    }
    adminChannel.shutdownNow();
    admin.shutdownNow();
    assertThat(adminChannel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(admin.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  /** The load's channel, found by its target among the top channels. */
  static Channel loadChannel(ChannelzTern.ChannelzBlockingStub channelz, int port) {
    GetTopChannelsResponse top =
        channelz.getTopChannels(GetTopChannelsRequest.newBuilder().build());
    return top.getChannelList().stream()
        .filter(c -> c.getData().getTarget().endsWith(":" + port))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no channel to port " + port + " in " + top));
  }

  /** The load's server, found by the port of its listening socket. */
  static dev.tern.services.channelz.v1.Server loadServer(
      ChannelzTern.ChannelzBlockingStub channelz, int port) {
    for (dev.tern.services.channelz.v1.Server server :
        channelz.getServers(GetServersRequest.getDefaultInstance()).getServerList()) {
      for (var listen : server.getListenSocketList()) {
        Socket socket =
            channelz
                .getSocket(GetSocketRequest.newBuilder().setSocketId(listen.getSocketId()).build())
                .getSocket();
        if (socket.getLocal().getTcpipAddress().getPort() == port) {
          return server;
        }
      }
    }
    throw new AssertionError("no server listening on port " + port);
  }

  static int port(Address address) {
    return address.getTcpipAddress().getPort();
  }

  static InetAddress ip(Address address) throws Exception {
    return InetAddress.getByAddress(address.getTcpipAddress().getIpAddress().toByteArray());
  }

  @Test
  void describesTheLoadOnChannelSubchannelServerAndSockets() throws Exception {
    load.run(50, 3);

    Channel channel = loadChannel(channelz, load.port);
    assertThat(channel.getData().getCallsStarted()).isEqualTo(50);
    assertThat(channel.getData().getCallsSucceeded()).isEqualTo(47);
    assertThat(channel.getData().getCallsFailed()).isEqualTo(3);
    assertThat(channel.getData().getLastCallStartedTimestamp().getSeconds()).isPositive();
    assertThat(channel.getData().getState().getState())
        .isEqualTo(ChannelConnectivityState.State.READY);
    assertThat(channel.getData().getTrace().getEventsList())
        .anyMatch(e -> e.getDescription().equals("Channel state changed to READY"));
    assertThat(channel.getSubchannelRefCount()).isEqualTo(1);

    Subchannel subchannel =
        channelz
            .getSubchannel(
                GetSubchannelRequest.newBuilder()
                    .setSubchannelId(channel.getSubchannelRef(0).getSubchannelId())
                    .build())
            .getSubchannel();
    assertThat(subchannel.getData().getCallsStarted()).isEqualTo(50);
    assertThat(subchannel.getData().getCallsSucceeded()).isEqualTo(47);
    assertThat(subchannel.getData().getCallsFailed()).isEqualTo(3);
    assertThat(subchannel.getData().getState().getState())
        .isEqualTo(ChannelConnectivityState.State.READY);
    assertThat(subchannel.getSocketRefCount()).isEqualTo(1);

    Socket client = socket(subchannel.getSocketRef(0).getSocketId());
    assertThat(client.getData().getStreamsStarted()).isEqualTo(50);
    assertThat(client.getData().getStreamsSucceeded()).isEqualTo(47);
    assertThat(client.getData().getStreamsFailed()).isEqualTo(3);
    assertThat(client.getData().getMessagesSent()).isEqualTo(50);
    assertThat(client.getData().getMessagesReceived()).isEqualTo(47);
    assertThat(client.getData().hasLastLocalStreamCreatedTimestamp()).isTrue();
    assertThat(client.getData().hasLastRemoteStreamCreatedTimestamp()).isFalse();
    assertThat(client.getData().hasLastMessageReceivedTimestamp()).isTrue();
    assertThat(port(client.getRemote())).isEqualTo(load.port);
    assertThat(ip(client.getLocal()).isLoopbackAddress()).isTrue();
    assertThat(client.hasSecurity()).isFalse();
    // The connection windows: 1 MiB each way by default, less what is in flight (nothing now).
    assertThat(client.getData().getLocalFlowControlWindow().getValue()).isPositive();
    assertThat(client.getData().getRemoteFlowControlWindow().getValue()).isPositive();
    assertThat(client.getData().getOptionList())
        .anyMatch(o -> o.getName().equals("TCP_NODELAY") && o.getValue().equals("true"));

    dev.tern.services.channelz.v1.Server server = loadServer(channelz, load.port);
    assertThat(server.getData().getCallsStarted()).isEqualTo(50);
    assertThat(server.getData().getCallsSucceeded()).isEqualTo(47);
    assertThat(server.getData().getCallsFailed()).isEqualTo(3);
    assertThat(server.getListenSocketCount()).isEqualTo(1);

    GetServerSocketsResponse serverSockets =
        channelz.getServerSockets(
            GetServerSocketsRequest.newBuilder()
                .setServerId(server.getRef().getServerId())
                .build());
    assertThat(serverSockets.getEnd()).isTrue();
    assertThat(serverSockets.getSocketRefCount()).isEqualTo(1);
    Socket accepted = socket(serverSockets.getSocketRef(0).getSocketId());
    assertThat(accepted.getData().getStreamsStarted()).isEqualTo(50);
    assertThat(accepted.getData().getStreamsSucceeded()).isEqualTo(47);
    assertThat(accepted.getData().getStreamsFailed()).isEqualTo(3);
    assertThat(accepted.getData().getMessagesReceived()).isEqualTo(50);
    assertThat(accepted.getData().getMessagesSent()).isEqualTo(47);
    assertThat(accepted.getData().hasLastRemoteStreamCreatedTimestamp()).isTrue();
    assertThat(port(accepted.getLocal())).isEqualTo(load.port);
    assertThat(port(accepted.getRemote())).isEqualTo(port(client.getLocal()));

    Socket summary =
        channelz
            .getSocket(
                GetSocketRequest.newBuilder()
                    .setSocketId(accepted.getRef().getSocketId())
                    .setSummary(true)
                    .build())
            .getSocket();
    assertThat(summary.getData().getStreamsStarted()).isEqualTo(50);
    assertThat(summary.hasLocal()).isFalse();
  }

  @Test
  void aFailedConnectionShowsInTheTraceAsAWarning() throws Exception {
    // A port nothing listens on any more.
    Server gone =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).build().start();
    int port = gone.getPort();
    gone.shutdownNow();
    assertThat(gone.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    ManagedChannel nowhere =
        NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    // The call fails as the picker reports the failure, just before the state (and its trace)
    // moves: watch for it from the start.
    CompletableFuture<Void> failed =
        TernLoad.whenState(nowhere, ConnectivityState.TRANSIENT_FAILURE);
    try {
      assertThatThrownBy(
              () ->
                  dev.tern.stub.ClientCalls.blockingUnaryCall(
                      nowhere, TernLoad.CALL, dev.tern.CallOptions.DEFAULT, "hello?"))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      failed.get(10, TimeUnit.SECONDS);

      Channel channel = loadChannel(channelz, port);
      assertThat(channel.getData().getCallsStarted()).isEqualTo(1);
      assertThat(channel.getData().getCallsFailed()).isEqualTo(1);
      assertThat(channel.getData().getTrace().getEventsList())
          .anyMatch(
              e ->
                  e.getDescription().equals("Channel state changed to TRANSIENT_FAILURE")
                      && e.getSeverity() == ChannelTraceEvent.Severity.CT_WARNING);
      Subchannel subchannel =
          channelz
              .getSubchannel(
                  GetSubchannelRequest.newBuilder()
                      .setSubchannelId(channel.getSubchannelRef(0).getSubchannelId())
                      .build())
              .getSubchannel();
      assertThat(subchannel.getData().getTrace().getEventsList())
          .anyMatch(
              e ->
                  e.getDescription()
                          .startsWith(
                              "Subchannel state changed to TRANSIENT_FAILURE (UNAVAILABLE: ")
                      && e.getDescription().contains(String.valueOf(port))
                      && e.getSeverity() == ChannelTraceEvent.Severity.CT_WARNING);
    } finally {
      nowhere.shutdownNow();
      assertThat(nowhere.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void idsThatNameNothingAreNotFoundNamingTheId() {
    long unknown = 987_654_321_012L;
    assertNotFound(
        () -> channelz.getChannel(GetChannelRequest.newBuilder().setChannelId(unknown).build()),
        "channel",
        unknown);
    assertNotFound(
        () -> channelz.getSubchannel(GetSubchannelRequest.newBuilder().setSubchannelId(-1).build()),
        "subchannel",
        -1);
    assertNotFound(
        () -> channelz.getSocket(GetSocketRequest.newBuilder().setSocketId(Long.MAX_VALUE).build()),
        "socket",
        Long.MAX_VALUE);
    assertNotFound(
        () -> channelz.getServer(GetServerRequest.newBuilder().setServerId(0).build()),
        "server",
        0);
    assertNotFound(
        () ->
            channelz.getServerSockets(
                GetServerSocketsRequest.newBuilder().setServerId(unknown).build()),
        "server",
        unknown);
    // A subchannel's id is not a channel's.
    Channel channel = warmLoadChannel();
    long subchannelId = channel.getSubchannelRef(0).getSubchannelId();
    assertNotFound(
        () ->
            channelz.getChannel(GetChannelRequest.newBuilder().setChannelId(subchannelId).build()),
        "channel",
        subchannelId);
  }

  @Test
  void pagesStartAtTheGivenIdAndAreCapped() {
    Channel ours = warmLoadChannel();
    long id = ours.getRef().getChannelId();

    GetTopChannelsResponse fromNegative =
        channelz.getTopChannels(
            GetTopChannelsRequest.newBuilder().setStartChannelId(-5).setMaxResults(0).build());
    assertThat(fromNegative.getChannelList())
        .extracting(c -> c.getRef().getChannelId())
        .contains(id);

    GetTopChannelsResponse one =
        channelz.getTopChannels(
            GetTopChannelsRequest.newBuilder().setStartChannelId(id).setMaxResults(1).build());
    assertThat(one.getChannelList()).extracting(c -> c.getRef().getChannelId()).containsExactly(id);

    GetTopChannelsResponse huge =
        channelz.getTopChannels(
            GetTopChannelsRequest.newBuilder()
                .setStartChannelId(id)
                .setMaxResults(Long.MAX_VALUE)
                .build());
    assertThat(huge.getChannelCount()).isBetween(1, ChannelzService.MAX_PAGE_SIZE);
    assertThat(huge.getChannel(0).getRef().getChannelId()).isEqualTo(id);

    GetTopChannelsResponse beyond =
        channelz.getTopChannels(
            GetTopChannelsRequest.newBuilder().setStartChannelId(Long.MAX_VALUE).build());
    assertThat(beyond.getChannelCount()).isZero();
    assertThat(beyond.getEnd()).isTrue();

    long serverId = loadServer(channelz, load.port).getRef().getServerId();
    GetServerSocketsResponse noSockets =
        channelz.getServerSockets(
            GetServerSocketsRequest.newBuilder()
                .setServerId(serverId)
                .setStartSocketId(Long.MAX_VALUE)
                .setMaxResults(-3)
                .build());
    assertThat(noSockets.getSocketRefCount()).isZero();
    assertThat(noSockets.getEnd()).isTrue();
  }

  @Test
  void everythingLeavesTheRegistryOnceShutDown() throws Exception {
    load.run(5, 1);
    Channel channel = loadChannel(channelz, load.port);
    long channelId = channel.getRef().getChannelId();
    long subchannelId = channel.getSubchannelRef(0).getSubchannelId();
    Subchannel subchannel =
        channelz
            .getSubchannel(GetSubchannelRequest.newBuilder().setSubchannelId(subchannelId).build())
            .getSubchannel();
    long clientSocketId = subchannel.getSocketRef(0).getSocketId();
    dev.tern.services.channelz.v1.Server server = loadServer(channelz, load.port);
    long serverId = server.getRef().getServerId();
    long listenSocketId = server.getListenSocket(0).getSocketId();
    long acceptedSocketId =
        channelz
            .getServerSockets(GetServerSocketsRequest.newBuilder().setServerId(serverId).build())
            .getSocketRef(0)
            .getSocketId();

    load.close();
    load = null;

    for (long id :
        new long[] {
          channelId, subchannelId, clientSocketId, serverId, listenSocketId, acceptedSocketId
        }) {
      assertThat(Channelz.global().contains(id)).as("id %s still registered", id).isFalse();
    }
    assertNotFound(
        () -> channelz.getChannel(GetChannelRequest.newBuilder().setChannelId(channelId).build()),
        "channel",
        channelId);
    assertNotFound(
        () -> channelz.getSocket(GetSocketRequest.newBuilder().setSocketId(clientSocketId).build()),
        "socket",
        clientSocketId);
    assertNotFound(
        () -> channelz.getServer(GetServerRequest.newBuilder().setServerId(serverId).build()),
        "server",
        serverId);
  }

  private Channel warmLoadChannel() {
    try {
      load.run(1, 0);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    return loadChannel(channelz, load.port);
  }

  private Socket socket(long id) {
    return channelz.getSocket(GetSocketRequest.newBuilder().setSocketId(id).build()).getSocket();
  }

  private static void assertNotFound(Runnable call, String kind, long id) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
              assertThat(e.getStatus().getDescription())
                  .isEqualTo("No " + kind + " with channelz id " + id);
            });
  }
}
