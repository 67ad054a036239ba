package dev.tern.services.binarylog;

import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.ServerCall;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.protobuf.StatusProto;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * The service the binary log tests call, {@code test.Echo}, with UTF-8 string messages:
 *
 * <ul>
 *   <li>{@code Unary}: answers "request!" at half-close, with a response header and a trailer;
 *   <li>{@code Chat} (bidi): answers each message in upper case (headers with the first answer),
 *       ends OK at half-close;
 *   <li>{@code Fail}: ends INVALID_ARGUMENT with rich details and a trailer, without headers;
 *   <li>{@code Hang}: never answers; {@link #hangStarted} completes when its request arrives,
 *       {@link #hangCancelled} when it is cancelled.
 * </ul>
 *
 * {@code GrpcJavaEchoService} is the same service on grpc-java's API.
 */
final class EchoService {
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

  static final Metadata.Key<String> RESPONSE_HEADER =
      Metadata.Key.of("echo-header", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> RESPONSE_TRAILER =
      Metadata.Key.of("echo-trailer", Metadata.ASCII_STRING_MARSHALLER);

  /** The rich error Fail ends with. */
  static final com.google.rpc.Status FAIL_DETAILS =
      com.google.rpc.Status.newBuilder()
          .setCode(Status.Code.INVALID_ARGUMENT.value())
          .setMessage("bad request")
          .build();

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
        .addMethod(UNARY, EchoService::unary)
        .addMethod(CHAT, EchoService::chat)
        .addMethod(FAIL, EchoService::fail)
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
        Status status = StatusProto.toStatusRuntimeException(FAIL_DETAILS).getStatus();
        Metadata trailers = StatusProto.toStatusRuntimeException(FAIL_DETAILS).getTrailers();
        trailers.put(RESPONSE_TRAILER, "f");
        call.close(status, trailers);
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
