package dev.tern.grpcjava;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import io.grpc.BinaryLog;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.binarylog.v1.Address;
import io.grpc.binarylog.v1.GrpcLogEntry;
import io.grpc.binarylog.v1.GrpcLogEntry.EventType;
import io.grpc.protobuf.services.BinaryLogSink;
import io.grpc.protobuf.services.BinaryLogs;
import io.grpc.stub.MetadataUtils;
import io.grpc.testing.integration.Messages.EchoStatus;
import io.grpc.testing.integration.Messages.Payload;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.Messages.SimpleResponse;
import io.grpc.testing.integration.TestServiceGrpc;
import io.grpc.testing.integration.TestServiceImpl;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * grpc-java's binary log (grpc-services' {@code BinaryLogs}, gRFC A16) set with {@code
 * setBinaryLog} on a bridged server and channel: each side writes grpc-java's {@code GrpcLogEntry}
 * records of every call to the application's sink.
 */
class GrpcJavaBinaryLogTest {
  private static final Metadata.Key<String> TENANT =
      Metadata.Key.of("x-tenant", Metadata.ASCII_STRING_MARSHALLER);

  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final RecordingSink serverSink = new RecordingSink();
  private final RecordingSink clientSink = new RecordingSink();
  private BinaryLog serverLog;
  private BinaryLog clientLog;
  private Server server;
  private ManagedChannel channel;

  /** The entries a binary log wrote, in order. Thread-safe. */
  private static final class RecordingSink implements BinaryLogSink {
    final List<GrpcLogEntry> entries = new CopyOnWriteArrayList<>();

    @Override
    public void write(MessageLite message) {
      entries.add((GrpcLogEntry) message);
    }

    @Override
    public void close() {}
  }

  @BeforeEach
  void start() throws Exception {
    serverLog = BinaryLogs.createBinaryLog(serverSink, "*");
    clientLog = BinaryLogs.createBinaryLog(clientSink, "*");
    server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addService(new TestServiceImpl(scheduler))
            .setBinaryLog(serverLog)
            .build()
            .start();
    channel =
        Grpc.newChannelBuilder("127.0.0.1:" + server.getPort(), InsecureChannelCredentials.create())
            .setBinaryLog(clientLog)
            .build();
  }

  @AfterEach
  void stop() throws Exception {
    Peers.close(channel, server, scheduler);
    serverLog.close();
    clientLog.close();
  }

  private static List<EventType> types(List<GrpcLogEntry> entries) {
    return entries.stream().map(GrpcLogEntry::getType).toList();
  }

  @Test
  void bothSidesLogEveryEventOfAUnaryCallWithItsHeadersMessagesAndStatus() {
    SimpleRequest request =
        SimpleRequest.newBuilder()
            .setResponseSize(3)
            .setPayload(Payload.newBuilder().setBody(ByteString.copyFromUtf8("hello")))
            .build();
    Metadata headers = new Metadata();
    headers.put(TENANT, "blue");
    SimpleResponse response =
        TestServiceGrpc.newBlockingStub(channel)
            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
            .unaryCall(request);

    List<EventType> unary =
        List.of(
            EventType.EVENT_TYPE_CLIENT_HEADER,
            EventType.EVENT_TYPE_CLIENT_MESSAGE,
            EventType.EVENT_TYPE_CLIENT_HALF_CLOSE,
            EventType.EVENT_TYPE_SERVER_HEADER,
            EventType.EVENT_TYPE_SERVER_MESSAGE,
            EventType.EVENT_TYPE_SERVER_TRAILER);
    for (RecordingSink sink : List.of(clientSink, serverSink)) {
      List<GrpcLogEntry> entries = sink.entries;
      assertThat(types(entries)).isEqualTo(unary);
      assertThat(entries)
          .extracting(GrpcLogEntry::getSequenceIdWithinCall)
          .containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
      assertThat(entries)
          .extracting(GrpcLogEntry::getCallId)
          .containsOnly(entries.get(0).getCallId());
      GrpcLogEntry clientHeader = entries.get(0);
      assertThat(clientHeader.getClientHeader().getMethodName())
          .isEqualTo("/grpc.testing.TestService/UnaryCall");
      assertThat(clientHeader.getClientHeader().getMetadata().getEntryList())
          .anyMatch(
              e -> e.getKey().equals("x-tenant") && e.getValue().toStringUtf8().equals("blue"));
      assertThat(entries.get(1).getMessage().getData()).isEqualTo(request.toByteString());
      assertThat(entries.get(4).getMessage().getData()).isEqualTo(response.toByteString());
      assertThat(entries.get(5).getTrailer().getStatusCode()).isEqualTo(0);
    }
    assertThat(clientSink.entries)
        .extracting(GrpcLogEntry::getLogger)
        .containsOnly(GrpcLogEntry.Logger.LOGGER_CLIENT);
    assertThat(serverSink.entries)
        .extracting(GrpcLogEntry::getLogger)
        .containsOnly(GrpcLogEntry.Logger.LOGGER_SERVER);
    // Each side names its peer: the server the client's loopback address, the client the server's.
    Address clientPeer = serverSink.entries.get(0).getPeer();
    assertThat(clientPeer.getType()).isEqualTo(Address.Type.TYPE_IPV4);
    assertThat(clientPeer.getAddress()).isEqualTo("127.0.0.1");
    Address serverPeer = clientSink.entries.get(3).getPeer();
    assertThat(serverPeer.getAddress()).isEqualTo("127.0.0.1");
    assertThat(serverPeer.getIpPort()).isEqualTo(server.getPort());
  }

  @Test
  void aFailedCallIsLoggedWithItsStatus() {
    SimpleRequest request =
        SimpleRequest.newBuilder()
            .setResponseStatus(EchoStatus.newBuilder().setCode(3).setMessage("not like that"))
            .build();
    assertThatThrownBy(() -> TestServiceGrpc.newBlockingStub(channel).unaryCall(request))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    // grpc-java's blocking stub cancels its call after any failure, so the client's log ends with
    // that CANCEL after the trailer, as it does on grpc-java's own channel.
    assertThat(types(clientSink.entries))
        .endsWith(EventType.EVENT_TYPE_SERVER_TRAILER, EventType.EVENT_TYPE_CANCEL);
    assertThat(types(serverSink.entries)).endsWith(EventType.EVENT_TYPE_SERVER_TRAILER);
    for (RecordingSink sink : List.of(clientSink, serverSink)) {
      GrpcLogEntry trailer =
          sink.entries.stream()
              .filter(e -> e.getType() == EventType.EVENT_TYPE_SERVER_TRAILER)
              .findFirst()
              .orElseThrow();
      assertThat(trailer.getTrailer().getStatusCode()).isEqualTo(3);
      assertThat(trailer.getTrailer().getStatusMessage()).isEqualTo("not like that");
    }
  }
}
