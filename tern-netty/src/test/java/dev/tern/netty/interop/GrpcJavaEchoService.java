package dev.tern.netty.interop;

import static dev.tern.netty.interop.InteropContract.ECHO_INITIAL_PREFIX;
import static dev.tern.netty.interop.InteropContract.ECHO_TRAILING_PREFIX;
import static dev.tern.netty.interop.InteropContract.FAIL_AFTER_HEADERS;
import static dev.tern.netty.interop.InteropContract.FAIL_CODE;
import static dev.tern.netty.interop.InteropContract.REPLY_GZIP;
import static dev.tern.netty.interop.InteropContract.REPLY_SIZE;

import io.grpc.Codec;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import java.util.zip.InflaterInputStream;

/**
 * The interop echo service ({@link InteropContract}) written on grpc-java, the peer a Tern client
 * must interoperate with. Built directly on grpc-java's {@link ServerCall}, with a byte-array
 * marshaller.
 *
 * <p>Thread-safe: grpc-java drives each call's listener one callback at a time; what the tests read
 * is in concurrent queues.
 */
final class GrpcJavaEchoService {
  /** Passes byte arrays through. Immutable. */
  static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try (InputStream in = stream) {
            return in.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  /** One entry per Hang call started: the time left until its deadline, if it has one. */
  final BlockingQueue<Optional<Long>> hangDeadlineNanos = new LinkedBlockingQueue<>();

  /** One entry per Hang call cancelled. */
  final BlockingQueue<String> hangCancellations = new LinkedBlockingQueue<>();

  /** One entry per time Bulk found its call not ready: how many messages it had sent. */
  final BlockingQueue<Integer> bulkHeldBack = new LinkedBlockingQueue<>();

  static MethodDescriptor<byte[], byte[]> method(String fullName, MethodType type) {
    return MethodDescriptor.newBuilder(BYTES, BYTES)
        .setFullMethodName(fullName)
        .setType(type)
        .build();
  }

  ServerServiceDefinition definition() {
    return ServerServiceDefinition.builder(InteropContract.SERVICE)
        .addMethod(method(InteropContract.UNARY, MethodType.UNARY), handler(Kind.UNARY))
        .addMethod(
            method(InteropContract.SERVER_STREAMING, MethodType.SERVER_STREAMING),
            handler(Kind.SERVER_STREAMING))
        .addMethod(
            method(InteropContract.CLIENT_STREAMING, MethodType.CLIENT_STREAMING),
            handler(Kind.CLIENT_STREAMING))
        .addMethod(method(InteropContract.BIDI, MethodType.BIDI_STREAMING), handler(Kind.BIDI))
        .addMethod(method(InteropContract.FAIL, MethodType.UNARY), handler(Kind.FAIL))
        .addMethod(method(InteropContract.HANG, MethodType.UNARY), this::startHang)
        .addMethod(method(InteropContract.BULK, MethodType.SERVER_STREAMING), this::startBulk)
        .addMethod(method(InteropContract.COUNT, MethodType.CLIENT_STREAMING), this::startCount)
        .build();
  }

  private enum Kind {
    UNARY,
    SERVER_STREAMING,
    CLIENT_STREAMING,
    BIDI,
    FAIL
  }

  private ServerCallHandler<byte[], byte[]> handler(Kind kind) {
    return (call, headers) -> {
      call.request(Integer.MAX_VALUE);
      return new EchoListener(kind, call, headers);
    };
  }

  private ServerCall.Listener<byte[]> startHang(ServerCall<byte[], byte[]> call, Metadata headers) {
    Deadline deadline = Context.current().getDeadline();
    hangDeadlineNanos.add(
        deadline == null
            ? Optional.empty()
            : Optional.of(deadline.timeRemaining(TimeUnit.NANOSECONDS)));
    call.request(1);
    return new ServerCall.Listener<>() {
      @Override
      public void onCancel() {
        hangCancellations.add("cancelled");
      }
    };
  }

  private ServerCall.Listener<byte[]> startBulk(ServerCall<byte[], byte[]> call, Metadata headers) {
    call.request(1);
    return new ServerCall.Listener<>() {
      private byte[] chunk;
      private int remaining;
      private int sent;
      private boolean sending;

      @Override
      public void onMessage(byte[] request) {
        String[] countAndSize = InteropContract.utf8(request).split(":", 2);
        remaining = Integer.parseInt(countAndSize[0]);
        chunk = InteropContract.pattern(Integer.parseInt(countAndSize[1]));
      }

      @Override
      public void onHalfClose() {
        call.sendHeaders(new Metadata());
        sending = true;
        sendWhileReady();
      }

      @Override
      public void onReady() {
        if (sending) {
          sendWhileReady();
        }
      }

      @Override
      public void onCancel() {
        sending = false;
      }

      private void sendWhileReady() {
        while (remaining > 0 && call.isReady()) {
          call.sendMessage(chunk);
          remaining--;
          sent++;
        }
        if (remaining > 0) {
          bulkHeldBack.add(sent);
        } else {
          sending = false;
          call.close(Status.OK, new Metadata());
        }
      }
    };
  }

  private ServerCall.Listener<byte[]> startCount(
      ServerCall<byte[], byte[]> call, Metadata headers) {
    call.request(1);
    return new ServerCall.Listener<>() {
      private long bytes;
      private boolean intact = true;

      @Override
      public void onMessage(byte[] message) {
        bytes += message.length;
        intact &= Arrays.equals(message, InteropContract.pattern(message.length));
        call.request(1);
      }

      @Override
      public void onHalfClose() {
        call.sendHeaders(new Metadata());
        call.sendMessage(InteropContract.utf8(bytes + (intact ? " intact" : " corrupt")));
        call.close(Status.OK, new Metadata());
      }
    };
  }

  /** The request entries whose names start with {@code prefix}, in order, values unchanged. */
  static Metadata copyWithPrefix(Metadata from, String prefix) {
    Metadata copy = new Metadata();
    for (String name : from.keys()) {
      if (!name.startsWith(prefix)) {
        continue;
      }
      if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
        Metadata.Key<byte[]> key = Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER);
        for (byte[] value : from.getAll(key)) {
          copy.put(key, value);
        }
      } else {
        Metadata.Key<String> key = Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
        for (String value : from.getAll(key)) {
          copy.put(key, value);
        }
      }
    }
    return copy;
  }

  private static String header(Metadata headers, String name) {
    return headers.get(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER));
  }

  private static final class EchoListener extends ServerCall.Listener<byte[]> {
    private final Kind kind;
    private final ServerCall<byte[], byte[]> call;
    private final Metadata requestHeaders;
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private boolean headersSent;

    EchoListener(Kind kind, ServerCall<byte[], byte[]> call, Metadata requestHeaders) {
      this.kind = kind;
      this.call = call;
      this.requestHeaders = requestHeaders;
    }

    @Override
    public void onMessage(byte[] message) {
      if (kind == Kind.BIDI) {
        send(message);
      } else {
        received.writeBytes(message);
      }
    }

    @Override
    public void onHalfClose() {
      byte[] request = received.toByteArray();
      switch (kind) {
        case UNARY -> {
          String size = header(requestHeaders, REPLY_SIZE);
          send(size == null ? request : new byte[Integer.parseInt(size)]);
        }
        case SERVER_STREAMING -> {
          int count = Integer.parseInt(InteropContract.utf8(request));
          for (int i = 0; i < count; i++) {
            send(InteropContract.utf8(Integer.toString(i)));
          }
        }
        case CLIENT_STREAMING -> send(request);
        case BIDI -> {}
        case FAIL -> {
          if (header(requestHeaders, FAIL_AFTER_HEADERS) != null) {
            send(request);
          }
          Status status =
              Status.fromCodeValue(Integer.parseInt(header(requestHeaders, FAIL_CODE)))
                  .withDescription(InteropContract.utf8(request));
          call.close(status, copyWithPrefix(requestHeaders, ECHO_TRAILING_PREFIX));
          return;
        }
      }
      sendHeadersOnce();
      call.close(Status.OK, copyWithPrefix(requestHeaders, ECHO_TRAILING_PREFIX));
    }

    private void send(byte[] message) {
      sendHeadersOnce();
      call.sendMessage(message);
    }

    private void sendHeadersOnce() {
      if (headersSent) {
        return;
      }
      headersSent = true;
      if (header(requestHeaders, REPLY_GZIP) != null) {
        call.setCompression("gzip");
      }
      call.sendHeaders(copyWithPrefix(requestHeaders, ECHO_INITIAL_PREFIX));
    }
  }

  /** Deflate (zlib) for grpc-java, which has no such codec built in. Stateless. */
  static final class Deflate implements Codec {
    @Override
    public String getMessageEncoding() {
      return "deflate";
    }

    @Override
    public OutputStream compress(OutputStream os) {
      return new DeflaterOutputStream(os);
    }

    @Override
    public InputStream decompress(InputStream is) {
      return new InflaterInputStream(is);
    }
  }

  /** grpc-java's view of gzip, counting its uses so a test can tell compression really happened. */
  static final class CountingGzip implements Codec {
    final AtomicInteger compressed = new AtomicInteger();
    final AtomicInteger decompressed = new AtomicInteger();

    @Override
    public String getMessageEncoding() {
      return "gzip";
    }

    @Override
    public OutputStream compress(OutputStream os) throws IOException {
      compressed.incrementAndGet();
      return new GZIPOutputStream(os);
    }

    @Override
    public InputStream decompress(InputStream is) throws IOException {
      decompressed.incrementAndGet();
      return new GZIPInputStream(is);
    }
  }
}
