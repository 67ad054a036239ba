package dev.tern.opentelemetry;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.opentelemetry.InternalGrpcOpenTelemetry;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * grpc-java's side of the side-by-side tests: {@code sbs.Svc} served and called by grpc-java
 * (Netty, shaded) with its own grpc-opentelemetry module, tracing on.
 */
final class GrpcJavaPeer {
  private static final Metadata.Key<String> TRACEPARENT =
      Metadata.Key.of("traceparent", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> TRACE_BIN =
      Metadata.Key.of("grpc-trace-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  private GrpcJavaPeer() {}

  /** A descriptor as a generated stub has it: marked sampledToLocalTracing. */
  static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(type)
        .setFullMethodName(Peer.fullName(name))
        .setRequestMarshaller(BYTES)
        .setResponseMarshaller(BYTES)
        .setSampledToLocalTracing(true)
        .build();
  }

  static MethodDescriptor<byte[], byte[]> unary(String name) {
    return method(name, MethodDescriptor.MethodType.UNARY);
  }

  /**
   * grpc-java's module for {@code sdk}, tracing on. grpc-java 1.79 turns tracing on with a JVM-wide
   * flag (its builder's own switch is not public): every test here wants it on.
   */
  static io.grpc.opentelemetry.GrpcOpenTelemetry module(OpenTelemetry sdk) {
    io.grpc.opentelemetry.GrpcOpenTelemetry.Builder builder =
        io.grpc.opentelemetry.GrpcOpenTelemetry.newBuilder().sdk(sdk);
    InternalGrpcOpenTelemetry.enableTracing(builder, true);
    return builder.build();
  }

  static Peer.Server server(OpenTelemetry sdk) throws IOException {
    Peer.Seen seen = new Peer.Seen();
    Peer.ClosedStreams closed = new Peer.ClosedStreams();
    ServerBuilder<?> builder =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(ServerInterceptors.intercept(service(seen), headerRecorder(seen)));
    module(sdk).configureServerBuilder(builder);
    // Added after OpenTelemetry's factories, so its tracer hears of a closed stream after theirs.
    builder.addStreamTracerFactory(
        new ServerStreamTracer.Factory() {
          @Override
          public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
            return new ServerStreamTracer() {
              @Override
              public void streamClosed(Status status) {
                closed.closed();
              }
            };
          }
        });
    io.grpc.Server server = builder.build().start();
    return new Peer.Server() {
      @Override
      public int port() {
        return server.getPort();
      }

      @Override
      public void awaitClosedStreams(int count) throws InterruptedException {
        closed.await(count);
      }

      @Override
      public Map<String, String> handlerTraceIds() {
        return seen.traceIds;
      }

      @Override
      public Map<String, String> tracingHeaders() {
        return seen.headers;
      }

      @Override
      public void close() {
        server.shutdown();
        if (!Peer.terminated(server::awaitTermination)) {
          server.shutdownNow();
          throw new AssertionError("grpc-java server did not terminate");
        }
      }

      @Override
      public String toString() {
        return "grpc-java server";
      }
    };
  }

  private static ServerInterceptor headerRecorder(Peer.Seen seen) {
    return new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
          ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        List<String> found = new ArrayList<>();
        if (headers.get(TRACEPARENT) != null) {
          found.add("traceparent");
        }
        byte[] bin = headers.get(TRACE_BIN);
        if (bin != null) {
          found.add("grpc-trace-bin(" + bin.length + " bytes)");
        }
        seen.headers.put(
            Peer.Seen.methodOf(call.getMethodDescriptor().getFullMethodName()),
            String.join(",", found));
        return next.startCall(call, headers);
      }
    };
  }

  private static ServerServiceDefinition service(Peer.Seen seen) {
    return ServerServiceDefinition.builder(Peer.SERVICE)
        .addMethod(unary(Peer.UNARY), ServerCalls.asyncUnaryCall(answer(Peer.UNARY, seen)))
        .addMethod(unary(Peer.GZIP), ServerCalls.asyncUnaryCall(answer(Peer.GZIP, seen)))
        .addMethod(
            unary(Peer.GZIP_REPLY),
            ServerCalls.asyncUnaryCall(
                (byte[] request, StreamObserver<byte[]> response) -> {
                  ((ServerCallStreamObserver<byte[]>) response).setCompression("gzip");
                  answer(Peer.GZIP_REPLY, seen).invoke(request, response);
                }))
        .addMethod(
            unary(Peer.FAIL),
            ServerCalls.asyncUnaryCall(
                (byte[] request, StreamObserver<byte[]> response) -> {
                  seen.traceIds.put(Peer.FAIL, Span.current().getSpanContext().getTraceId());
                  response.onError(
                      Status.INVALID_ARGUMENT.withDescription("bad thing").asRuntimeException());
                }))
        .addMethod(
            method(Peer.STREAM, MethodDescriptor.MethodType.SERVER_STREAMING),
            ServerCalls.asyncServerStreamingCall(
                (byte[] request, StreamObserver<byte[]> response) -> {
                  seen.traceIds.put(Peer.STREAM, Span.current().getSpanContext().getTraceId());
                  char c = 'a';
                  for (int size : Peer.STREAM_RESPONSE_SIZES) {
                    response.onNext(Peer.filled(size, c++));
                  }
                  response.onCompleted();
                }))
        .build();
  }

  private static ServerCalls.UnaryMethod<byte[], byte[]> answer(String method, Peer.Seen seen) {
    return (request, response) -> {
      seen.traceIds.put(method, Span.current().getSpanContext().getTraceId());
      response.onNext(Peer.filled(Peer.UNARY_RESPONSE_SIZE, 'r'));
      response.onCompleted();
    };
  }

  static Peer.Client client(OpenTelemetry sdk, int port) {
    ManagedChannelBuilder<?> builder = NettyChannelBuilder.forAddress("127.0.0.1", port);
    builder.usePlaintext();
    module(sdk).configureChannelBuilder(builder);
    ManagedChannel channel = builder.build();
    return new Peer.Client() {
      @Override
      public String unary(String method, byte[] request, boolean gzip) {
        CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
        if (gzip) {
          options = options.withCompression("gzip");
        }
        try {
          ClientCalls.blockingUnaryCall(channel, GrpcJavaPeer.unary(method), options, request);
          return "OK";
        } catch (StatusRuntimeException e) {
          return e.getStatus().getCode().name();
        }
      }

      @Override
      public List<Integer> serverStream(String method, byte[] request) {
        Iterator<byte[]> responses =
            ClientCalls.blockingServerStreamingCall(
                channel,
                GrpcJavaPeer.method(method, MethodDescriptor.MethodType.SERVER_STREAMING),
                CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
                request);
        List<Integer> sizes = new ArrayList<>();
        responses.forEachRemaining(r -> sizes.add(r.length));
        return sizes;
      }

      @Override
      public void close() {
        channel.shutdown();
        if (!Peer.terminated(channel::awaitTermination)) {
          channel.shutdownNow();
          throw new AssertionError("grpc-java channel did not terminate");
        }
      }

      @Override
      public String toString() {
        return "grpc-java client";
      }
    };
  }
}
