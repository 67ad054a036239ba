package dev.tern.benchmarks.qps;

import java.io.IOException;
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
 * bytes of heap in use: each connection gets one line, the number, and is closed. With the Epsilon
 * collector (nothing is ever freed) the difference of two answers is what the program allocated in
 * between, which is how {@code bin/bench-compare}'s allocation part measures bytes per call of
 * Tern's and grpc-java's servers alike (the JDK's attach mechanism, which {@code jcmd} needs, is
 * not available everywhere). It allocates only while answering, on its own daemon thread.
 *
 * <p>{@code java -cp ... dev.tern.benchmarks.qps.HeapUsedProbe MAIN_CLASS [ARGS...]}: prints {@code
 * heap probe listening on port N} first.
 */
public final class HeapUsedProbe {
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
        long used = memory.getHeapMemoryUsage().getUsed();
        out.write((used + "\n").getBytes(StandardCharsets.US_ASCII));
      } catch (IOException e) {
        System.err.println("heap probe: " + e);
      }
    }
  }
}
