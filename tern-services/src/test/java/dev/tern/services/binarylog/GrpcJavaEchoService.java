package dev.tern.services.binarylog;

import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/** {@link EchoService} on grpc-java's API, event for event, and its client-side descriptors. */
final class GrpcJavaEchoService {
  static final MethodDescriptor.Marshaller<String> UTF8 =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
          return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
          try {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  static final MethodDescriptor<String, String> UNARY =
      method("Unary", MethodDescriptor.MethodType.UNARY);
  static final MethodDescriptor<String, String> CHAT =
      method("Chat", MethodDescriptor.MethodType.BIDI_STREAMING);
  static final MethodDescriptor<String, String> FAIL =
      method("Fail", MethodDescriptor.MethodType.UNARY);
  static final MethodDescriptor<String, String> HANG =
      method("Hang", MethodDescriptor.MethodType.BIDI_STREAMING);

  private static final Metadata.Key<String> RESPONSE_HEADER =
      Metadata.Key.of("echo-header", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> RESPONSE_TRAILER =
      Metadata.Key.of("echo-trailer", Metadata.ASCII_STRING_MARSHALLER);

  final CompletableFuture<Void> hangStarted = new CompletableFuture<>();
  final CompletableFuture<Void> hangCancelled = new CompletableFuture<>();

  private static MethodDescriptor<String, String> method(
      String name, MethodDescriptor.MethodType type) {
    return MethodDescriptor.newBuilder(UTF8, UTF8)
        .setType(type)
        .setFullMethodName("test.Echo/" + name)
        .build();
  }

  ServerServiceDefinition definition() {
    return ServerServiceDefinition.builder("test.Echo")
        .addMethod(UNARY, GrpcJavaEchoService::unary)
        .addMethod(CHAT, GrpcJavaEchoService::chat)
        .addMethod(FAIL, GrpcJavaEchoService::fail)
        .addMethod(HANG, this::hang)
        .build();
  }

  private static ServerCall.Listener<String> unary(
      ServerCall<String, String> call, Metadata headers) {
    call.request(2);
    return new ServerCall.Listener<>() {
      String request;

      @Override
      public void onMessage(String message) {
        request = message;
      }

      @Override
      public void onHalfClose() {
        Metadata responseHeaders = new Metadata();
        responseHeaders.put(RESPONSE_HEADER, "h");
        call.sendHeaders(responseHeaders);
        call.sendMessage(request + "!");
        Metadata trailers = new Metadata();
        trailers.put(RESPONSE_TRAILER, "t");
        call.close(Status.OK, trailers);
      }
    };
  }

  private static ServerCall.Listener<String> chat(
      ServerCall<String, String> call, Metadata headers) {
    call.request(1);
    return new ServerCall.Listener<>() {
      boolean sentHeaders;

      @Override
      public void onMessage(String message) {
        if (!sentHeaders) {
          sentHeaders = true;
          call.sendHeaders(new Metadata());
        }
        call.sendMessage(message.toUpperCase(Locale.ROOT));
        call.request(1);
      }

      @Override
      public void onHalfClose() {
        call.close(Status.OK, new Metadata());
      }
    };
  }

  private static ServerCall.Listener<String> fail(
      ServerCall<String, String> call, Metadata headers) {
    call.request(2);
    return new ServerCall.Listener<>() {
      @Override
      public void onHalfClose() {
        io.grpc.StatusRuntimeException e =
            StatusProto.toStatusRuntimeException(EchoService.FAIL_DETAILS);
        Metadata trailers = e.getTrailers();
        trailers.put(RESPONSE_TRAILER, "f");
        call.close(e.getStatus(), trailers);
      }
    };
  }

  private ServerCall.Listener<String> hang(ServerCall<String, String> call, Metadata headers) {
    call.request(2);
    return new ServerCall.Listener<>() {
      @Override
      public void onMessage(String message) {
        hangStarted.complete(null);
      }

      @Override
      public void onCancel() {
        hangCancelled.complete(null);
      }
    };
  }
}
