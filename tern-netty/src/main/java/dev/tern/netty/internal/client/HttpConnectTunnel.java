package dev.tern.netty.internal.client;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;

import dev.tern.HttpConnectProxiedSocketAddress;
import dev.tern.Status;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.PendingWriteQueue;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Opens an HTTP CONNECT tunnel through a proxy (gRFC A1, RFC 9110 section 9.3.6), first in a client
 * connection's pipeline: when the connection to the proxy is up it sends {@code CONNECT host:port
 * HTTP/1.1} (with {@code Proxy-Authorization: Basic} when the address has credentials) and holds
 * back the connection's activation from the handlers behind it (TLS, HTTP/2) and their writes; on a
 * 2xx answer it leaves the pipeline, and they start as on a direct connection, any bytes that came
 * after the answer handed on. Any other answer, none within the time left of the connect timeout, a
 * malformed or oversized answer, or the proxy closing first: {@code onFailure} hears an UNAVAILABLE
 * status naming the proxy, the target and what happened, and the connection is closed.
 *
 * <p>Event loop only: one per connection.
 */
final class HttpConnectTunnel extends ChannelDuplexHandler {
  private final HttpConnectProxiedSocketAddress address;
  private final long deadlineNanos;
  private final Consumer<Status> onFailure;
  private final HttpConnectResponse response = new HttpConnectResponse();
  private final String target;

  private PendingWriteQueue held;
  private ScheduledFuture<?> timeout;
  private boolean open;
  private boolean failed;

  /**
   * @param deadlineNanos when, on {@link System#nanoTime()}, the proxy must have answered
   * @param onFailure hears why the tunnel failed, before the connection closes
   */
  HttpConnectTunnel(
      HttpConnectProxiedSocketAddress address, long deadlineNanos, Consumer<Status> onFailure) {
    this.address = address;
    this.deadlineNanos = deadlineNanos;
    this.onFailure = onFailure;
    this.target = authority(address.getTargetAddress());
  }

  /** {@code host:port} for the request line and Host, IPv6 literals in brackets. */
  static String authority(InetSocketAddress target) {
    String host = target.getHostString();
    if (host.indexOf(':') >= 0 && !host.startsWith("[")) {
      host = "[" + host + "]";
    }
    return host + ":" + target.getPort();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    held = new PendingWriteQueue(ctx);
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    // Not passed on: TLS and HTTP/2 start when the tunnel is open.
    StringBuilder request =
        new StringBuilder(128)
            .append("CONNECT ")
            .append(target)
            .append(" HTTP/1.1\r\nHost: ")
            .append(target)
            .append("\r\n");
    if (address.getUsername() != null) {
      String password = address.getPassword() == null ? "" : address.getPassword();
      request
          .append("Proxy-Authorization: Basic ")
          .append(
              Base64.getEncoder()
                  .encodeToString((address.getUsername() + ":" + password).getBytes(UTF_8)))
          .append("\r\n");
    }
    request.append("\r\n");
    ctx.writeAndFlush(Unpooled.wrappedBuffer(request.toString().getBytes(ISO_8859_1)));
    long left = Math.max(1, deadlineNanos - System.nanoTime());
    timeout =
        ctx.executor()
            .schedule(
                () ->
                    fail(
                        ctx,
                        "did not answer CONNECT "
                            + target
                            + " within "
                            + TimeUnit.NANOSECONDS.toMillis(left)
                            + " ms (the connect timeout)"),
                left,
                TimeUnit.NANOSECONDS);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (open) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (failed || !(msg instanceof ByteBuf in)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    boolean complete;
    try {
      complete = response.read(in);
    } catch (IllegalStateException e) {
      in.release();
      fail(ctx, e.getMessage());
      return;
    }
    if (!complete) {
      in.release();
      return;
    }
    int code = response.statusCode();
    if (code < 200 || code > 299) {
      in.release();
      fail(ctx, refusal(code));
      return;
    }
    open = true;
    timeout.cancel(false);
    held.removeAndWriteAll();
    ctx.fireChannelActive();
    if (in.isReadable()) {
      ctx.fireChannelRead(in);
    } else {
      in.release();
    }
    ctx.flush();
    ctx.pipeline().remove(this);
  }

  private String refusal(int code) {
    String what = "refused to open a tunnel to " + target + ": " + response.statusLine();
    if (code == 407) {
      return what
          + (address.getUsername() == null
              ? " (the proxy wants credentials; none were configured)"
              : " (the proxy did not accept the credentials of " + address.getUsername() + ")");
    }
    return what;
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (open) {
      ctx.write(msg, promise);
      return;
    }
    if (failed) {
      ReferenceCountUtil.release(msg);
      promise.setFailure(new IllegalStateException("the tunnel through the proxy failed"));
      return;
    }
    held.add(msg, promise); // written once the tunnel is open
  }

  @Override
  public void flush(ChannelHandlerContext ctx) {
    if (open) {
      ctx.flush();
    }
    // Otherwise nothing of the handlers behind is sent before the tunnel is open.
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (!open) {
      fail(ctx, "closed the connection before answering CONNECT " + target);
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (open || failed) {
      ctx.fireExceptionCaught(cause);
      return;
    }
    fail(ctx, "failed while opening a tunnel to " + target + ": " + cause);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    if (timeout != null) {
      timeout.cancel(false);
    }
    if (!held.isEmpty()) {
      held.removeAndFailAll(new IllegalStateException("the tunnel through the proxy failed"));
    }
  }

  private void fail(ChannelHandlerContext ctx, String problem) {
    if (open || failed) {
      return;
    }
    failed = true;
    if (timeout != null) {
      timeout.cancel(false);
    }
    held.removeAndFailAll(new IllegalStateException("the tunnel through the proxy failed"));
    onFailure.accept(
        Status.UNAVAILABLE.withDescription("HTTP CONNECT proxy " + proxyName() + " " + problem));
    ctx.close();
  }

  private String proxyName() {
    InetSocketAddress proxy = address.getProxyAddress();
    return authority(
        proxy.isUnresolved()
            ? proxy
            : InetSocketAddress.createUnresolved(
                proxy.getAddress().getHostAddress(), proxy.getPort()));
  }
}
