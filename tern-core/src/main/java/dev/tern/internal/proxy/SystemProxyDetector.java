package dev.tern.internal.proxy;

import dev.tern.HttpConnectProxiedSocketAddress;
import dev.tern.ProxyDetector;
import dev.tern.internal.AddressLiterals;
import java.io.IOException;
import java.net.Authenticator;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PasswordAuthentication;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The default {@link ProxyDetector}, asked in this order:
 *
 * <ol>
 *   <li>a loopback target ({@code localhost}, names under {@code .localhost}, {@code 127.0.0.0/8},
 *       {@code ::1}) is never proxied;
 *   <li>the environment, as grpc-go reads it ({@link ProxyEnvironment}): when {@code HTTPS_PROXY}
 *       (or {@code https_proxy}) is set, it decides alone: the target goes through that proxy
 *       unless {@code NO_PROXY} (or {@code no_proxy}) exempts it;
 *   <li>otherwise the JVM's {@link ProxySelector#getDefault()}, as grpc-java asks it, for the URI
 *       {@code https://host:port}: its first answer, if an HTTP proxy (the JDK's default selector
 *       reads {@code https.proxyHost}, {@code https.proxyPort} and {@code http.nonProxyHosts}, and
 *       with {@code java.net.useSystemProxies=true} the operating system's settings).
 * </ol>
 *
 * <p>Credentials for the proxy's Basic authentication come from the proxy URL's user and password,
 * else from {@link Authenticator#requestPasswordAuthentication} asked for a {@link
 * Authenticator.RequestorType#PROXY proxy} (the default authenticator, when the application set
 * one). The proxy's name is looked up here, so that the transport gets an address; a name that does
 * not resolve is an {@link IOException} naming the proxy.
 *
 * <p>Immutable; thread-safe. {@link #proxyFor} may block (see the package doc).
 */
public final class SystemProxyDetector implements ProxyDetector {
  private static final SystemProxyDetector DEFAULT =
      new SystemProxyDetector(
          System.getenv(), ProxySelector::getDefault, SystemProxyDetector::askAuthenticator);

  /** Asks for the proxy's credentials; null when there are none. */
  @FunctionalInterface
  interface Passwords {
    PasswordAuthentication request(String host, InetAddress address, int port);
  }

  /** Looks up a proxy's name. */
  @FunctionalInterface
  interface Lookup {
    InetAddress resolve(String host) throws UnknownHostException;
  }

  private final Map<String, String> env;
  private final Supplier<ProxySelector> selector;
  private final Passwords passwords;
  private final Lookup lookup;

  SystemProxyDetector(
      Map<String, String> env, Supplier<ProxySelector> selector, Passwords passwords) {
    this(env, selector, passwords, InetAddress::getByName);
  }

  SystemProxyDetector(
      Map<String, String> env,
      Supplier<ProxySelector> selector,
      Passwords passwords,
      Lookup lookup) {
    this.env = Map.copyOf(Objects.requireNonNull(env, "env"));
    this.selector = Objects.requireNonNull(selector, "selector");
    this.passwords = Objects.requireNonNull(passwords, "passwords");
    this.lookup = Objects.requireNonNull(lookup, "lookup");
  }

  /** The detector of this process's environment, JVM proxy selector and authenticator. */
  public static ProxyDetector getDefault() {
    return DEFAULT;
  }

  @Override
  public HttpConnectProxiedSocketAddress proxyFor(SocketAddress targetServerAddress)
      throws IOException {
    if (!(targetServerAddress instanceof InetSocketAddress target)) {
      return null; // a Unix domain socket, an in-process name: nothing to proxy
    }
    String host = target.getHostString();
    if (isLoopback(host)) {
      return null;
    }
    ProxyEnvironment fromEnv = ProxyEnvironment.of(env);
    if (fromEnv != null) {
      if (fromEnv.noProxy().exempts(host, target.getPort())) {
        return null;
      }
      return proxied(
          fromEnv.variable(),
          fromEnv.host(),
          fromEnv.port(),
          target,
          fromEnv.username(),
          fromEnv.password());
    }
    ProxySelector jvm = selector.get();
    if (jvm == null) {
      return null;
    }
    URI uri;
    try {
      uri =
          new URI("https", null, NoProxyRules.unbracket(host), target.getPort(), null, null, null);
    } catch (URISyntaxException e) {
      return null; // a name no URI can hold cannot have been configured for a proxy either
    }
    List<Proxy> proxies = jvm.select(uri);
    if (proxies == null || proxies.isEmpty() || proxies.get(0).type() != Proxy.Type.HTTP) {
      return null; // DIRECT, or SOCKS, which this detector does not speak
    }
    if (!(proxies.get(0).address() instanceof InetSocketAddress proxy)) {
      return null;
    }
    return proxied(
        "the JVM's ProxySelector", proxy.getHostString(), proxy.getPort(), target, null, null);
  }

  /**
   * Whether {@link #proxyFor} of {@code host} and {@code port} answers "no proxy" from what this
   * detector already holds, without blocking: a loopback target, or an {@code HTTPS_PROXY} whose
   * {@code NO_PROXY} exempts the target. False when the answer needs the JVM's proxy selector or a
   * proxy's name looked up, or a malformed variable; the caller then asks {@link #proxyFor} where
   * it may block. Name resolvers use it to skip the hop to a blocking thread for a loopback target.
   */
  public boolean isDirectAtOnce(String host, int port) {
    if (isLoopback(host)) {
      return true;
    }
    ProxyEnvironment fromEnv;
    try {
      fromEnv = ProxyEnvironment.of(env);
    } catch (IOException e) {
      return false; // a malformed variable: proxyFor reports it, where the resolver hears it
    }
    return fromEnv != null && fromEnv.noProxy().exempts(host, port);
  }

  private HttpConnectProxiedSocketAddress proxied(
      String source,
      String proxyHost,
      int proxyPort,
      InetSocketAddress target,
      String username,
      String password)
      throws IOException {
    InetAddress proxyAddress;
    try {
      proxyAddress = lookup.resolve(proxyHost);
    } catch (UnknownHostException e) {
      throw new IOException(
          "cannot resolve the proxy " + proxyHost + ":" + proxyPort + " (from " + source + ")", e);
    }
    if (username == null) {
      PasswordAuthentication auth = passwords.request(proxyHost, proxyAddress, proxyPort);
      if (auth != null) {
        username = auth.getUserName();
        password = new String(auth.getPassword());
      }
    }
    return HttpConnectProxiedSocketAddress.newBuilder()
        .setProxyAddress(new InetSocketAddress(proxyAddress, proxyPort))
        .setTargetAddress(target)
        .setUsername(username)
        .setPassword(password)
        .build();
  }

  /** Whether {@code host} names this machine: never proxied by default. */
  static boolean isLoopback(String host) {
    String name = NoProxyRules.unbracket(host).toLowerCase(Locale.ROOT);
    if (name.equals("localhost") || name.endsWith(".localhost")) {
      return true;
    }
    InetAddress literal = AddressLiterals.parse(name);
    return literal != null && literal.isLoopbackAddress();
  }

  private static PasswordAuthentication askAuthenticator(
      String host, InetAddress address, int port) {
    return Authenticator.requestPasswordAuthentication(
        host, address, port, "https", "", null, null, Authenticator.RequestorType.PROXY);
  }

  @Override
  public String toString() {
    return "SystemProxyDetector";
  }
}
