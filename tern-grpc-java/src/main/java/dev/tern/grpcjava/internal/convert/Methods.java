package dev.tern.grpcjava.internal.convert;

import java.io.ByteArrayInputStream;
import java.io.InputStream;

/**
 * Converts grpc-java method descriptors to Tern's. The Tern descriptor's marshallers call
 * grpc-java's and keep their zero-copy paths: an outgoing stream that is grpc-java's {@code
 * KnownLength} is handed to Tern as Tern's {@code KnownLength} (the framer writes the length prefix
 * and then drains it, through grpc-java's {@code Drainable} when the stream is one), and an
 * incoming stream whose length Tern knows reaches grpc-java's parser as grpc-java's {@code
 * KnownLength}. Stateless and thread-safe.
 */
public final class Methods {
  private Methods() {}

  /**
   * A Tern descriptor for {@code method}: same name, type, flags and schema, wrapped marshallers.
   */
  public static <ReqT, RespT> dev.tern.MethodDescriptor<ReqT, RespT> toTern(
      io.grpc.MethodDescriptor<ReqT, RespT> method) {
    return dev.tern.MethodDescriptor.<ReqT, RespT>newBuilder()
        .setType(dev.tern.MethodDescriptor.MethodType.valueOf(method.getType().name()))
        .setFullMethodName(method.getFullMethodName())
        .setRequestMarshaller(marshaller(method.getRequestMarshaller()))
        .setResponseMarshaller(marshaller(method.getResponseMarshaller()))
        .setSchemaDescriptor(method.getSchemaDescriptor())
        .setIdempotent(method.isIdempotent())
        .setSafe(method.isSafe())
        .setSampledToLocalTracing(method.isSampledToLocalTracing())
        .build();
  }

  /** Tern's marshaller interface over grpc-java's marshaller. */
  public static <T> dev.tern.MethodDescriptor.Marshaller<T> marshaller(
      io.grpc.MethodDescriptor.Marshaller<T> marshaller) {
    return new dev.tern.MethodDescriptor.Marshaller<>() {
      @Override
      public InputStream stream(T value) {
        return MessageStreams.outbound(marshaller.stream(value));
      }

      @Override
      public T parse(InputStream stream) {
        return marshaller.parse(MessageStreams.inbound(stream));
      }

      @Override
      public String toString() {
        return "grpc-java marshaller " + marshaller;
      }
    };
  }

  /**
   * A grpc-java descriptor for {@code method}: same name, type, flags and schema; its marshallers
   * call Tern's (for what grpc-java's tracers are shown of a call).
   */
  public static <ReqT, RespT> io.grpc.MethodDescriptor<ReqT, RespT> toGrpc(
      dev.tern.MethodDescriptor<ReqT, RespT> method) {
    return io.grpc.MethodDescriptor.<ReqT, RespT>newBuilder()
        .setType(io.grpc.MethodDescriptor.MethodType.valueOf(method.getType().name()))
        .setFullMethodName(method.getFullMethodName())
        .setRequestMarshaller(grpcMarshaller(method.getRequestMarshaller()))
        .setResponseMarshaller(grpcMarshaller(method.getResponseMarshaller()))
        .setSchemaDescriptor(method.getSchemaDescriptor())
        .setIdempotent(method.isIdempotent())
        .setSafe(method.isSafe())
        .setSampledToLocalTracing(method.isSampledToLocalTracing())
        .build();
  }

  private static <T> io.grpc.MethodDescriptor.Marshaller<T> grpcMarshaller(
      dev.tern.MethodDescriptor.Marshaller<T> marshaller) {
    return new io.grpc.MethodDescriptor.Marshaller<>() {
      @Override
      public InputStream stream(T value) {
        return marshaller.stream(value);
      }

      @Override
      public T parse(InputStream stream) {
        return marshaller.parse(stream);
      }
    };
  }

  /** The stream wrappers that carry each library's length and drain markers to the other. */
  static final class MessageStreams {
    private MessageStreams() {}

    static InputStream outbound(InputStream stream) {
      if (stream instanceof io.grpc.KnownLength) {
        return new KnownLengthToTern(stream);
      }
      if (stream instanceof io.grpc.Drainable) {
        return new DrainableToTern(stream);
      }
      return stream;
    }

    static InputStream inbound(InputStream stream) {
      if (stream instanceof dev.tern.KnownLength || stream instanceof ByteArrayInputStream) {
        return new ToGrpc(stream);
      }
      return stream;
    }
  }

  /**
   * A grpc-java message stream whose {@code transferTo}, which Tern's framer drains it with, uses
   * grpc-java's {@code drainTo} when the stream has it.
   */
  static class DrainableToTern extends DelegatingInputStream {
    DrainableToTern(InputStream delegate) {
      super(delegate);
    }

    @Override
    public long transferTo(java.io.OutputStream out) throws java.io.IOException {
      if (delegate instanceof io.grpc.Drainable drainable) {
        return drainable.drainTo(out);
      }
      return delegate.transferTo(out);
    }
  }

  /** A grpc-java message stream of known length as Tern's {@code KnownLength}. */
  static final class KnownLengthToTern extends DrainableToTern implements dev.tern.KnownLength {
    KnownLengthToTern(InputStream delegate) {
      super(delegate);
    }
  }

  /** A Tern message stream of known length as grpc-java's {@code KnownLength}. */
  static final class ToGrpc extends DelegatingInputStream implements io.grpc.KnownLength {
    ToGrpc(InputStream delegate) {
      super(delegate);
    }

    @Override
    public long transferTo(java.io.OutputStream out) throws java.io.IOException {
      return delegate.transferTo(out);
    }
  }
}
