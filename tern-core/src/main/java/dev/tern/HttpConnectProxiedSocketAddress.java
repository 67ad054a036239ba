package dev.tern;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Objects;

/**
 * A server reached through an HTTP CONNECT proxy: the proxy to connect to, the target the proxy is
 * asked to open a tunnel to ({@code CONNECT host:port}, with the target's host name when it has
 * one, so the proxy may resolve it), and the credentials for the proxy's Basic authentication, if
 * any. What a {@link ProxyDetector} returns; a name resolver may also report it as an address.
 *
 * <p>Immutable; thread-safe. The password is left out of {@link #toString()}.
 */
public final class HttpConnectProxiedSocketAddress extends SocketAddress {
  private static final long serialVersionUID = 1L;

  private final InetSocketAddress proxyAddress;
  private final InetSocketAddress targetAddress;
  private final String username;
  private final String password;

  private HttpConnectProxiedSocketAddress(Builder builder) {
    this.proxyAddress = Objects.requireNonNull(builder.proxyAddress, "proxyAddress");
    this.targetAddress = Objects.requireNonNull(builder.targetAddress, "targetAddress");
    if (builder.username == null && builder.password != null) {
      throw new IllegalArgumentException("password is set but username is not");
    }
    if (builder.username != null && builder.username.indexOf(':') >= 0) {
      // RFC 7617: Basic authentication's user-id cannot hold a colon.
      throw new IllegalArgumentException("username must not contain ':' (Basic authentication)");
    }
    this.username = builder.username;
    this.password = builder.password;
  }

  /** A builder; the proxy and target addresses are required. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** The proxy to connect to (an unresolved address is looked up when connecting). */
  public InetSocketAddress getProxyAddress() {
    return proxyAddress;
  }

  /** The server the proxy is asked to connect to; often unresolved (a host name and a port). */
  public InetSocketAddress getTargetAddress() {
    return targetAddress;
  }

  /** The user name for the proxy's Basic authentication, or null for none. */
  public String getUsername() {
    return username;
  }

  /**
   * The password for the proxy's Basic authentication, or null for none (with a user name, an empty
   * password is sent).
   */
  public String getPassword() {
    return password;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HttpConnectProxiedSocketAddress that
        && proxyAddress.equals(that.proxyAddress)
        && targetAddress.equals(that.targetAddress)
        && Objects.equals(username, that.username)
        && Objects.equals(password, that.password);
  }

  @Override
  public int hashCode() {
    return Objects.hash(proxyAddress, targetAddress, username, password);
  }

  /** The target and the proxy, e.g. {@code example.com:443 via proxy /10.0.0.1:3128}. */
  @Override
  public String toString() {
    return targetAddress.getHostString()
        + ":"
        + targetAddress.getPort()
        + " via proxy "
        + proxyAddress
        + (username == null ? "" : " (as " + username + ")");
  }

  /** Builds {@link HttpConnectProxiedSocketAddress}. Not thread-safe. */
  public static final class Builder {
    private InetSocketAddress proxyAddress;
    private InetSocketAddress targetAddress;
    private String username;
    private String password;

    private Builder() {}

    /** The proxy to connect to. Required. */
    public Builder setProxyAddress(InetSocketAddress proxyAddress) {
      this.proxyAddress = Objects.requireNonNull(proxyAddress, "proxyAddress");
      return this;
    }

    /** The server to reach through the proxy. Required. */
    public Builder setTargetAddress(InetSocketAddress targetAddress) {
      this.targetAddress = Objects.requireNonNull(targetAddress, "targetAddress");
      return this;
    }

    /** The user name for Basic authentication; null (the default) for none. */
    public Builder setUsername(String username) {
      this.username = username;
      return this;
    }

    /** The password for Basic authentication; null (the default) for none. */
    public Builder setPassword(String password) {
      this.password = password;
      return this;
    }

    /**
     * @throws NullPointerException if the proxy or target address is missing
     * @throws IllegalArgumentException if a password is set without a username, or the username
     *     contains {@code ':'}
     */
    public HttpConnectProxiedSocketAddress build() {
      return new HttpConnectProxiedSocketAddress(this);
    }
  }
}
