package dev.tern.benchmarks.qps;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Runs another program's {@code main} in this JVM and answers, on a loopback TCP port, with the
 * bytes of heap in use: each connection gets one line at once, the number. With the Epsilon
 * collector (nothing is ever freed) the difference of two answers is what the program allocated in
 * between, which is how {@code bin/bench-compare}'s allocation part measures bytes per call of
 * Tern's and grpc-java's servers alike (the JDK's attach mechanism, which {@code jcmd} needs, is
 * not available everywhere). It allocates only while answering, on its own daemon thread.
 *
 * <p>A connection may then send the line {@code gc}: the probe runs {@link System#gc()} {@value
 * #GC_RUNS} times and answers with the heap in use after them, the live heap (with the Serial,
 * Parallel or G1 collector each is a full collection, unless {@code
 * -XX:+ExplicitGCInvokesConcurrent}); this is how the connections part measures the heap a server
 * holds per idle connection. The probe closes the connection at the end of the client's input or
 * after any other line.
 *
 * <p>{@code java -cp ... dev.tern.benchmarks.qps.HeapUsedProbe MAIN_CLASS [ARGS...]}: prints {@code
 * heap probe listening on port N} first.
 */
public final class HeapUsedProbe {
  /**
   * Full collections before a {@code gc} answer: the second frees what the first left to
   * finalization and reference processing (Netty's pooled buffers' cleaners, for one).
   */
  static final int GC_RUNS = 2;

  /** How long a connection may take to send its request line before the probe gives up on it. */
  private static final int READ_TIMEOUT_MILLIS = 30_000;

  private HeapUsedProbe() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println("usage: HeapUsedProbe MAIN_CLASS [ARGS...]");
      System.exit(2);
    }
    ServerSocket socket = new ServerSocket();
    socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    System.out.println("heap probe listening on port " + socket.getLocalPort());
    System.out.flush();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () ->
                    System.err.println(
                        "heap used at exit: "
                            + ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed()),
                "heap-used-at-exit"));
    Thread answering = new Thread(() -> answer(socket), "heap-used-probe");
    answering.setDaemon(true);
    answering.start();
    Method main = Class.forName(args[0]).getMethod("main", String[].class);
    main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
  }

  private static void answer(ServerSocket socket) {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    while (true) {
      try (Socket client = socket.accept();
          OutputStream out = client.getOutputStream()) {
        client.setSoTimeout(READ_TIMEOUT_MILLIS);
        long used = memory.getHeapMemoryUsage().getUsed();
        out.write((used + "\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        BufferedReader in =
            new BufferedReader(
                new InputStreamReader(client.getInputStream(), StandardCharsets.US_ASCII));
        for (String line = in.readLine(); "gc".equals(line); line = in.readLine()) {
          for (int i = 0; i < GC_RUNS; i++) {
            System.gc();
          }
          used = memory.getHeapMemoryUsage().getUsed();
          out.write((used + "\n").getBytes(StandardCharsets.US_ASCII));
          out.flush();
        }
      } catch (IOException e) {
        System.err.println("heap probe: " + e);
      }
    }
  }
}
