package dev.tern.internal.resolver;

import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import javax.naming.Context;
import javax.naming.NameNotFoundException;
import javax.naming.NamingEnumeration;
import javax.naming.NamingException;
import javax.naming.directory.Attribute;
import javax.naming.directory.Attributes;
import javax.naming.directory.DirContext;
import javax.naming.directory.InitialDirContext;

/**
 * Asks DNS for TXT records through the JDK's JNDI DNS provider ({@code jdk.naming.dns}), which
 * reads the system's DNS servers as the JDK's resolver does. Blocking: call it off the
 * synchronization context. Loading this class needs {@code java.naming}, which tern-core requires
 * only statically (a trimmed run-time image or a module layer may lack it): {@link
 * JdkDnsNameResolver#isJndiAvailable()} says whether it may be used.
 *
 * <p>Stateless; thread-safe (each query uses its own JNDI context).
 */
public final class JndiTxtLookup {
  static final String CONTEXT_FACTORY = "com.sun.jndi.dns.DnsContextFactory";

  /**
   * How long the first try of a query waits, in milliseconds; each retry waits twice the one
   * before. With {@link #RETRIES} that bounds a query to 1 + 2 + 4 = 7 s, for the addresses wait
   * for it (the JDK's default, 1 s and 4 retries, is 31 s).
   */
  private static final String INITIAL_TIMEOUT_MILLIS = "1000";

  private static final String RETRIES = "2";

  private JndiTxtLookup() {}

  /**
   * The texts of {@code name}'s TXT records (each record's character-strings concatenated); none
   * when the name does not exist.
   *
   * @param server {@code dns://HOST:PORT} to ask that server, or null for the system's servers
   * @throws NamingException when the query fails (no answer, a server error)
   */
  public static List<String> query(String name, String server) throws NamingException {
    Hashtable<String, Object> env = new Hashtable<>();
    env.put(Context.INITIAL_CONTEXT_FACTORY, CONTEXT_FACTORY);
    env.put(Context.PROVIDER_URL, server == null ? "dns:" : server);
    env.put("com.sun.jndi.dns.timeout.initial", INITIAL_TIMEOUT_MILLIS);
    env.put("com.sun.jndi.dns.timeout.retries", RETRIES);
    DirContext context = new InitialDirContext(env);
    try {
      Attributes attributes = context.getAttributes(name, new String[] {"TXT"});
      Attribute txt = attributes.get("TXT");
      List<String> texts = new ArrayList<>();
      if (txt != null) {
        NamingEnumeration<?> values = txt.getAll();
        try {
          while (values.hasMore()) {
            texts.add(TxtRecords.fromJndi(String.valueOf(values.next())));
          }
        } finally {
          values.close();
        }
      }
      return texts;
    } catch (NameNotFoundException e) {
      return List.of(); // NXDOMAIN
    } finally {
      context.close();
    }
  }
}
