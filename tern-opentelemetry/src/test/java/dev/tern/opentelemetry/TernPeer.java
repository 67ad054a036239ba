package dev.tern.opentelemetry;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerInterceptors;
import dev.tern.ServerServiceDefinition;
import dev.tern.ServerStreamTracer;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCallStreamObserver;
import dev.tern.stub.ServerCalls;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/** Tern's side of the side-by-side tests: {@code sbs.Svc} served and called by Tern over Netty. */
final class TernPeer {
  private static final Metadata.Key<String> TRACEPARENT =
      Metadata.Key.of("traceparent", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> TRACE_BIN =
      Metadata.Key.of("grpc-trace-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private TernPeer() {}

  /** A descriptor as a generated stub has it: marked sampledToLocalTracing. */
  static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
    return MethodDescriptor.newBuilder(TestMarshallers.bytes(), TestMarshallers.bytes())
        .setType(type)
        .setFullMethodName(Peer.fullName(name))
        .setSampledToLocalTracing(true)
        .build();
  }

  static MethodDescriptor<byte[], byte[]> unary(String name) {
    return method(name, MethodDescriptor.MethodType.UNARY);
  }

  static Peer.Server server(TernCleanupExtension cleanup, OpenTelemetry sdk) throws IOException {
    return server(cleanup, sdk, b -> b);
  }

  static Peer.Server server(
      TernCleanupExtension cleanup,
      OpenTelemetry sdk,
      UnaryOperator<GrpcOpenTelemetry.Builder> options)
      throws IOException {
    Peer.Seen seen = new Peer.Seen();
    Peer.ClosedStreams closed = new Peer.ClosedStreams();
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(ServerInterceptors.intercept(service(seen), headerRecorder(seen)));
    options.apply(GrpcOpenTelemetry.newBuilder().sdk(sdk)).build().configureServerBuilder(builder);
    // Added after OpenTelemetry's factory, so its tracer hears of a closed stream after that one.
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
    dev.tern.Server server = cleanup.register(builder.build().start());
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
        }
      }

      @Override
      public String toString() {
        return "Tern server";
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
                (byte[] request, dev.tern.stub.StreamObserver<byte[]> response) -> {
                  ((ServerCallStreamObserver<byte[]>) response).setCompression("gzip");
                  answer(Peer.GZIP_REPLY, seen).invoke(request, response);
                }))
        .addMethod(
            unary(Peer.FAIL),
            ServerCalls.asyncUnaryCall(
                (byte[] request, dev.tern.stub.StreamObserver<byte[]> response) -> {
                  seen.traceIds.put(Peer.FAIL, Span.current().getSpanContext().getTraceId());
                  response.onError(
                      Status.INVALID_ARGUMENT.withDescription("bad thing").asRuntimeException());
                }))
        .addMethod(
            method(Peer.STREAM, MethodDescriptor.MethodType.SERVER_STREAMING),
            ServerCalls.asyncServerStreamingCall(
                (byte[] request, dev.tern.stub.StreamObserver<byte[]> response) -> {
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

  static Peer.Client client(TernCleanupExtension cleanup, OpenTelemetry sdk, int port) {
    ManagedChannelBuilder<?> builder =
        ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext();
    GrpcOpenTelemetry.newBuilder().sdk(sdk).build().configureChannelBuilder(builder);
    ManagedChannel channel = cleanup.register(builder.build());
    return new Peer.Client() {
      @Override
      public String unary(String method, byte[] request, boolean gzip) {
        CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
        if (gzip) {
          options = options.withCompression("gzip");
        }
        try {
          ClientCalls.blockingUnaryCall(channel, TernPeer.unary(method), options, request);
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
                TernPeer.method(method, MethodDescriptor.MethodType.SERVER_STREAMING),
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
        }
      }

      @Override
      public String toString() {
        return "Tern client";
      }
    };
  }
}
