package dev.tern.services.channelz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.services.AdminServices;
import dev.tern.services.channelz.v1.Channel;
import dev.tern.services.channelz.v1.ChannelzTern;
import dev.tern.services.channelz.v1.GetServerSocketsRequest;
import dev.tern.services.channelz.v1.GetSocketRequest;
import dev.tern.services.channelz.v1.GetSubchannelRequest;
import dev.tern.services.channelz.v1.Socket;
import dev.tern.services.channelz.v1.SocketData;
import dev.tern.services.channelz.v1.Subchannel;
import io.grpc.ForwardingServerCallListener;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.channelz.v1.ChannelzGrpc;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The same load (50 unary calls, 3 failing) through grpc-java (its Netty channel and server, its
 * channelz service) and through Tern: both channelz services report the same numbers for the
 * channel, the subchannel, the server and both sockets.
 */
class ChannelzVersusGrpcJavaTest {
  @Test
  void sameNumbersAsGrpcJavaForTheSameLoad() throws Exception {
    Map<String, Long> tern = ternNumbers();
    Map<String, Long> grpcJava = grpcJavaNumbers();
    assertThat(tern).isEqualTo(grpcJava);
  }

  /** The numbers to compare, read from the channelz messages (grpc-java's parsed as Tern's). */
  private static Map<String, Long> numbers(
      Channel channel,
      Subchannel subchannel,
      dev.tern.services.channelz.v1.Server server,
      Socket client,
      Socket accepted) {
    Map<String, Long> out = new LinkedHashMap<>();
    out.put("channel.callsStarted", channel.getData().getCallsStarted());
    out.put("channel.callsSucceeded", channel.getData().getCallsSucceeded());
    out.put("channel.callsFailed", channel.getData().getCallsFailed());
    out.put("subchannel.callsStarted", subchannel.getData().getCallsStarted());
    out.put("subchannel.callsSucceeded", subchannel.getData().getCallsSucceeded());
    out.put("subchannel.callsFailed", subchannel.getData().getCallsFailed());
    out.put("server.callsStarted", server.getData().getCallsStarted());
    out.put("server.callsSucceeded", server.getData().getCallsSucceeded());
    out.put("server.callsFailed", server.getData().getCallsFailed());
    socket(out, "clientSocket", client.getData());
    socket(out, "serverSocket", accepted.getData());
    return out;
  }

  private static void socket(Map<String, Long> out, String name, SocketData data) {
    out.put(name + ".streamsStarted", data.getStreamsStarted());
    out.put(name + ".streamsSucceeded", data.getStreamsSucceeded());
    out.put(name + ".streamsFailed", data.getStreamsFailed());
    out.put(name + ".messagesSent", data.getMessagesSent());
    out.put(name + ".messagesReceived", data.getMessagesReceived());
  }

  private static Map<String, Long> ternNumbers() throws Exception {
    TernLoad load = new TernLoad();
    Server admin =
        AdminServices.addTo(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)))
            .build()
            .start();
    ManagedChannel adminChannel =
        NettyChannelBuilder.forAddress("127.0.0.1", admin.getPort()).usePlaintext().build();
    try {
      load.run(50, 3);
      ChannelzTern.ChannelzBlockingStub channelz = ChannelzTern.newBlockingStub(adminChannel);
      Channel channel = ChannelzServiceTest.loadChannel(channelz, load.port);
      Subchannel subchannel =
          channelz
              .getSubchannel(
                  GetSubchannelRequest.newBuilder()
                      .setSubchannelId(channel.getSubchannelRef(0).getSubchannelId())
                      .build())
              .getSubchannel();
      dev.tern.services.channelz.v1.Server server =
          ChannelzServiceTest.loadServer(channelz, load.port);
      long acceptedId =
          channelz
              .getServerSockets(
                  GetServerSocketsRequest.newBuilder()
                      .setServerId(server.getRef().getServerId())
                      .build())
              .getSocketRef(0)
              .getSocketId();
      return numbers(
          channel,
          subchannel,
          server,
          ternSocket(channelz, subchannel.getSocketRef(0).getSocketId()),
          ternSocket(channelz, acceptedId));
    } finally {
      adminChannel.shutdownNow();
      admin.shutdownNow();
      load.close();
      assertThat(adminChannel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      assertThat(admin.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static Socket ternSocket(ChannelzTern.ChannelzBlockingStub channelz, long id) {
    return channelz.getSocket(GetSocketRequest.newBuilder().setSocketId(id).build()).getSocket();
  }

  // ---- grpc-java

  private static final MethodDescriptor.Marshaller<String> TEXT =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
          return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
          try {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  private static final MethodDescriptor<String, String> CALL =
      MethodDescriptor.<String, String>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("test.Load/Call")
          .setRequestMarshaller(TEXT)
          .setResponseMarshaller(TEXT)
          .build();

  private static Map<String, Long> grpcJavaNumbers() throws Exception {
    CountDownLatch ended = new CountDownLatch(50);
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("test.Load")
            .addMethod(
                CALL,
                ServerCalls.asyncUnaryCall(
                    (String request, io.grpc.stub.StreamObserver<String> response) -> {
                      if (request.startsWith("fail")) {
                        response.onError(
                            Status.INVALID_ARGUMENT.withDescription(request).asRuntimeException());
                      } else {
                        response.onNext("re: " + request);
                        response.onCompleted();
                      }
                    }))
            .build();
    io.grpc.Server server =
        io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder.forAddress(
                new InetSocketAddress("127.0.0.1", 0))
            .addService(ServerInterceptors.intercept(service, endWatcher(ended)))
            .build()
            .start();
    io.grpc.Server admin =
        io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder.forAddress(
                new InetSocketAddress("127.0.0.1", 0))
            .addService(io.grpc.protobuf.services.ChannelzService.newInstance(100))
            .build()
            .start();
    io.grpc.ManagedChannel channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    io.grpc.ManagedChannel adminChannel =
        ManagedChannelBuilder.forAddress("127.0.0.1", admin.getPort()).usePlaintext().build();
    try {
      for (int i = 0; i < 50; i++) {
        String request = (i < 3 ? "fail " : "ok ") + i;
        try {
          ClientCalls.blockingUnaryCall(channel, CALL, io.grpc.CallOptions.DEFAULT, request);
        } catch (StatusRuntimeException e) {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        }
      }
      assertThat(ended.await(10, TimeUnit.SECONDS)).isTrue();
      ChannelzGrpc.ChannelzBlockingStub channelz = ChannelzGrpc.newBlockingStub(adminChannel);
      int port = server.getPort();
      io.grpc.channelz.v1.Channel javaChannel =
          channelz
              .getTopChannels(io.grpc.channelz.v1.GetTopChannelsRequest.getDefaultInstance())
              .getChannelList()
              .stream()
              .filter(c -> c.getData().getTarget().endsWith(":" + port))
              .findFirst()
              .orElseThrow();
      io.grpc.channelz.v1.Subchannel javaSubchannel =
          channelz
              .getSubchannel(
                  io.grpc.channelz.v1.GetSubchannelRequest.newBuilder()
                      .setSubchannelId(javaChannel.getSubchannelRef(0).getSubchannelId())
                      .build())
              .getSubchannel();
      io.grpc.channelz.v1.Server javaServer = null;
      for (io.grpc.channelz.v1.Server candidate :
          channelz
              .getServers(io.grpc.channelz.v1.GetServersRequest.getDefaultInstance())
              .getServerList()) {
        io.grpc.channelz.v1.Socket listen =
            javaSocket(channelz, candidate.getListenSocket(0).getSocketId());
        if (listen.getLocal().getTcpipAddress().getPort() == port) {
          javaServer = candidate;
        }
      }
      assertThat(javaServer).isNotNull();
      long acceptedId =
          channelz
              .getServerSockets(
                  io.grpc.channelz.v1.GetServerSocketsRequest.newBuilder()
                      .setServerId(javaServer.getRef().getServerId())
                      .build())
              .getSocketRef(0)
              .getSocketId();
      // Same wire format: grpc-java's messages parse as Tern's.
      return numbers(
          Channel.parseFrom(javaChannel.toByteArray()),
          Subchannel.parseFrom(javaSubchannel.toByteArray()),
          dev.tern.services.channelz.v1.Server.parseFrom(javaServer.toByteArray()),
          Socket.parseFrom(
              javaSocket(channelz, javaSubchannel.getSocketRef(0).getSocketId()).toByteArray()),
          Socket.parseFrom(javaSocket(channelz, acceptedId).toByteArray()));
    } finally {
      channel.shutdownNow();
      adminChannel.shutdownNow();
      server.shutdownNow();
      admin.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      assertThat(adminChannel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      assertThat(admin.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static io.grpc.channelz.v1.Socket javaSocket(
      ChannelzGrpc.ChannelzBlockingStub channelz, long id) {
    return channelz
        .getSocket(io.grpc.channelz.v1.GetSocketRequest.newBuilder().setSocketId(id).build())
        .getSocket();
  }

  private static ServerInterceptor endWatcher(CountDownLatch ended) {
    return new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
          ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
            next.startCall(call, headers)) {
          @Override
          public void onComplete() {
            super.onComplete();
            ended.countDown();
          }

          @Override
          public void onCancel() {
            super.onCancel();
            ended.countDown();
          }
        };
      }
    };
  }
}
