package dev.tern.netty.testing;

import dev.tern.Status;
import dev.tern.netty.http.HttpBodyListener;
import dev.tern.netty.http.HttpExchange;
import dev.tern.netty.http.HttpRequestHead;
import dev.tern.netty.http.HttpServerProtocol;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A protocol for tests of the {@code dev.tern.netty.http} seam whose exchanges the test drives:
 * {@code GET /held} and any POST with {@code content-type: text/held} are queued in {@link
 * #exchanges}; each consumes its body and answers only when the test says so, and records the most
 * body bytes it held unconsumed at once.
 *
 * <p>Thread-safe: the test thread calls {@link Held}'s methods, which hop to the exchange's event
 * loop; the listener callbacks run there.
 */
public final class HeldHttpProtocol implements HttpServerProtocol {
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  /** The exchanges served, in order. */
  public final LinkedBlockingQueue<Held> exchanges = new LinkedBlockingQueue<>();

  @Override
  public boolean handles(HttpRequestHead request) {
    return "GET".equals(request.method()) && "/held".equals(request.path())
        || "POST".equals(request.method()) && "text/held".equals(request.header("content-type"));
  }

  @Override
  public HttpBodyListener serve(HttpExchange exchange) {
    Held held = new Held(exchange);
    exchanges.add(held);
    return held;
  }

  /** The next exchange served, waiting for it. */
  public Held next() throws InterruptedException {
    Held held = exchanges.poll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    if (held == null) {
      throw new AssertionError("no exchange reached the protocol in " + TIMEOUT);
    }
    return held;
  }

  @Override
  public String toString() {
    return "held";
  }

  /** One exchange, driven by the test. */
  public static final class Held implements HttpBodyListener {
    private final HttpExchange exchange;

    /** Completes when the body's last part arrives. */
    public final CompletableFuture<Long> bodyEnded = new CompletableFuture<>();

    /** Completes with the status of {@code onAbort}. */
    public final CompletableFuture<Status> aborted = new CompletableFuture<>();

    // Guarded by this: written on the event loop, read by the test.
    private long received;
    private long unconsumed;
    private long mostUnconsumed;

    Held(HttpExchange exchange) {
      this.exchange = exchange;
    }

    public HttpExchange exchange() {
      return exchange;
    }

    @Override
    public void onData(ByteBuf data, boolean endOfStream) {
      synchronized (this) {
        received += data.readableBytes();
        unconsumed += data.readableBytes();
        mostUnconsumed = Math.max(mostUnconsumed, unconsumed);
        if (endOfStream) {
          bodyEnded.complete(received); // before the wake-up, which awaitUnconsumed checks it on
        }
        notifyAll();
      }
      data.release();
    }

    @Override
    public void onAbort(Status status) {
      aborted.complete(status);
    }

    public synchronized long received() {
      return received;
    }

    /** The most body bytes delivered and not yet consumed, at any moment so far. */
    public synchronized long mostUnconsumed() {
      return mostUnconsumed;
    }

    /** Waits until at least {@code bytes} are held unconsumed, or the body has ended. */
    public synchronized void awaitUnconsumed(long bytes) throws InterruptedException {
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (unconsumed < bytes && !bodyEnded.isDone()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError(
              "held " + unconsumed + " bytes unconsumed, waited for " + bytes + " in " + TIMEOUT);
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }

    /** Returns every byte held to the exchange's inbound window. */
    public void consumeAll() throws Exception {
      onEventLoop(
          () -> {
            int bytes;
            synchronized (this) {
              bytes = (int) unconsumed;
              unconsumed = 0;
            }
            exchange.consumed(bytes);
          });
    }

    /** Answers 200 with {@code text} as the whole body; returns once it left. */
    public void respond(String text) throws Exception {
      CompletableFuture<Void> written = new CompletableFuture<>();
      onEventLoop(
          () -> {
            exchange.writeHead(
                200, new DefaultHttpHeaders().add("content-type", "text/plain"), false);
            exchange
                .writeBody(ByteBufUtil.writeAscii(exchange.alloc(), text), true)
                .addListener(
                    f -> {
                      if (f.isSuccess()) {
                        written.complete(null);
                      } else {
                        written.completeExceptionally(f.cause());
                      }
                    });
          });
      written.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Answers 200 and streams {@code parts} as separate writes, the last ending the response. */
    public void respondInParts(String... parts) throws Exception {
      onEventLoop(
          () -> {
            exchange.writeHead(
                200, new DefaultHttpHeaders().add("content-type", "text/plain"), false);
            for (int i = 0; i < parts.length; i++) {
              exchange.writeBody(
                  ByteBufUtil.writeAscii(exchange.alloc(), parts[i]), i == parts.length - 1);
              exchange.flush();
            }
          });
    }

    /** Gives the exchange up, as a protocol whose call failed would. */
    public void abort() throws Exception {
      onEventLoop(exchange::abort);
    }

    private void onEventLoop(Runnable task) throws Exception {
      exchange.eventLoop().submit(task).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
  }
}
