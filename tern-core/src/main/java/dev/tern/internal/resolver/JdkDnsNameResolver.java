package dev.tern.internal.resolver;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;

/**
 * Resolves {@code dns:///host:port} with the JDK's resolver ({@link InetAddress#getAllByName}, so
 * the system's configuration and the JDK's own cache apply), on the channel's offload executor; TXT
 * records (for service configs) through JNDI's DNS provider and the system's DNS servers, on the
 * same executor. Thread-safety as {@link AbstractDnsNameResolver}.
 */
final class JdkDnsNameResolver extends AbstractDnsNameResolver {
  private final Executor offload;

  /**
   * @param serviceConfigLookup whether to look up service configs in TXT records; only when {@link
   *     #isJndiAvailable()}
   */
  JdkDnsNameResolver(
      HostAndPort target,
      Args args,
      long minIntervalNanos,
      LongSupplier nanoTime,
      boolean serviceConfigLookup) {
    super(target, args, minIntervalNanos, nanoTime, serviceConfigLookup);
    this.offload = args.getOffloadExecutor();
  }

  /**
   * Whether JNDI and its DNS provider are present, so TXT records can be looked up: tern-core needs
   * {@code java.naming} only for this, and requires it only statically.
   */
  static boolean isJndiAvailable() {
    return JndiCheck.AVAILABLE;
  }

  @Override
  protected void lookup(String host, LookupCallback callback) {
    try {
      offload.execute(
          () -> {
            List<InetAddress> found;
            try {
              found = List.of(InetAddress.getAllByName(host));
            } catch (UnknownHostException | RuntimeException e) {
              callback.failed(e);
              return;
            }
            callback.found(found);
          });
    } catch (RejectedExecutionException e) {
      callback.failed(e);
    }
  }

  @Override
  protected void lookupTxt(String name, TxtCallback callback) {
    try {
      offload.execute(
          () -> {
            List<String> texts;
            // Exception, not NamingException: naming a JNDI class in a catch clause here would make
            // this class need java.naming to load.
            try {
              texts = JndiTxtLookup.query(name, null);
            } catch (Exception e) {
              callback.failed(e);
              return;
            }
            callback.found(texts);
          });
    } catch (RejectedExecutionException e) {
      callback.failed(e);
    }
  }

  /** Checked once, by class name, so that a missing {@code java.naming} is no linkage error. */
  private static final class JndiCheck {
    static final boolean AVAILABLE = check();

    private static boolean check() {
      ClassLoader loader = JdkDnsNameResolver.class.getClassLoader();
      try {
        Class.forName("javax.naming.directory.InitialDirContext", false, loader);
        Class.forName(JndiTxtLookup.CONTEXT_FACTORY, false, loader);
        return true;
      } catch (ClassNotFoundException | LinkageError e) {
        return false;
      }
    }
  }
}
