package dev.tern.services.binarylog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.services.binarylog.v1.GrpcLogEntry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Runs the {@link EchoService} calls the binary log tests make, and reads logs back. */
final class TestCalls {
  static final Metadata.Key<String> CLIENT_HEADER =
      Metadata.Key.of("client-header", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<byte[]> CLIENT_BIN =
      Metadata.Key.of("client-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private TestCalls() {}

  /** The request headers every test call sends: {@code client-header: c}, {@code client-bin}. */
  static Metadata requestHeaders() {
    Metadata headers = new Metadata();
    headers.put(CLIENT_HEADER, "c");
    headers.put(CLIENT_BIN, new byte[] {1, 2, 3});
    return headers;
  }

  /** A started call and what it received. */
  static final class Recorded {
    final ClientCall<String, String> call;
    final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    final CompletableFuture<Status> status = new CompletableFuture<>();

    Recorded(Channel channel, MethodDescriptor<String, String> method, CallOptions options) {
      call = channel.newCall(method, options);
      call.start(
          new ClientCall.Listener<>() {
            @Override
            public void onMessage(String message) {
              messages.add(message);
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
              Recorded.this.status.complete(status);
            }
          },
          requestHeaders());
      call.request(Integer.MAX_VALUE);
    }

    String nextMessage() throws InterruptedException {
      String message = messages.poll(5, TimeUnit.SECONDS);
      assertThat(message).as("a response within 5 s").isNotNull();
      return message;
    }

    Status awaitStatus() throws Exception {
      return status.get(5, TimeUnit.SECONDS);
    }
  }

  /** Unary("hello") with a 30 s deadline: returns "hello!". */
  static Status unary(Channel channel) throws Exception {
    Recorded call =
        new Recorded(
            channel,
            EchoService.UNARY,
            CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
    call.call.sendMessage("hello");
    call.call.halfClose();
    assertThat(call.nextMessage()).isEqualTo("hello!");
    return call.awaitStatus();
  }

  /** Chat: "a" then "b", each after the previous answer, then half-close. */
  static Status chat(Channel channel) throws Exception {
    Recorded call = new Recorded(channel, EchoService.CHAT, CallOptions.DEFAULT);
    call.call.sendMessage("a");
    assertThat(call.nextMessage()).isEqualTo("A");
    call.call.sendMessage("b");
    assertThat(call.nextMessage()).isEqualTo("B");
    call.call.halfClose();
    return call.awaitStatus();
  }

  /** Fail("x"): ends INVALID_ARGUMENT. */
  static Status fail(Channel channel) throws Exception {
    Recorded call = new Recorded(channel, EchoService.FAIL, CallOptions.DEFAULT);
    call.call.sendMessage("x");
    call.call.halfClose();
    return call.awaitStatus();
  }

  /** Hang("wait"), cancelled by the client once the server has the request. */
  static Status cancelled(Channel channel, CompletableFuture<Void> serverHasRequest)
      throws Exception {
    Recorded call = new Recorded(channel, EchoService.HANG, CallOptions.DEFAULT);
    call.call.sendMessage("wait");
    serverHasRequest.get(5, TimeUnit.SECONDS);
    call.call.cancel("the test gives up", null);
    return call.awaitStatus();
  }

  /** The entries of a log file, in order. */
  static List<GrpcLogEntry> read(Path file) throws IOException {
    List<GrpcLogEntry> entries = new ArrayList<>();
    try (InputStream in = Files.newInputStream(file)) {
      GrpcLogEntry entry;
      while ((entry = GrpcLogEntry.parseDelimitedFrom(in)) != null) {
        entries.add(entry);
      }
    }
    return entries;
  }

  /** Entries grouped by call, the calls in the order of their first entry. */
  static List<List<GrpcLogEntry>> byCall(List<GrpcLogEntry> entries) {
    Map<Long, List<GrpcLogEntry>> calls = new LinkedHashMap<>();
    for (GrpcLogEntry entry : entries) {
      calls.computeIfAbsent(entry.getCallId(), id -> new ArrayList<>()).add(entry);
    }
    return new ArrayList<>(calls.values());
  }

  /** Each entry as "TYPE sequence", e.g. "CLIENT_HEADER 1". */
  static List<String> events(List<GrpcLogEntry> call) {
    List<String> out = new ArrayList<>();
    for (GrpcLogEntry entry : call) {
      out.add(
          entry.getType().name().substring("EVENT_TYPE_".length())
              + " "
              + entry.getSequenceIdWithinCall());
    }
    return out;
  }
}
