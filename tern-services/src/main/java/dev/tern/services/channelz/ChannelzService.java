package dev.tern.services.channelz;

import dev.tern.Status;
import dev.tern.channelz.ChannelStats;
import dev.tern.channelz.Channelz;
import dev.tern.channelz.Instrumented;
import dev.tern.channelz.Ref;
import dev.tern.channelz.ServerStats;
import dev.tern.channelz.SocketStats;
import dev.tern.services.channelz.v1.ChannelzTern;
import dev.tern.services.channelz.v1.GetChannelRequest;
import dev.tern.services.channelz.v1.GetChannelResponse;
import dev.tern.services.channelz.v1.GetServerRequest;
import dev.tern.services.channelz.v1.GetServerResponse;
import dev.tern.services.channelz.v1.GetServerSocketsRequest;
import dev.tern.services.channelz.v1.GetServerSocketsResponse;
import dev.tern.services.channelz.v1.GetServersRequest;
import dev.tern.services.channelz.v1.GetServersResponse;
import dev.tern.services.channelz.v1.GetSocketRequest;
import dev.tern.services.channelz.v1.GetSocketResponse;
import dev.tern.services.channelz.v1.GetSubchannelRequest;
import dev.tern.services.channelz.v1.GetSubchannelResponse;
import dev.tern.services.channelz.v1.GetTopChannelsRequest;
import dev.tern.services.channelz.v1.GetTopChannelsResponse;
import dev.tern.stub.StreamObserver;
import java.util.List;
import java.util.Objects;

/**
 * The {@code grpc.channelz.v1.Channelz} service: answers from the process's {@link Channelz}
 * registry, so it describes every Tern channel and server of the process, whichever server it is
 * added to.
 *
 * <p>Listings are paged: a page starts at the requested id (inclusive; a negative one means from
 * the start), holds at most {@code max_results} entries (0 or less means {@value #MAX_PAGE_SIZE},
 * and larger requests are cut to it), and says {@code end} when nothing follows. An id that names
 * nothing (any more) is answered NOT_FOUND, naming the id.
 *
 * <p>Thread-safe: stateless; each request takes fresh snapshots.
 */
public final class ChannelzService extends ChannelzTern.ChannelzImplBase {
  /** The largest page a listing returns, and the size when the request names none. */
  public static final int MAX_PAGE_SIZE = 100;

  private final Channelz registry;

  private ChannelzService(Channelz registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /** The service for this process's registry ({@link Channelz#global()}). */
  public static ChannelzService newInstance() {
    return new ChannelzService(Channelz.global());
  }

  @Override
  public void getTopChannels(
      GetTopChannelsRequest request, StreamObserver<GetTopChannelsResponse> responseObserver) {
    Channelz.Page<Instrumented<ChannelStats>> page =
        registry.rootChannels(
            startId(request.getStartChannelId()), pageSize(request.getMaxResults()));
    GetTopChannelsResponse.Builder response = GetTopChannelsResponse.newBuilder();
    for (Instrumented<ChannelStats> channel : page.items()) {
      response.addChannel(ChannelzMessages.channel(channel));
    }
    reply(responseObserver, response.setEnd(page.end()).build());
  }

  @Override
  public void getServers(
      GetServersRequest request, StreamObserver<GetServersResponse> responseObserver) {
    Channelz.Page<Instrumented<ServerStats>> page =
        registry.servers(startId(request.getStartServerId()), pageSize(request.getMaxResults()));
    GetServersResponse.Builder response = GetServersResponse.newBuilder();
    for (Instrumented<ServerStats> server : page.items()) {
      response.addServer(ChannelzMessages.server(server));
    }
    reply(responseObserver, response.setEnd(page.end()).build());
  }

  @Override
  public void getServer(
      GetServerRequest request, StreamObserver<GetServerResponse> responseObserver) {
    Instrumented<ServerStats> server = registry.server(request.getServerId());
    if (server == null) {
      notFound(responseObserver, "server", request.getServerId());
      return;
    }
    reply(
        responseObserver,
        GetServerResponse.newBuilder().setServer(ChannelzMessages.server(server)).build());
  }

  @Override
  public void getServerSockets(
      GetServerSocketsRequest request, StreamObserver<GetServerSocketsResponse> responseObserver) {
    Instrumented<ServerStats> server = registry.server(request.getServerId());
    if (server == null) {
      notFound(responseObserver, "server", request.getServerId());
      return;
    }
    long from = startId(request.getStartSocketId());
    int max = pageSize(request.getMaxResults());
    List<Ref> sockets = server.channelzStats().sockets(); // sorted by id
    GetServerSocketsResponse.Builder response = GetServerSocketsResponse.newBuilder();
    boolean end = true;
    for (Ref socket : sockets) {
      if (socket.id() < from) {
        continue;
      }
      if (response.getSocketRefCount() == max) {
        end = false;
        break;
      }
      response.addSocketRef(ChannelzMessages.socketRef(socket));
    }
    reply(responseObserver, response.setEnd(end).build());
  }

  @Override
  public void getChannel(
      GetChannelRequest request, StreamObserver<GetChannelResponse> responseObserver) {
    Instrumented<ChannelStats> channel = registry.rootChannel(request.getChannelId());
    if (channel == null) {
      notFound(responseObserver, "channel", request.getChannelId());
      return;
    }
    reply(
        responseObserver,
        GetChannelResponse.newBuilder().setChannel(ChannelzMessages.channel(channel)).build());
  }

  @Override
  public void getSubchannel(
      GetSubchannelRequest request, StreamObserver<GetSubchannelResponse> responseObserver) {
    Instrumented<ChannelStats> subchannel = registry.subchannel(request.getSubchannelId());
    if (subchannel == null) {
      notFound(responseObserver, "subchannel", request.getSubchannelId());
      return;
    }
    reply(
        responseObserver,
        GetSubchannelResponse.newBuilder()
            .setSubchannel(ChannelzMessages.subchannel(subchannel))
            .build());
  }

  @Override
  public void getSocket(
      GetSocketRequest request, StreamObserver<GetSocketResponse> responseObserver) {
    Instrumented<SocketStats> socket = registry.socket(request.getSocketId());
    if (socket == null) {
      notFound(responseObserver, "socket", request.getSocketId());
      return;
    }
    reply(
        responseObserver,
        GetSocketResponse.newBuilder()
            .setSocket(ChannelzMessages.socket(socket, request.getSummary()))
            .build());
  }

  /** Where a listing starts: ids are positive, so anything below 1 means from the first. */
  private static long startId(long requested) {
    return Math.max(requested, 0);
  }

  /** The page size for {@code max_results}: 0 or less means the default; capped. */
  private static int pageSize(long requested) {
    if (requested <= 0 || requested > MAX_PAGE_SIZE) {
      return MAX_PAGE_SIZE;
    }
    return (int) requested;
  }

  private static <T> void reply(StreamObserver<T> observer, T response) {
    observer.onNext(response);
    observer.onCompleted();
  }

  private static void notFound(StreamObserver<?> observer, String kind, long id) {
    observer.onError(
        Status.NOT_FOUND
            .withDescription("No " + kind + " with channelz id " + id)
            .asRuntimeException());
  }
}
