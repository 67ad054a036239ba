package dev.tern.benchmarks.vertx;

import com.google.protobuf.ByteString;
import dev.tern.interop.testing.Payload;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;

/**
 * grpc.testing.BenchmarkService's two methods the qps tools call, as Vert.x gRPC service methods
 * (protobuf messages from tern-interop's {@code messages.proto}), and the messages both sides send.
 * Immutable constants; thread-safe.
 */
final class BenchmarkMethods {
  static final ServiceName SERVICE = ServiceName.create("grpc.testing", "BenchmarkService");

  static final ServiceMethod<SimpleRequest, SimpleResponse> UNARY_SERVER = server("UnaryCall");
  static final ServiceMethod<SimpleRequest, SimpleResponse> STREAMING_SERVER =
      server("StreamingCall");
  static final ServiceMethod<SimpleResponse, SimpleRequest> UNARY_CLIENT = client("UnaryCall");
  static final ServiceMethod<SimpleResponse, SimpleRequest> STREAMING_CLIENT =
      client("StreamingCall");

  private BenchmarkMethods() {}

  private static ServiceMethod<SimpleRequest, SimpleResponse> server(String method) {
    return ServiceMethod.server(
        SERVICE,
        method,
        GrpcMessageEncoder.encoder(),
        GrpcMessageDecoder.decoder(SimpleRequest.getDefaultInstance()));
  }

  private static ServiceMethod<SimpleResponse, SimpleRequest> client(String method) {
    return ServiceMethod.client(
        SERVICE,
        method,
        GrpcMessageEncoder.encoder(),
        GrpcMessageDecoder.decoder(SimpleResponse.getDefaultInstance()));
  }

  /**
   * The qps clients' request: {@code clientPayload} zero bytes, asking for {@code serverPayload}.
   */
  static SimpleRequest request(int clientPayload, int serverPayload) {
    return SimpleRequest.newBuilder()
        .setResponseSize(serverPayload)
        .setPayload(Payload.newBuilder().setBody(ByteString.copyFrom(new byte[clientPayload])))
        .build();
  }

  /** The qps servers' answer: a payload of {@code response_size} zero bytes. */
  static SimpleResponse response(int size) {
    return SimpleResponse.newBuilder()
        .setPayload(Payload.newBuilder().setBody(ByteString.copyFrom(new byte[size])))
        .build();
  }
}
