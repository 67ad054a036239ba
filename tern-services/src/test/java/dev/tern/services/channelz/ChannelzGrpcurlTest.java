package dev.tern.services.channelz;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.tern.Server;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.services.AdminServices;
import dev.tern.services.channelz.v1.Channel;
import dev.tern.services.channelz.v1.ChannelzProto;
import dev.tern.services.channelz.v1.GetServerSocketsResponse;
import dev.tern.services.channelz.v1.GetServersResponse;
import dev.tern.services.channelz.v1.GetSocketResponse;
import dev.tern.services.channelz.v1.GetSubchannelResponse;
import dev.tern.services.channelz.v1.GetTopChannelsResponse;
import dev.tern.services.channelz.v1.Socket;
import dev.tern.services.channelz.v1.Subchannel;
import dev.tern.testtools.ExternalTool;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * grpcurl, a real channelz client, reads Tern's channelz (served by {@link AdminServices} on its
 * own server) after a real load: 50 unary calls, 3 failing, over a Tern Netty channel to a Tern
 * Netty server. grpcurl learns the service from a descriptor set written from Tern's compiled
 * channelz.proto.
 */
class ChannelzGrpcurlTest {
  private static final String SERVICE = "grpc.channelz.v1.Channelz/";

  @TempDir Path temp;
  private Path grpcurl;
  private Path protoset;
  private TernLoad load;
  private Server admin;

  @BeforeEach
  void setUp() throws Exception {
    grpcurl = ExternalTool.require("grpcurl");
    protoset = temp.resolve("channelz.protoset");
    Files.write(protoset, descriptorSet(ChannelzProto.getDescriptor()).toByteArray());
    load = new TernLoad();
    admin =
        AdminServices.addTo(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)))
            .build()
            .start();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (load != null) {
      load.close();
    }
    if (admin != null) {
      admin.shutdownNow();
      assertThat(admin.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** {@code file} and everything it imports, imports first. */
  static FileDescriptorSet descriptorSet(FileDescriptor file) {
    Map<String, FileDescriptor> ordered = new LinkedHashMap<>();
    addWithDependencies(file, ordered);
    FileDescriptorSet.Builder set = FileDescriptorSet.newBuilder();
    ordered.values().forEach(f -> set.addFile(f.toProto()));
    return set.build();
  }

  private static void addWithDependencies(FileDescriptor file, Map<String, FileDescriptor> out) {
    for (FileDescriptor dependency : file.getDependencies()) {
      addWithDependencies(dependency, out);
    }
    out.putIfAbsent(file.getName(), file);
  }

  @Test
  void grpcurlSeesTheLoadsNumbers() throws Exception {
    load.run(50, 3);

    GetTopChannelsResponse top =
        call("GetTopChannels", "{}", GetTopChannelsResponse.getDefaultInstance());
    Channel channel =
        top.getChannelList().stream()
            .filter(c -> c.getData().getTarget().endsWith(":" + load.port))
            .findFirst()
            .orElseThrow();
    assertThat(channel.getData().getCallsStarted()).isEqualTo(50);
    assertThat(channel.getData().getCallsSucceeded()).isEqualTo(47);
    assertThat(channel.getData().getCallsFailed()).isEqualTo(3);

    Subchannel subchannel =
        call(
                "GetSubchannel",
                "{\"subchannel_id\": " + channel.getSubchannelRef(0).getSubchannelId() + "}",
                GetSubchannelResponse.getDefaultInstance())
            .getSubchannel();
    assertThat(subchannel.getData().getCallsStarted()).isEqualTo(50);
    assertThat(subchannel.getData().getCallsSucceeded()).isEqualTo(47);
    assertThat(subchannel.getData().getCallsFailed()).isEqualTo(3);

    Socket client = socket(subchannel.getSocketRef(0).getSocketId());
    assertThat(client.getData().getStreamsStarted()).isEqualTo(50);
    assertThat(client.getData().getStreamsSucceeded()).isEqualTo(47);
    assertThat(client.getData().getStreamsFailed()).isEqualTo(3);
    assertThat(client.getData().getMessagesSent()).isEqualTo(50);
    assertThat(client.getData().getMessagesReceived()).isEqualTo(47);
    assertThat(ChannelzServiceTest.port(client.getRemote())).isEqualTo(load.port);

    dev.tern.services.channelz.v1.Server server = null;
    for (dev.tern.services.channelz.v1.Server candidate :
        call("GetServers", "{}", GetServersResponse.getDefaultInstance()).getServerList()) {
      Socket listen = socket(candidate.getListenSocket(0).getSocketId());
      if (ChannelzServiceTest.port(listen.getLocal()) == load.port) {
        server = candidate;
      }
    }
    assertThat(server).as("the load's server, by its listening port").isNotNull();
    assertThat(server.getData().getCallsStarted()).isEqualTo(50);
    assertThat(server.getData().getCallsSucceeded()).isEqualTo(47);
    assertThat(server.getData().getCallsFailed()).isEqualTo(3);

    GetServerSocketsResponse sockets =
        call(
            "GetServerSockets",
            "{\"server_id\": " + server.getRef().getServerId() + "}",
            GetServerSocketsResponse.getDefaultInstance());
    assertThat(sockets.getEnd()).isTrue();
    Socket accepted = socket(sockets.getSocketRef(0).getSocketId());
    assertThat(accepted.getData().getStreamsStarted()).isEqualTo(50);
    assertThat(accepted.getData().getMessagesReceived()).isEqualTo(50);
    assertThat(accepted.getData().getMessagesSent()).isEqualTo(47);
    assertThat(ChannelzServiceTest.port(accepted.getRemote()))
        .isEqualTo(ChannelzServiceTest.port(client.getLocal()));
  }

  @Test
  void grpcurlGetsNotFoundNamingTheId() throws Exception {
    Result result = run("GetChannel", "{\"channel_id\": 424242424242}");
    assertThat(result.exitCode).isNotZero();
    assertThat(result.stderr).contains("NotFound", "No channel with channelz id 424242424242");
  }

  private Socket socket(long id) throws Exception {
    return call("GetSocket", "{\"socket_id\": " + id + "}", GetSocketResponse.getDefaultInstance())
        .getSocket();
  }

  /** Calls {@code method} with grpcurl and parses its JSON output into {@code response}. */
  @SuppressWarnings("unchecked")
  private <T extends Message> T call(String method, String json, T prototype) throws Exception {
    Result result = run(method, json);
    assertThat(result.exitCode).as("grpcurl failed: %s", result.stderr).isZero();
    Message.Builder response = prototype.newBuilderForType();
    JsonFormat.parser().merge(result.stdout, response);
    return (T) response.build();
  }

  private record Result(int exitCode, String stdout, String stderr) {}

  private Result run(String method, String json) throws IOException, InterruptedException {
    Path out = Files.createTempFile(temp, "out", ".json");
    Path err = Files.createTempFile(temp, "err", ".txt");
    List<String> command = new ArrayList<>();
    command.add(grpcurl.toString());
    command.addAll(
        List.of(
            "-plaintext",
            "-max-time",
            "20",
            "-protoset",
            protoset.toString(),
            "-d",
            json,
            "127.0.0.1:" + admin.getPort(),
            SERVICE + method));
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    try {
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("grpcurl finished").isTrue();
      return new Result(
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      process.destroyForcibly();
    }
  }
}
