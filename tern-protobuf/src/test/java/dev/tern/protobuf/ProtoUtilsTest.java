package dev.tern.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import com.google.protobuf.ListValue;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import dev.tern.KnownLength;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.internal.wire.ByteArrayWritableBuffer;
import dev.tern.internal.wire.ByteArrayWritableBufferAllocator;
import dev.tern.internal.wire.MessageFramer;
import dev.tern.internal.wire.ReadableBuffers;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ProtoUtilsTest {
  private final MethodDescriptor.Marshaller<Struct> marshaller =
      ProtoUtils.marshaller(Struct.getDefaultInstance());

  private static final Struct STRUCT =
      Struct.newBuilder()
          .putFields("name", Value.newBuilder().setStringValue("tern <&> ünïcode").build())
          .putFields("count", Value.newBuilder().setNumberValue(42).build())
          .putFields(
              "list",
              Value.newBuilder()
                  .setListValue(
                      ListValue.newBuilder()
                          .addValues(Value.newBuilder().setBoolValue(true))
                          .addValues(Value.newBuilder().setStringValue("x")))
                  .build())
          .build();

  @Test
  void streamKnowsItsLengthAndReadsBackTheSerializedBytes() throws IOException {
    InputStream stream = marshaller.stream(STRUCT);

    assertThat(stream).isInstanceOf(KnownLength.class);
    assertThat(stream.available()).isEqualTo(STRUCT.getSerializedSize());
    assertThat(stream.readAllBytes()).isEqualTo(STRUCT.toByteArray());
    assertThat(stream.available()).isZero();
    assertThat(stream.read()).isEqualTo(-1);
  }

  @Test
  void streamReadOneByteAtATimeGivesTheSameBytes() throws IOException {
    InputStream stream = marshaller.stream(STRUCT);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] one = new byte[1];
    int n;
    while ((n = stream.read(one, 0, 1)) != -1) {
      assertThat(n).isEqualTo(1);
      out.write(one[0]);
    }
    assertThat(out.toByteArray()).isEqualTo(STRUCT.toByteArray());
  }

  @Test
  void transferToWritesTheWholeMessage() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    long written = marshaller.stream(STRUCT).transferTo(out);
    assertThat(written).isEqualTo(STRUCT.getSerializedSize());
    assertThat(out.toByteArray()).isEqualTo(STRUCT.toByteArray());
  }

  @Test
  void roundTripsThroughPlainAndKnownLengthStreams() {
    byte[] bytes = STRUCT.toByteArray();
    assertThat(marshaller.parse(new ByteArrayInputStream(bytes))).isEqualTo(STRUCT);
    assertThat(marshaller.parse(ReadableBuffers.openStream(ReadableBuffers.wrap(bytes), true)))
        .isEqualTo(STRUCT);
  }

  @Test
  void parsesAStreamThatHandsOutOneByteAtATime() {
    byte[] bytes = STRUCT.toByteArray();
    InputStream trickle =
        new ByteArrayInputStream(bytes) {
          @Override
          public synchronized int read(byte[] b, int off, int len) {
            return super.read(b, off, Math.min(len, 1));
          }
        };
    assertThat(marshaller.parse(trickle)).isEqualTo(STRUCT);
  }

  @Test
  void parsingItsOwnUnreadStreamHandsBackTheSameMessage() {
    // What the in-process transport does: the receiver gets the sender's stream.
    InputStream stream = marshaller.stream(STRUCT);
    Struct copy =
        ProtoUtils.marshaller(Struct.getDefaultInstance()).parse(stream); // another instance
    assertThat(copy).isSameAs(STRUCT);
  }

  @Test
  void emptyMessageRoundTrips() throws IOException {
    InputStream stream = marshaller.stream(Struct.getDefaultInstance());
    assertThat(stream.available()).isZero();
    assertThat(stream.read(new byte[8], 0, 8)).isEqualTo(-1);
    assertThat(marshaller.parse(ReadableBuffers.openStream(ReadableBuffers.empty(), true)))
        .isEqualTo(Struct.getDefaultInstance());
    assertThat(marshaller.parse(new ByteArrayInputStream(new byte[0])))
        .isEqualTo(Struct.getDefaultInstance());
  }

  @Test
  void largeMessageRoundTripsThroughTheFramer() {
    byte[] payload = new byte[5 * 1024 * 1024 + 7];
    new Random(1).nextBytes(payload);
    BytesValue big = BytesValue.newBuilder().setValue(ByteString.copyFrom(payload)).build();
    MethodDescriptor.Marshaller<BytesValue> bytesMarshaller =
        ProtoUtils.marshaller(BytesValue.getDefaultInstance());

    ByteArrayOutputStream framed = new ByteArrayOutputStream();
    MessageFramer framer =
        new MessageFramer(
            (frame, endOfStream, flush, numMessages) -> {
              if (frame != null) {
                framed.writeBytes(((ByteArrayWritableBuffer) frame).toByteArray());
                frame.release();
              }
            },
            new ByteArrayWritableBufferAllocator());
    framer.writePayload(bytesMarshaller.stream(big));
    framer.close();

    byte[] frame = framed.toByteArray();
    int length =
        (frame[1] & 0xFF) << 24
            | (frame[2] & 0xFF) << 16
            | (frame[3] & 0xFF) << 8
            | frame[4] & 0xFF;
    assertThat(frame[0]).isZero();
    assertThat(length).isEqualTo(big.getSerializedSize()).isEqualTo(frame.length - 5);
    InputStream body = ReadableBuffers.openStream(ReadableBuffers.wrap(frame, 5, length), true);
    assertThat(bytesMarshaller.parse(body).getValue().toByteArray()).isEqualTo(payload);
    assertThat(bytesMarshaller.parse(new ByteArrayInputStream(frame, 5, length))).isEqualTo(big);
  }

  @Test
  void bytesFieldOfAKnownLengthStreamSharesTheArrayTheStreamWasReadInto() {
    int size = 1024 * 1024;
    byte[] payload = new byte[size];
    new Random(2).nextBytes(payload);
    byte[] serialized =
        BytesValue.newBuilder().setValue(ByteString.copyFrom(payload)).build().toByteArray();
    MethodDescriptor.Marshaller<BytesValue> bytesMarshaller =
        ProtoUtils.marshaller(BytesValue.getDefaultInstance());
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    bytesMarshaller.parse(ReadableBuffers.openStream(ReadableBuffers.wrap(serialized), true));

    InputStream stream = ReadableBuffers.openStream(ReadableBuffers.wrap(serialized), true);
    long before = threads.getCurrentThreadAllocatedBytes();
    BytesValue parsed = bytesMarshaller.parse(stream);
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;

    assertThat(parsed.getValue().toByteArray()).isEqualTo(payload);
    // One array for the message's bytes, not a second one for a copy of its bytes field.
    assertThat(allocated).isBetween((long) size, size + 64 * 1024L);
  }

  @Test
  void malformedBytesFailWithInternal() {
    // Field 1, length-delimited, claims 5 bytes but only 1 follows.
    byte[] truncated = {0x0A, 0x05, 0x01};
    assertInternal(() -> marshaller.parse(new ByteArrayInputStream(truncated)));
    assertInternal(
        () -> marshaller.parse(ReadableBuffers.openStream(ReadableBuffers.wrap(truncated), true)));
    // Tag 0 is never valid.
    assertInternal(() -> marshaller.parse(new ByteArrayInputStream(new byte[] {0x00, 0x01})));
    // An end-group tag with no group open.
    assertInternal(() -> marshaller.parse(new ByteArrayInputStream(new byte[] {0x0C})));
  }

  @Test
  void nestingDeeperThanTheRecursionLimitFailsWithInternal() {
    Value deep = Value.newBuilder().setStringValue("bottom").build();
    for (int i = 0; i < 60; i++) { // two message levels per round: Value > ListValue > Value
      deep = Value.newBuilder().setListValue(ListValue.newBuilder().addValues(deep)).build();
    }
    byte[] bytes = deep.toByteArray();
    MethodDescriptor.Marshaller<Value> defaultLimit =
        ProtoUtils.marshaller(Value.getDefaultInstance());
    assertInternal(() -> defaultLimit.parse(new ByteArrayInputStream(bytes)));

    MethodDescriptor.Marshaller<Value> deeper =
        ProtoUtils.marshallerWithRecursionLimit(Value.getDefaultInstance(), 200);
    assertThat(deeper.parse(new ByteArrayInputStream(bytes))).isEqualTo(deep);
    assertThatThrownBy(() -> ProtoUtils.marshallerWithRecursionLimit(Value.getDefaultInstance(), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("recursionLimit");
  }

  @Test
  void keyForProtoIsNamedAfterTheMessageAndRoundTrips() {
    Metadata.Key<Struct> key = ProtoUtils.keyForProto(Struct.getDefaultInstance());
    assertThat(key.name()).isEqualTo("google.protobuf.struct-bin");

    Metadata metadata = new Metadata();
    metadata.put(key, STRUCT);
    Metadata received = Metadata.fromSerialized(metadata.toSerialized(), metadata.headerCount());
    assertThat(received.get(key)).isEqualTo(STRUCT);
  }

  @Test
  void keyForProtoRejectsMalformedValues() {
    Metadata.Key<Struct> key = ProtoUtils.keyForProto(Struct.getDefaultInstance());
    Metadata metadata = new Metadata();
    metadata.put(Metadata.Key.of(key.name(), Metadata.BINARY_BYTE_MARSHALLER), new byte[] {0x0A});
    assertThatThrownBy(() -> metadata.get(key))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("google.protobuf.Struct");
  }

  private static void assertInternal(Runnable parse) {
    assertThatThrownBy(parse::run)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
              assertThat(e.getStatus().getDescription()).contains("google.protobuf.");
            });
  }
}
