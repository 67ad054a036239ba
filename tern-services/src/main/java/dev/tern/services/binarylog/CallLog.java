package dev.tern.services.binarylog;

import com.google.protobuf.ByteString;
import com.google.protobuf.Duration;
import com.google.protobuf.Timestamp;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.services.binarylog.v1.ClientHeader;
import dev.tern.services.binarylog.v1.GrpcLogEntry;
import dev.tern.services.binarylog.v1.GrpcLogEntry.EventType;
import dev.tern.services.binarylog.v1.Message;
import dev.tern.services.binarylog.v1.MetadataEntry;
import dev.tern.services.binarylog.v1.ServerHeader;
import dev.tern.services.binarylog.v1.Trailer;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The entries of one call, on one side: numbers them from 1 and writes them to the sink with the
 * call's id, the logger side and a timestamp, cutting metadata and messages to the call's limits.
 *
 * <p>Thread-safe: the sequence number is atomic, so events of the call may be logged from the
 * application's and the transport's threads at once.
 */
final class CallLog {
  /**
   * Keys gRPC or HTTP/2 handle themselves, which A16 leaves out (besides every other {@code grpc-}
   * key): the application never set them.
   */
  private static final Set<String> TRANSPORT_KEYS =
      Set.of("content-type", "user-agent", "te", "content-encoding", "content-length", "host");

  /** The one {@code grpc-} key A16 always logs, whatever the header limit. */
  private static final String TRACE_KEY = "grpc-trace-bin";

  private static final Metadata.Key<byte[]> STATUS_DETAILS_KEY =
      Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private final BinaryLogSink sink;
  private final Clock clock;
  private final long callId;
  private final GrpcLogEntry.Logger side;
  private final BinaryLogFilter.Limits limits;
  private final AtomicLong sequence = new AtomicLong();

  CallLog(
      BinaryLogSink sink,
      Clock clock,
      long callId,
      GrpcLogEntry.Logger side,
      BinaryLogFilter.Limits limits) {
    this.sink = sink;
    this.clock = clock;
    this.callId = callId;
    this.side = side;
    this.limits = limits;
  }

  /**
   * The request headers.
   *
   * @param timeoutNanos the time left before the deadline, or negative for none
   * @param peer the client's address (on the server), or null
   */
  void clientHeader(
      Metadata headers,
      String fullMethodName,
      String authority,
      long timeoutNanos,
      SocketAddress peer) {
    GrpcLogEntry.Builder entry = entry(EventType.EVENT_TYPE_CLIENT_HEADER);
    ClientHeader.Builder header =
        ClientHeader.newBuilder()
            .setMetadata(metadata(headers, entry))
            .setMethodName("/" + fullMethodName);
    if (authority != null) {
      header.setAuthority(authority);
    }
    if (timeoutNanos >= 0) {
      header.setTimeout(
          Duration.newBuilder()
              .setSeconds(timeoutNanos / 1_000_000_000L)
              .setNanos((int) (timeoutNanos % 1_000_000_000L)));
    }
    entry.setClientHeader(header);
    write(entry, peer);
  }

  /** The response headers; {@code peer} is the server's address (on the client), or null. */
  void serverHeader(Metadata headers, SocketAddress peer) {
    GrpcLogEntry.Builder entry = entry(EventType.EVENT_TYPE_SERVER_HEADER);
    entry.setServerHeader(ServerHeader.newBuilder().setMetadata(metadata(headers, entry)));
    write(entry, peer);
  }

  /** A request (from the client) or response message, in its serialized form. */
  void message(boolean fromClient, byte[] data) {
    GrpcLogEntry.Builder entry =
        entry(
            fromClient ? EventType.EVENT_TYPE_CLIENT_MESSAGE : EventType.EVENT_TYPE_SERVER_MESSAGE);
    Message.Builder message = Message.newBuilder().setLength(data.length);
    int kept = Math.min(data.length, limits.maxMessageBytes());
    if (kept > 0) {
      message.setData(ByteString.copyFrom(data, 0, kept));
    }
    if (kept < data.length) {
      entry.setPayloadTruncated(true);
    }
    entry.setMessage(message);
    write(entry, null);
  }

  void halfClose() {
    write(entry(EventType.EVENT_TYPE_CLIENT_HALF_CLOSE), null);
  }

  /**
   * The call's status and trailers; {@code peer} is the server's address on a client that saw no
   * headers, else null.
   */
  void trailer(Status status, Metadata trailers, SocketAddress peer) {
    GrpcLogEntry.Builder entry = entry(EventType.EVENT_TYPE_SERVER_TRAILER);
    Trailer.Builder trailer =
        Trailer.newBuilder()
            .setMetadata(metadata(trailers, entry))
            .setStatusCode(status.getCode().value());
    if (status.getDescription() != null) {
      trailer.setStatusMessage(status.getDescription());
    }
    byte[] details = trailers.get(STATUS_DETAILS_KEY);
    if (details != null) {
      trailer.setStatusDetails(ByteString.copyFrom(details));
    }
    entry.setTrailer(trailer);
    write(entry, peer);
  }

  void cancel() {
    write(entry(EventType.EVENT_TYPE_CANCEL), null);
  }

  private GrpcLogEntry.Builder entry(EventType type) {
    Instant now = clock.instant();
    return GrpcLogEntry.newBuilder()
        .setTimestamp(
            Timestamp.newBuilder().setSeconds(now.getEpochSecond()).setNanos(now.getNano()))
        .setCallId(callId)
        .setSequenceIdWithinCall(sequence.incrementAndGet())
        .setType(type)
        .setLogger(side);
  }

  private void write(GrpcLogEntry.Builder entry, SocketAddress peer) {
    if (peer != null) {
      entry.setPeer(PeerAddresses.toProto(peer));
    }
    sink.write(entry.build());
  }

  /**
   * The application's entries of {@code metadata}, in order, while their keys and values fit in the
   * header limit; an entry that does not fit is left out and the payload marked truncated.
   */
  private dev.tern.services.binarylog.v1.Metadata.Builder metadata(
      Metadata metadata, GrpcLogEntry.Builder entry) {
    dev.tern.services.binarylog.v1.Metadata.Builder out =
        dev.tern.services.binarylog.v1.Metadata.newBuilder();
    byte[][] serialized = metadata.toSerialized();
    long used = 0;
    for (int i = 0; i < serialized.length; i += 2) {
      String key = new String(serialized[i], StandardCharsets.US_ASCII);
      byte[] value = serialized[i + 1];
      boolean trace = key.equals(TRACE_KEY);
      if (!trace && !logged(key)) {
        continue;
      }
      if (!trace) {
        long size = (long) key.length() + value.length;
        if (used + size > limits.maxHeaderBytes()) {
          entry.setPayloadTruncated(true);
          continue;
        }
        used += size;
      }
      out.addEntry(MetadataEntry.newBuilder().setKey(key).setValue(ByteString.copyFrom(value)));
    }
    return out;
  }

  private static boolean logged(String key) {
    return !key.startsWith("grpc-") && !key.startsWith(":") && !TRANSPORT_KEYS.contains(key);
  }
}
