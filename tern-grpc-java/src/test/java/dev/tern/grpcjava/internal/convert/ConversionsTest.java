package dev.tern.grpcjava.internal.convert;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The value conversions between io.grpc and Tern, one by one. */
class ConversionsTest {
  private static final io.grpc.Metadata.Key<String> ASCII =
      io.grpc.Metadata.Key.of("x-ascii", io.grpc.Metadata.ASCII_STRING_MARSHALLER);
  private static final io.grpc.Metadata.Key<byte[]> BINARY =
      io.grpc.Metadata.Key.of("x-data-bin", io.grpc.Metadata.BINARY_BYTE_MARSHALLER);

  @Test
  void metadataKeepsEveryValueOfAsciiAndBinaryKeysBothWays() {
    io.grpc.Metadata original = new io.grpc.Metadata();
    original.put(ASCII, "one");
    original.put(ASCII, "two");
    original.put(BINARY, new byte[] {0, (byte) 0xff, 10});
    original.put(BINARY, new byte[0]);

    dev.tern.Metadata tern = Metadatas.toTern(original);
    assertThat(
            tern.getAll(
                dev.tern.Metadata.Key.of("x-ascii", dev.tern.Metadata.ASCII_STRING_MARSHALLER)))
        .containsExactly("one", "two");
    assertThat(
            tern.getAll(
                dev.tern.Metadata.Key.of("x-data-bin", dev.tern.Metadata.BINARY_BYTE_MARSHALLER)))
        .containsExactly(new byte[] {0, (byte) 0xff, 10}, new byte[0]);

    io.grpc.Metadata back = Metadatas.toGrpc(tern);
    assertThat(back.getAll(ASCII)).containsExactly("one", "two");
    assertThat(back.getAll(BINARY)).containsExactly(new byte[] {0, (byte) 0xff, 10}, new byte[0]);
    assertThat(back.keys()).containsExactlyInAnyOrder("x-ascii", "x-data-bin");
  }

  @Test
  void metadataKeepsTheOrderOfEntriesAcrossNames() {
    dev.tern.Metadata tern = new dev.tern.Metadata();
    dev.tern.Metadata.Key<String> a =
        dev.tern.Metadata.Key.of("x-a", dev.tern.Metadata.ASCII_STRING_MARSHALLER);
    dev.tern.Metadata.Key<String> b =
        dev.tern.Metadata.Key.of("x-b", dev.tern.Metadata.ASCII_STRING_MARSHALLER);
    tern.put(a, "1");
    tern.put(b, "2");
    tern.put(a, "3");

    io.grpc.Metadata grpc = Metadatas.toGrpc(tern);

    assertThat(grpc.toString()).isEqualTo("Metadata(x-a=1,x-b=2,x-a=3)");
    assertThat(Metadatas.toTern(grpc).toString()).isEqualTo("Metadata(x-a=1,x-b=2,x-a=3)");
  }

  @Test
  void aCopyChangesIndependentlyOfItsSourceBothWays() {
    io.grpc.Metadata grpc = new io.grpc.Metadata();
    grpc.put(ASCII, "one");
    dev.tern.Metadata tern = Metadatas.toTern(grpc);
    dev.tern.Metadata.Key<String> ternAscii =
        dev.tern.Metadata.Key.of("x-ascii", dev.tern.Metadata.ASCII_STRING_MARSHALLER);

    tern.put(ternAscii, "added in the Tern copy");
    grpc.put(ASCII, "added in the grpc-java original");
    assertThat(grpc.getAll(ASCII)).containsExactly("one", "added in the grpc-java original");
    assertThat(tern.getAll(ternAscii)).containsExactly("one", "added in the Tern copy");

    io.grpc.Metadata back = Metadatas.toGrpc(tern);
    back.removeAll(ASCII);
    back.put(ASCII, "replaced in the grpc-java copy");
    assertThat(tern.getAll(ternAscii)).containsExactly("one", "added in the Tern copy");
  }

  @Test
  void aValueGrpcJavaKeepsUnserializedIsSerializedForTern() {
    io.grpc.Metadata.Key<String> lazy =
        io.grpc.Metadata.Key.of(
            "x-lazy-bin",
            new io.grpc.Metadata.BinaryStreamMarshaller<String>() {
              @Override
              public InputStream toStream(String value) {
                return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
              }

              @Override
              public String parseStream(InputStream stream) {
                throw new AssertionError("not parsed in this test");
              }
            });
    io.grpc.Metadata grpc = new io.grpc.Metadata();
    grpc.put(lazy, "streamed");

    assertThat(
            Metadatas.toTern(grpc)
                .get(
                    dev.tern.Metadata.Key.of(
                        "x-lazy-bin", dev.tern.Metadata.BINARY_BYTE_MARSHALLER)))
        .isEqualTo("streamed".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void emptyAndAbsentMetadataBecomeEmptyMetadata() {
    assertThat(Metadatas.toTern(null).headerCount()).isZero();
    assertThat(Metadatas.toTern(new io.grpc.Metadata()).headerCount()).isZero();
    assertThat(Metadatas.toGrpc(null).keys()).isEmpty();
    assertThat(Metadatas.toGrpc(new dev.tern.Metadata()).keys()).isEmpty();
  }

  @Test
  void statusKeepsCodeDescriptionAndCause() {
    Throwable cause = new IllegalStateException("disk");
    dev.tern.Status tern =
        Statuses.toTern(io.grpc.Status.DATA_LOSS.withDescription("lost it").withCause(cause));
    assertThat(tern.getCode()).isEqualTo(dev.tern.Status.Code.DATA_LOSS);
    assertThat(tern.getDescription()).isEqualTo("lost it");
    assertThat(tern.getCause()).isSameAs(cause);

    io.grpc.Status back = Statuses.toGrpc(dev.tern.Status.UNAUTHENTICATED.withDescription("who"));
    assertThat(back.getCode()).isEqualTo(io.grpc.Status.Code.UNAUTHENTICATED);
    assertThat(back.getDescription()).isEqualTo("who");
  }

  @Test
  void deadlinesKeepTheirTimeRemaining() {
    dev.tern.Deadline tern = Deadlines.toTern(io.grpc.Deadline.after(10, TimeUnit.SECONDS));
    assertThat(tern.timeRemaining(TimeUnit.MILLISECONDS)).isBetween(9_000L, 10_000L);
    io.grpc.Deadline back = Deadlines.toGrpc(tern);
    assertThat(back.timeRemaining(TimeUnit.MILLISECONDS)).isBetween(9_000L, 10_000L);
    assertThat(Deadlines.toTern(null)).isNull();
    io.grpc.Deadline sooner = io.grpc.Deadline.after(1, TimeUnit.SECONDS);
    assertThat(Deadlines.earlier(back, sooner)).isSameAs(sooner);
    assertThat(Deadlines.earlier(null, sooner)).isSameAs(sooner);
  }

  @Test
  void outgoingKnownLengthDrainableStreamIsDrainedIntoTheFrame() throws IOException {
    AtomicInteger drains = new AtomicInteger();
    dev.tern.MethodDescriptor.Marshaller<String> marshaller =
        Methods.marshaller(new DrainingMarshaller(drains, new AtomicReference<>()));

    InputStream stream = marshaller.stream("hello");
    assertThat(stream).isInstanceOf(dev.tern.KnownLength.class);
    assertThat(stream.available()).isEqualTo(5);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    stream.transferTo(out);
    assertThat(out.toString("UTF-8")).isEqualTo("hello");
    assertThat(drains).hasValue(1);
  }

  @Test
  void incomingStreamOfKnownLengthReachesTheParserAsKnownLength() {
    AtomicReference<InputStream> parsed = new AtomicReference<>();
    dev.tern.MethodDescriptor.Marshaller<String> marshaller =
        Methods.marshaller(new DrainingMarshaller(new AtomicInteger(), parsed));

    assertThat(marshaller.parse(new ByteArrayInputStream(new byte[] {'h', 'i'}))).isEqualTo("hi");
    assertThat(parsed.get()).isInstanceOf(io.grpc.KnownLength.class);
  }

  @Test
  void methodDescriptorKeepsNameTypeAndFlags() {
    io.grpc.MethodDescriptor<String, String> method =
        io.grpc.MethodDescriptor.<String, String>newBuilder()
            .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
            .setFullMethodName("pkg.Service/Method")
            .setRequestMarshaller(
                new DrainingMarshaller(new AtomicInteger(), new AtomicReference<>()))
            .setResponseMarshaller(
                new DrainingMarshaller(new AtomicInteger(), new AtomicReference<>()))
            .setIdempotent(true)
            .setSafe(true)
            .build();
    dev.tern.MethodDescriptor<String, String> tern = Methods.toTern(method);
    assertThat(tern.getFullMethodName()).isEqualTo("pkg.Service/Method");
    assertThat(tern.getType()).isEqualTo(dev.tern.MethodDescriptor.MethodType.SERVER_STREAMING);
    assertThat(tern.isIdempotent()).isTrue();
    assertThat(tern.isSafe()).isTrue();
  }

  /** Strings as UTF-8, streamed as KnownLength and Drainable; records drains and parsed streams. */
  private static final class DrainingMarshaller
      implements io.grpc.MethodDescriptor.Marshaller<String> {
    private final AtomicInteger drains;
    private final AtomicReference<InputStream> parsed;

    DrainingMarshaller(AtomicInteger drains, AtomicReference<InputStream> parsed) {
      this.drains = drains;
      this.parsed = parsed;
    }

    @Override
    public InputStream stream(String value) {
      return new Stream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      parsed.set(stream);
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    private final class Stream extends ByteArrayInputStream
        implements io.grpc.KnownLength, io.grpc.Drainable {
      Stream(byte[] bytes) {
        super(bytes);
      }

      @Override
      public int drainTo(OutputStream target) throws IOException {
        drains.incrementAndGet();
        int n = available();
        target.write(buf, pos, n);
        pos = count;
        return n;
      }
    }
  }
}
