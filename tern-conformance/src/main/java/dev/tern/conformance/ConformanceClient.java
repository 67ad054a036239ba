package dev.tern.conformance;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import com.google.protobuf.ByteString;
import dev.tern.ManagedChannel;
import dev.tern.TlsChannelCredentials;
import dev.tern.conformance.v1.ClientCompatRequest;
import dev.tern.conformance.v1.ClientCompatResponse;
import dev.tern.conformance.v1.ClientErrorResult;
import dev.tern.conformance.v1.HTTPVersion;
import dev.tern.conformance.v1.Protocol;
import dev.tern.conformance.v1.TLSCreds;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettySslContexts;
import java.io.BufferedInputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Tern's client under test for the Connect conformance suite's client mode ({@code
 * connectconformance --mode client}): reads {@link ClientCompatRequest}s from stdin until it ends,
 * makes each call with Tern's gRPC client over HTTP/2 (plaintext or TLS), and writes a {@link
 * ClientCompatResponse} for each to stdout as it completes (the runner matches them by test name).
 * Exits 0 once every call has been reported; 1 if the input cannot be read.
 *
 * <p>Only the gRPC protocol is spoken (Tern's client has no other), with the proto codec: a request
 * for anything else is answered with an error result, which the runner counts as a failure, so the
 * configuration (src/test/resources/client-config.yaml) claims only what is supported.
 */
public final class ConformanceClient {
  /**
   * Calls in flight at once: the runner sends every case up front, and a few cases wait seconds
   * (delays, timeouts) on a blocked thread; more would only contend on the test machine's cores.
   */
  static final int PARALLEL_CALLS = 32;

  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread thread = new Thread(r, "conformance-client-cancel");
            thread.setDaemon(true);
            return thread;
          });

  /** Channels by server and credentials; the runner starts several reference servers. */
  @GuardedBy("this")
  private final Map<ChannelKey, ManagedChannel> channels = new HashMap<>();

  private ConformanceClient() {}

  /** Entry point: stdin and stdout carry the runner's messages, so logs go to stderr only. */
  public static void main(String[] args) throws Exception {
    OutputStream protocolOut = new FileOutputStream(FileDescriptor.out);
    // Nothing else may write to stdout: a stray line would corrupt the message stream.
    System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
    System.exit(new ConformanceClient().run(new BufferedInputStream(System.in), protocolOut));
  }

  /** Runs every case read from {@code in}, answering on {@code out}; returns the exit status. */
  int run(InputStream in, OutputStream out) throws InterruptedException {
    ExecutorService calls = Executors.newFixedThreadPool(PARALLEL_CALLS);
    List<Future<?>> running = new ArrayList<>();
    int status = 0;
    try {
      ClientCompatRequest request;
      while ((request = DelimitedMessages.read(in, ClientCompatRequest.parser())) != null) {
        ClientCompatRequest call = request;
        running.add(calls.submit(() -> answer(call, out)));
      }
    } catch (IOException e) {
      System.err.println("conformance client: cannot read the runner's requests: " + e);
      status = 1;
    }
    for (Future<?> future : running) {
      try {
        future.get();
      } catch (ExecutionException e) {
        System.err.println("conformance client: a case failed to report: " + e.getCause());
        status = 1;
      }
    }
    calls.shutdownNow();
    scheduler.shutdownNow();
    closeChannels();
    return status;
  }

  private Void answer(ClientCompatRequest request, OutputStream out)
      throws IOException, InterruptedException {
    ClientCompatResponse response;
    String unsupported = unsupported(request);
    if (unsupported != null) {
      response =
          ClientCompatResponse.newBuilder()
              .setTestName(request.getTestName())
              .setError(ClientErrorResult.newBuilder().setMessage(unsupported))
              .build();
    } else {
      ManagedChannel channel;
      try {
        channel = channel(request);
      } catch (RuntimeException e) {
        channel = null;
        unsupported = "cannot build a channel: " + e.getMessage();
      }
      response =
          channel == null
              ? ClientCompatResponse.newBuilder()
                  .setTestName(request.getTestName())
                  .setError(ClientErrorResult.newBuilder().setMessage(unsupported))
                  .build()
              : new ClientCase(request, channel, scheduler).run();
    }
    synchronized (out) {
      DelimitedMessages.write(out, response);
    }
    return null;
  }

  /** Why Tern's client cannot make this call, or null if it can. */
  private static String unsupported(ClientCompatRequest request) {
    if (request.getProtocol() != Protocol.PROTOCOL_GRPC) {
      return "Tern's client speaks only the gRPC protocol, not " + request.getProtocol();
    }
    if (request.getHttpVersion() != HTTPVersion.HTTP_VERSION_2) {
      return "Tern's client speaks only HTTP/2, not " + request.getHttpVersion();
    }
    switch (request.getCodec()) {
      case CODEC_PROTO:
      case CODEC_UNSPECIFIED:
        break;
      default:
        return "Tern's client uses only the proto codec, not " + request.getCodec();
    }
    if (request.hasRawRequest()) {
      return "raw_request is for the reference client only";
    }
    return null;
  }

  private synchronized ManagedChannel channel(ClientCompatRequest request) {
    ChannelKey key =
        new ChannelKey(
            request.getHost(),
            request.getPort(),
            request.getServerTlsCert(),
            request.hasClientTlsCreds() ? request.getClientTlsCreds() : null);
    ManagedChannel channel = channels.get(key);
    if (channel == null) {
      channel = key.build();
      channels.put(key, channel);
    }
    return channel;
  }

  private void closeChannels() throws InterruptedException {
    List<ManagedChannel> all;
    synchronized (this) {
      all = new ArrayList<>(channels.values());
      channels.clear();
    }
    for (ManagedChannel channel : all) {
      channel.shutdownNow();
    }
    for (ManagedChannel channel : all) {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /** A channel's server and credentials: what decides whether a channel can be shared. */
  private record ChannelKey(String host, int port, ByteString serverCert, TLSCreds clientCreds) {
    ManagedChannel build() {
      NettyChannelBuilder builder = NettyChannelBuilder.forAddress(host, port);
      if (serverCert.isEmpty()) {
        return builder.usePlaintext().build();
      }
      try {
        TlsChannelCredentials.Builder tls =
            TlsChannelCredentials.newBuilder().trustManager(serverCert.newInput());
        if (clientCreds != null) {
          tls.keyManager(clientCreds.getCert().newInput(), clientCreds.getKey().newInput());
        }
        return builder.sslContext(NettySslContexts.forClient(tls.build())).build();
      } catch (IOException e) {
        throw new IllegalArgumentException("bad TLS material: " + e.getMessage(), e);
      }
    }
  }
}
