package dev.tern.netty.testing;

import dev.tern.Status;
import dev.tern.netty.http.HttpBodyListener;
import dev.tern.netty.http.HttpExchange;
import dev.tern.netty.http.HttpRequestHead;
import dev.tern.netty.http.HttpServerProtocol;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A protocol for tests of the {@code dev.tern.netty.http} seam: {@code GET /hello} answers {@code
 * hello h2} or {@code hello http/1.1}; a POST with {@code content-type: text/echo} answers its body
 * back (consuming each part as it arrives, so the transport's inbound window keeps moving), with
 * {@code x-received} giving the byte count; {@code text/count} answers only {@code received N}.
 * Aborts it hears are queued in {@link #aborts}.
 *
 * <p>Thread-safe: shared by every connection; each exchange's state stays on its event loop.
 */
public final class EchoHttpProtocol implements HttpServerProtocol {
  /** Every {@code onAbort} status, in order. */
  public final LinkedBlockingQueue<Status> aborts = new LinkedBlockingQueue<>();

  @Override
  public boolean handles(HttpRequestHead request) {
    return "GET".equals(request.method()) && "/hello".equals(request.path())
        || "POST".equals(request.method())
            && ("text/echo".equals(request.header("content-type"))
                || "text/count".equals(request.header("content-type")));
  }

  @Override
  public HttpBodyListener serve(HttpExchange exchange) {
    if ("GET".equals(exchange.request().method())) {
      HttpHeaders headers = new DefaultHttpHeaders().add("content-type", "text/plain");
      exchange.writeHead(200, headers, false);
      String text = "hello " + (exchange.request().isHttp2() ? "h2" : "http/1.1");
      exchange.writeBody(ByteBufUtil.writeAscii(exchange.alloc(), text), true);
      return new Discard(exchange, aborts);
    }
    return new Echo(
        exchange, aborts, "text/count".equals(exchange.request().header("content-type")));
  }

  @Override
  public String toString() {
    return "echo";
  }

  private static class Discard implements HttpBodyListener {
    final HttpExchange exchange;
    final LinkedBlockingQueue<Status> aborts;

    Discard(HttpExchange exchange, LinkedBlockingQueue<Status> aborts) {
      this.exchange = exchange;
      this.aborts = aborts;
    }

    @Override
    public void onData(ByteBuf data, boolean endOfStream) {
      exchange.consumed(data.readableBytes());
      data.release();
    }

    @Override
    public void onAbort(Status status) {
      aborts.add(status);
    }
  }

  private static final class Echo extends Discard {
    private final CompositeByteBuf body;
    private final boolean countOnly;

    Echo(HttpExchange exchange, LinkedBlockingQueue<Status> aborts, boolean countOnly) {
      super(exchange, aborts);
      this.countOnly = countOnly;
      body = exchange.alloc().compositeBuffer(Integer.MAX_VALUE);
    }

    @Override
    public void onData(ByteBuf data, boolean endOfStream) {
      int bytes = data.readableBytes();
      body.addComponent(true, data);
      exchange.consumed(bytes);
      if (endOfStream) {
        HttpHeaders headers =
            new DefaultHttpHeaders()
                .add("content-type", "text/echo")
                .add("x-received", Integer.toString(body.readableBytes()));
        exchange.writeHead(200, headers, false);
        if (countOnly) {
          String count = "received " + body.readableBytes();
          body.release();
          exchange.writeBody(ByteBufUtil.writeAscii(exchange.alloc(), count), true);
        } else {
          exchange.writeBody(body, true);
        }
      }
    }

    @Override
    public void onAbort(Status status) {
      body.release();
      super.onAbort(status);
    }
  }
}
