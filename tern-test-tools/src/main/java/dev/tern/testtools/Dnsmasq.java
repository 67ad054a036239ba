package dev.tern.testtools;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.File;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real DNS server for tests: a {@code dnsmasq} process on 127.0.0.1 and a port the OS chose,
 * answering A and AAAA questions from records the test gives and may change.
 *
 * <pre>{@code
 * try (Dnsmasq dns = Dnsmasq.start(Map.of(
 *     "svc.tern.test", List.of("127.0.0.2", "127.0.0.3", "127.0.0.4", "fd00::2")))) {
 *   InetSocketAddress server = dns.address();     // 127.0.0.1:port, UDP and TCP
 *   ...                                           // resolve svc.tern.test through server
 *   dns.setRecords(Map.of("svc.tern.test", List.of("127.0.0.5")));  // answered when it returns
 *   assertThat(dns.queries()).contains("query[A] svc.tern.test from 127.0.0.1");
 * }
 * }</pre>
 *
 * <p>It may also serve TXT records, given at start ({@link #start(Map, Map)}) and fixed for its
 * life (dnsmasq reads them from its configuration, which SIGHUP does not re-read).
 *
 * <p>The server knows only the given names: it reads no {@code /etc/hosts}, no {@code
 * /etc/resolv.conf} and no configuration file, has no upstream server, and answers other names with
 * REFUSED. Its answers have a TTL of 0, so a client that honours TTLs caches nothing. A name with
 * IPv4 and IPv6 addresses has A and AAAA records. The records live in a hosts file in a temporary
 * directory ({@link #directory()}), beside the server's log ({@code dnsmasq.log}), which records
 * every query; {@link #setRecords} replaces the file atomically and signals the server to re-read
 * it (SIGHUP). The server is stopped by its PID and the directory deleted by {@link #close()}.
 *
 * <p>When dnsmasq is not installed, {@link #start} skips the calling test (a failed assumption)
 * with a message saying how to install it, except under {@code CI=true}, where it fails the test:
 * CI installs dnsmasq, so its absence there is a fault. {@link #assumeInstalled()} does the same
 * without starting anything (for a {@code @BeforeAll} method). The binary is looked up on the
 * {@code PATH} and in {@code /usr/sbin}, {@code /sbin} and {@code /usr/local/sbin} (where Debian's
 * {@code dnsmasq-base} puts it, often not on a non-root {@code PATH}); the system property {@code
 * tern.dnsmasq} or else the environment variable {@code TERN_DNSMASQ} names it instead (a path that
 * is not an executable file means "not installed", which is how the skip is tested), and {@link
 * ExternalTool#HIDDEN_ENV} hides it as it hides the other tools.
 *
 * <p>The server does not change user (it runs in dnsmasq's debug mode, {@code --no-daemon}, which
 * also writes no PID file), so it works the same run as root or not.
 *
 * <p>Thread-safe. {@link #setRecords} calls are serialized; {@link #queries()} may be called at any
 * time, also while the server answers.
 */
public final class Dnsmasq implements AutoCloseable {
  /** The system property that names the dnsmasq binary; it wins over {@link #BINARY_ENV}. */
  public static final String BINARY_PROPERTY = "tern.dnsmasq";

  /** The environment variable that names the dnsmasq binary. */
  public static final String BINARY_ENV = "TERN_DNSMASQ";

  static final String NOT_INSTALLED =
      "dnsmasq is not installed; .ci/run installs it (apt-get install dnsmasq-base)";

  /** Where dnsmasq lands outside a non-root PATH (Debian's package: /usr/sbin). */
  private static final List<String> SBIN_DIRS = List.of("/usr/sbin", "/sbin", "/usr/local/sbin");

  private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

  /**
   * How long a start, a reload or a stop may take. A healthy dnsmasq starts in milliseconds; this
   * only bounds a failure, generously because the build machines are small and shared.
   */
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  /** How long one readiness question waits for an answer before it is asked again. */
  private static final Duration PROBE_TIMEOUT = Duration.ofMillis(200);

  /**
   * Between two readiness questions answered at once but not yet as hoped (the port not yet bound,
   * the file not yet re-read), the wait for the process to exit, which ends early if it does.
   */
  private static final long PROBE_PAUSE_MILLIS = 10;

  /** Tries to bind a port the OS said was free, in case another process took it in the meantime. */
  private static final int PORT_ATTEMPTS = 5;

  /** The domain of the harness's own probe names, which no test uses and queries() leaves out. */
  private static final String PROBE_DOMAIN = ".probe.tern-dnsmasq.invalid";

  private static final Pattern IPV4_LITERAL =
      Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
  private static final Pattern IPV6_LITERAL = Pattern.compile("(?=.*:)[0-9A-Fa-f:][0-9A-Fa-f:.]*");
  private static final String LABEL = "[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?";
  private static final Pattern PRINTABLE_ASCII = Pattern.compile("[ -~]*");
  private static final Pattern DNS_NAME = Pattern.compile(LABEL + "(\\." + LABEL + ")*\\.?");

  private final Path directory;
  private final Path hostsFile;
  private final Path logFile;
  private final Process process;
  private final int port;
  private final String instanceId;
  private final Thread shutdownHook;

  @GuardedBy("this")
  private long generation;

  @GuardedBy("this")
  private boolean closed;

  private Dnsmasq(
      Path directory, Path hostsFile, Path logFile, Process process, int port, String instanceId) {
    this.directory = directory;
    this.hostsFile = hostsFile;
    this.logFile = logFile;
    this.process = process;
    this.port = port;
    this.instanceId = instanceId;
    this.shutdownHook = new Thread(process::destroyForcibly, "dnsmasq-" + process.pid() + "-kill");
  }

  /**
   * Starts dnsmasq with {@code records}: each name (such as {@code svc.tern.test}) maps to its IPv4
   * and IPv6 address literals; a name without addresses is left out. Returns once the server
   * answers.
   *
   * <p>Skips the calling test when dnsmasq is not installed, or fails it under {@code CI=true} (see
   * the class doc).
   *
   * @throws IllegalArgumentException when a name is not a domain name or an address not an IP
   *     literal
   * @throws IOException when dnsmasq does not start, with its log in the message
   */
  public static Dnsmasq start(Map<String, List<String>> records) throws IOException {
    return start(records, Map.of(), Dnsmasq::freePort);
  }

  /**
   * {@link #start(Map)} that also serves TXT records: each name (such as {@code
   * _grpc_config.svc.tern.test}) maps to the texts of its TXT records, one record per text. A text
   * longer than 255 bytes, the most one character-string of a TXT record holds, is sent as several
   * strings of 255 bytes and a last of the rest (dnsmasq splits it), which a client joins. The
   * records stay as given until {@link #close()}: {@link #setRecords} changes addresses only.
   *
   * @throws IllegalArgumentException when a name is not a domain name or a text is not printable
   *     ASCII (space to tilde)
   */
  public static Dnsmasq start(Map<String, List<String>> records, Map<String, List<String>> txt)
      throws IOException {
    return start(records, txt, Dnsmasq::freePort);
  }

  /** {@link #start(Map)} with the ports to try given by {@code ports} (tested with a taken one). */
  static Dnsmasq start(Map<String, List<String>> records, IntSupplier ports) throws IOException {
    return start(records, Map.of(), ports);
  }

  private static Dnsmasq start(
      Map<String, List<String>> records, Map<String, List<String>> txt, IntSupplier ports)
      throws IOException {
    String hosts = hostsFileText(records);
    String config = txtConfigText(txt);
    assumeInstalled();
    Path binary = binary().orElseThrow();
    Path directory = Files.createTempDirectory("tern-dnsmasq-");
    try {
      Path hostsFile = directory.resolve("hosts");
      Path logFile = directory.resolve("dnsmasq.log");
      Path configFile = directory.resolve("dnsmasq.conf");
      Files.writeString(configFile, config, UTF_8);
      String instanceId = Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1);
      writeAtomically(hostsFile, hosts + probeLine(instanceId, 0));
      for (int attempt = 1; ; attempt++) {
        int port = ports.getAsInt();
        Process process = launch(binary, port, configFile, hostsFile, logFile);
        Dnsmasq dns = new Dnsmasq(directory, hostsFile, logFile, process, port, instanceId);
        Runtime.getRuntime().addShutdownHook(dns.shutdownHook);
        boolean ready = false;
        try {
          ready = dns.awaitAnswer(probeName(instanceId, 0), "start");
        } finally {
          if (!ready) {
            dns.stopProcess();
          }
        }
        if (ready) {
          return dns;
        }
        String log = dns.log();
        if (!log.contains("Address already in use") || attempt == PORT_ATTEMPTS) {
          throw new IOException(
              "dnsmasq exited with code " + process.exitValue() + " on port " + port + ":\n" + log);
        }
        // Another process took the port between freePort() and dnsmasq's bind: take another.
      }
    } catch (IOException | RuntimeException | Error e) {
      deleteRecursively(directory);
      throw e;
    }
  }

  /** Whether dnsmasq is installed (see the class doc for where it is looked for). */
  public static boolean isInstalled() {
    return binary().isPresent();
  }

  /**
   * Returns when dnsmasq is installed; otherwise skips the calling test, or fails it when the
   * environment variable {@code CI} is {@code true}. Call it from a test or a {@code @BeforeAll} or
   * {@code @BeforeEach} method; {@link #start} calls it too.
   */
  public static void assumeInstalled() {
    requireInstalled(isInstalled(), System.getenv("CI"));
  }

  static void requireInstalled(boolean installed, String ciEnv) {
    if (installed) {
      return;
    }
    String override = System.getProperty(BINARY_PROPERTY, System.getenv(BINARY_ENV));
    String message =
        override == null || override.isEmpty()
            ? NOT_INSTALLED
            : NOT_INSTALLED
                + " ("
                + BINARY_PROPERTY
                + "/"
                + BINARY_ENV
                + " names "
                + override
                + ", not an executable file)";
    ExternalTool.missing(message, ciEnv);
  }

  /** The port dnsmasq listens on, UDP and TCP, on 127.0.0.1 only. */
  public int port() {
    return port;
  }

  /** The server's address: 127.0.0.1 and {@link #port()}. */
  public InetSocketAddress address() {
    return new InetSocketAddress(LOOPBACK, port);
  }

  /** The PID of the dnsmasq process. */
  public long pid() {
    return process.pid();
  }

  /** The temporary directory of the hosts file and the log; {@link #close()} deletes it. */
  public Path directory() {
    return directory;
  }

  /**
   * Replaces all records (same form as {@link #start}), then returns once the server answers from
   * the new ones: it writes a new hosts file, renames it over the old one, sends SIGHUP to the
   * server's PID and asks the server until the new file is in use.
   *
   * @throws IOException when the server does not take the new records in time or has exited
   */
  public synchronized void setRecords(Map<String, List<String>> records) throws IOException {
    String hosts = hostsFileText(records);
    if (closed) {
      throw new IllegalStateException("dnsmasq is closed");
    }
    long next = generation + 1;
    writeAtomically(hostsFile, hosts + probeLine(instanceId, next));
    signalHangup();
    generation = next;
    if (!awaitAnswer(probeName(instanceId, next), "reload")) {
      throw new IOException("dnsmasq exited while re-reading its records:\n" + log());
    }
  }

  /**
   * The queries the server received so far, oldest first, each as dnsmasq logs it: {@code "query[A]
   * svc.tern.test from 127.0.0.1"} (the type in brackets, the name, the client). The harness's own
   * readiness questions are left out.
   */
  public List<String> queries() {
    List<String> queries = new ArrayList<>();
    for (String line : log().split("\n", -1)) {
      int start = line.indexOf("query[");
      if (start >= 0 && !line.contains(PROBE_DOMAIN)) {
        queries.add(line.substring(start));
      }
    }
    return queries;
  }

  /** The server's whole log so far (start-up, records read, queries and answers), for messages. */
  public String log() {
    try {
      return Files.readString(logFile, UTF_8);
    } catch (NoSuchFileException e) {
      return "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Stops the server (SIGTERM to its PID; SIGKILL if it has not exited within the timeout) and
   * deletes its directory. Idempotent.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    try {
      stopProcess();
    } finally {
      deleteRecursively(directory);
    }
  }

  private static Process launch(
      Path binary, int port, Path configFile, Path hostsFile, Path logFile) throws IOException {
    List<String> command =
        List.of(
            binary.toString(),
            // Foreground, no user change, no PID file: same as root or not; the PID is ours.
            "--no-daemon",
            // Only the TXT records (an empty file without them): no system configuration.
            "--conf-file=" + configFile,
            "--port=" + port,
            "--listen-address=" + LOOPBACK.getHostAddress(),
            "--bind-interfaces",
            "--no-resolv",
            "--no-hosts",
            "--addn-hosts=" + hostsFile,
            "--local-ttl=0",
            "--log-queries",
            // To stderr, which goes to the log file: one file, and nothing to the system's syslog.
            "--log-facility=-");
    return new ProcessBuilder(command)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectErrorStream(true)
        .redirectOutput(logFile.toFile())
        .start();
  }

  /**
   * Asks the server for {@code probeName} until it answers with an address (true), or the process
   * exits (false); fails after {@link #TIMEOUT}.
   */
  private boolean awaitAnswer(String probeName, String what) throws IOException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (true) {
      if (!process.isAlive()) {
        return false;
      }
      try {
        DnsLookup.Answer answer =
            DnsLookup.query(address(), probeName, DnsLookup.Type.A, PROBE_TIMEOUT);
        if (!answer.addresses().isEmpty()) {
          return process.isAlive();
        }
      } catch (IOException e) {
        // Nothing listens yet (port unreachable), or no answer within PROBE_TIMEOUT: ask again.
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IOException(
            "dnsmasq did not answer on port "
                + port
                + " within "
                + TIMEOUT
                + " ("
                + what
                + "):\n"
                + log());
      }
      try {
        process.waitFor(PROBE_PAUSE_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted waiting for dnsmasq (" + what + ")");
      }
    }
  }

  private void signalHangup() throws IOException {
    if (!process.isAlive()) {
      throw new IOException("dnsmasq has exited:\n" + log());
    }
    // The JDK sends only SIGTERM and SIGKILL; the shell's kill builtin needs nothing installed.
    Process kill =
        new ProcessBuilder("/bin/sh", "-c", "kill -HUP \"$1\"", "sh", Long.toString(pid()))
            .redirectErrorStream(true)
            .start();
    try {
      if (!kill.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        kill.destroyForcibly();
        throw new IOException("kill -HUP " + pid() + " did not finish within " + TIMEOUT);
      }
    } catch (InterruptedException e) {
      kill.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted sending SIGHUP to dnsmasq");
    }
    if (kill.exitValue() != 0) {
      String output = new String(kill.getInputStream().readAllBytes(), UTF_8);
      throw new IOException("kill -HUP " + pid() + " failed: " + output);
    }
  }

  /** SIGTERM, then SIGKILL if need be; returns once the process is gone. */
  private void stopProcess() {
    boolean interrupted = false;
    try {
      process.destroy();
      try {
        if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
          process.destroyForcibly();
          process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
      } catch (InterruptedException e) {
        interrupted = true;
        process.destroyForcibly();
      }
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // The JVM is shutting down: the hook kills the process anyway.
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A port free for UDP and TCP on 127.0.0.1 when asked; dnsmasq may still lose it to a race. */
  static int freePort() {
    for (int attempt = 1; ; attempt++) {
      try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0))) {
        int port = udp.getLocalPort();
        try (ServerSocket tcp = new ServerSocket()) {
          tcp.bind(new InetSocketAddress(LOOPBACK, port));
          return port;
        } catch (BindException e) {
          if (attempt == PORT_ATTEMPTS) {
            throw new UncheckedIOException("no port free for both UDP and TCP", e);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** Validates {@code records} and writes them in hosts-file form, one "address name" a line. */
  static String hostsFileText(Map<String, List<String>> records) {
    requireNonNull(records, "records");
    StringBuilder text = new StringBuilder();
    for (Map.Entry<String, List<String>> entry : new LinkedHashMap<>(records).entrySet()) {
      String name = requireNonNull(entry.getKey(), "records: a name is null");
      if (!DNS_NAME.matcher(name).matches() || name.length() > 254) {
        throw new IllegalArgumentException("records: not a domain name: \"" + name + "\"");
      }
      name = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
      List<String> addresses = requireNonNull(entry.getValue(), "records: addresses of " + name);
      for (String address : addresses) {
        text.append(ipLiteral(name, address).getHostAddress()).append(' ').append(name);
        text.append('\n');
      }
    }
    return text.toString();
  }

  /**
   * Validates {@code txt} and writes it as dnsmasq configuration, one {@code txt-record} line per
   * record, its text quoted (in quotes, dnsmasq keeps commas and spaces, and reads {@code \"} and
   * {@code \\} as a quote and a backslash).
   */
  static String txtConfigText(Map<String, List<String>> txt) {
    requireNonNull(txt, "txt");
    StringBuilder config = new StringBuilder();
    for (Map.Entry<String, List<String>> entry : new LinkedHashMap<>(txt).entrySet()) {
      String name = requireNonNull(entry.getKey(), "txt: a name is null");
      if (!DNS_NAME.matcher(name).matches() || name.length() > 254) {
        throw new IllegalArgumentException("txt: not a domain name: \"" + name + "\"");
      }
      for (String text : requireNonNull(entry.getValue(), "txt: texts of " + name)) {
        requireNonNull(text, () -> "txt: a text of " + name + " is null");
        if (!PRINTABLE_ASCII.matcher(text).matches()) {
          throw new IllegalArgumentException(
              "txt: a text of " + name + " is not printable ASCII: \"" + text + "\"");
        }
        String quoted = text.replace("\\", "\\\\").replace("\"", "\\\"");
        config.append("txt-record=").append(name).append(",\"").append(quoted).append("\"\n");
      }
    }
    return config.toString();
  }

  /** Parses an IP literal by hand or through a path of the JDK's that never looks a name up. */
  private static InetAddress ipLiteral(String name, String address) {
    requireNonNull(address, () -> "records: an address of " + name + " is null");
    try {
      Matcher ipv4 = IPV4_LITERAL.matcher(address);
      if (ipv4.matches()) {
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
          int octet = Integer.parseInt(ipv4.group(i + 1));
          if (octet > 255) {
            throw new UnknownHostException(address);
          }
          bytes[i] = (byte) octet;
        }
        return InetAddress.getByAddress(bytes);
      }
      // Text that starts with a hex digit or a colon and has a colon: getByName parses it as an
      // IPv6 literal or throws, it never looks it up.
      if (IPV6_LITERAL.matcher(address).matches()) {
        InetAddress parsed = InetAddress.getByName(address);
        if (parsed instanceof Inet6Address) {
          return parsed;
        }
        // The JDK turns an IPv4-mapped IPv6 address into an IPv4 one, not what was asked for.
      }
    } catch (UnknownHostException e) {
      // Not a valid literal: reported below.
    }
    throw new IllegalArgumentException(
        "records: address of " + name + " is not an IPv4 or IPv6 literal: \"" + address + "\"");
  }

  private static String probeName(String instanceId, long generation) {
    return "g" + generation + "." + instanceId + PROBE_DOMAIN;
  }

  /** The record the harness asks for to know the server reads this generation of the file. */
  private static String probeLine(String instanceId, long generation) {
    return "127.0.0.1 " + probeName(instanceId, generation) + "\n";
  }

  /** Writes beside {@code file}, then renames over it: the server never reads half a file. */
  private static void writeAtomically(Path file, String text) throws IOException {
    Path temporary = file.resolveSibling(file.getFileName() + ".new");
    Files.writeString(temporary, text, UTF_8);
    Files.move(
        temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private static Optional<Path> binary() {
    if (ExternalTool.hidden()) {
      return Optional.empty();
    }
    String override = System.getProperty(BINARY_PROPERTY, System.getenv(BINARY_ENV));
    if (override != null && !override.isEmpty()) {
      return Optional.of(Path.of(override)).filter(Dnsmasq::isExecutableFile);
    }
    List<String> dirs = new ArrayList<>();
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(File.pathSeparator)));
    }
    dirs.addAll(SBIN_DIRS);
    return dirs.stream()
        .filter(dir -> !dir.isEmpty())
        .map(dir -> Path.of(dir, "dnsmasq"))
        .filter(Dnsmasq::isExecutableFile)
        .findFirst();
  }

  private static boolean isExecutableFile(Path path) {
    return Files.isRegularFile(path) && Files.isExecutable(path);
  }

  private static void deleteRecursively(Path directory) {
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (NoSuchFileException e) {
      // Already gone.
    } catch (IOException e) {
      throw new UncheckedIOException("could not delete " + directory, e);
    }
  }
}
