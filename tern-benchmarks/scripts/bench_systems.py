"""The systems bin/bench-compare measures, and how each one's programs are started.

Two kinds, in one table (SYSTEMS, in the order the page lists them):

- JavaSystem: a gRPC stack on the JVM whose own qps server and client and ConnectionsClient
  channels run in every part of JVM_PARTS: Tern and grpc-java 1.79, the two systems every page
  compares (the JMH parts run both inside JMH).
- ServerOnlySystem: a server that only the server-only part loads, pinned like the others and under
  the same h2load command: Tern's qps server with --defaults (issue 52: the server as a user
  writes it, its default executor and two ordinary interceptors, beside the tuned row), grpc-go's
  and tonic's servers of the same BenchmarkService (issue 34's native peers, built by
  scripts/build-peers.sh into $PEERS_DIR), and nghttpd, nghttp2's C server, answering the request
  with a static file that holds the same 5 bytes as an empty SimpleResponse's frame (no gRPC: the
  machine's HTTP/2 ceiling for this load). Each is one entry: its command, what it needs prepared,
  and the program it needs (a tool on PATH, or a peer in $PEERS_DIR) with where that comes from.

- VertxSystem: Vert.x gRPC 5.0.7 (issue 52), a JVM stack built apart from Tern's class path (its
  Netty is its own) by scripts/build-peers.sh into $PEERS_DIR as `vertx-bench`: its own server
  and qps client in the end-to-end part (own client against own server), its server in the
  server-only part. It has no executor to choose, so both executor rows run it the same way.

Beside the table, not a system: RAW_ECHO, the raw loopback echo of the echo part (the limit of the
wake-up-bound rows), with the qps programs' interface (qps_programs) so the streaming and
connections code runs it as it runs a system's own programs.

The commands keep the placeholders ($TERN_CP, $GRPC_JAVA_CP, $PROBE_CP, $PEERS_DIR) that
bench_compare.expand replaces, so the page can print them as they are. Nothing here starts a
process.
"""

import os
import subprocess

# The method every server-only request goes to, and the gRPC frame of an empty message (not
# compressed, length 0): h2load's request body, and the body of nghttpd's static answer.
UNARY_PATH = "/grpc.testing.BenchmarkService/UnaryCall"
EMPTY_FRAME = bytes(5)

# The parts a system on the JVM takes part in (tls, flow and jmh run both inside JMH).
JVM_PARTS = ("e2e", "streaming", "large", "server", "alloc", "conns")
# The two systems every page compares; the others are shown beside them.
BASE = ("tern", "grpc-java")
HEAP_PROBE = "dev.tern.benchmarks.qps.HeapUsedProbe"
CONNECTIONS_CLIENT = "dev.tern.benchmarks.qps.ConnectionsClient"
# The folder scripts/build-peers.sh builds the native peers into (bin/bench-compare exports it).
PEERS_DIR = "$PEERS_DIR"
BUILT_BY = (
    "tern-benchmarks/scripts/build-peers.sh builds it; bin/bench-compare runs that first, and its "
    "output says why it did not"
)
# How a failure starts when a system's or the raw echo's program is not there at all (the page
# calls its rows missing rather than failed).
MISSING = "missing: "


def qps_client_flags(port, outstanding, duration, warmup, payload, channels, streaming):
    """The flags every qps client takes (the JVM systems' and the raw echo's ping-pong)."""
    return [
        "--address=127.0.0.1:%d" % port,
        "--channels=%d" % channels,
        "--outstanding_rpcs=%d" % outstanding,
        "--client_payload=%d" % payload,
        "--server_payload=%d" % payload,
        "--duration=%s" % duration,
        "--warmup_duration=%s" % warmup,
    ] + (["--streaming_rpcs"] if streaming else [])


class JavaSystem:
    """One gRPC stack on the JVM: its class path, its qps server and client, and its name, which is
    also the --system its ConnectionsClient channels are made with. Immutable."""

    tool = None  # java, which bin/bench-compare checks
    install = None
    parts = JVM_PARTS
    tls = False  # the server-only part loads its plaintext server

    def __init__(self, name, label, cp, probe_cp, server_main, client_main, transport):
        self.name, self.label = name, label
        self.cp = cp  # the qps programs'
        self.probe_cp = probe_cp  # the same with HeapUsedProbe on it
        self.server_main, self.client_main, self.transport = server_main, client_main, transport

    def java(self, *main_and_args, jvm=(), cp=None):
        """A JVM of this system running main_and_args: the JVM flags `jvm`, then the class path
        (`cp`, or the system's own)."""
        return ["java", *jvm, "-cp", cp or self.cp, *main_and_args]

    def server_args(self, port, direct):
        """The qps server's main class and flags."""
        args = [self.server_main, "--address=127.0.0.1:%s" % port, "--transport=" + self.transport]
        return args + (["--directexecutor"] if direct else [])

    def client_args(
        self, port, outstanding, direct, duration, warmup, payload, channels, streaming
    ):
        """The qps client's main class and flags."""
        flags = qps_client_flags(port, outstanding, duration, warmup, payload, channels, streaming)
        main = [self.client_main, "--transport=" + self.transport, *flags]
        return main + (["--directexecutor"] if direct else [])

    def server_cmd(self, port, direct):
        """The qps server."""
        return self.java(*self.server_args(port, direct))

    def client_cmd(self, port, outstanding, direct, duration, warmup, payload, channels, streaming):
        """The qps client, for `duration` s after `warmup` s."""
        args = (port, outstanding, direct, duration, warmup, payload, channels, streaming)
        return self.java(*self.client_args(*args))

    def connections_client(self):
        """ConnectionsClient on this system's channels, before the flags of the connections it
        makes. It is Tern's program, with grpc-java's channels on it."""
        return self.java(CONNECTIONS_CLIENT, "--system=%s" % self.name, cp="$TERN_CP")

    def server_only_cmd(self, port, work):
        """The server the server-only part loads: the qps server, default executor."""
        del work  # a qps server needs nothing prepared
        return self.server_cmd(port, False)

    def prepare(self, work):
        """Nothing: the qps server serves from memory."""


class ServerOnlySystem:
    """A server only the server-only part loads: `command(port, work)` starts it on 127.0.0.1:port
    (pinning is the part's), after `prepare(work)` (if any) made what it serves in the work
    directory; `tool` is the program it needs (on PATH, or under $PEERS_DIR), and `install` where
    that comes from. Immutable."""

    parts = ("server",)

    def __init__(self, name, label, command, tool, install, prepare=None, tls=False):
        self.name, self.label, self.tool, self.install = name, label, tool, install
        self._command, self._prepare = command, prepare
        self.tls = tls  # h2load speaks TLS to it (https, ALPN h2)

    def server_only_cmd(self, port, work):
        return self._command(port, work)

    def prepare(self, work):
        if self._prepare:
            self._prepare(work)


def native_peer(name, label, program):
    """A native peer's server of BenchmarkService, `program` in $PEERS_DIR: `--address` is its
    only flag; it needs nothing prepared, and has no executor to choose."""
    path = PEERS_DIR + "/" + program

    def command(port, work):
        del work
        return [path, "--address=127.0.0.1:%s" % port]

    return ServerOnlySystem(name, label, command, path, BUILT_BY)


class PeerPrograms:
    """A peer's one program in $PEERS_DIR (`tool`) run as a server (`tool server --address=...`)
    and as a client taking the qps clients' flags (`tool CLIENT_VERB FLAGS`): the command methods
    of a JavaSystem. It has no executor to choose, so `direct` changes nothing. Immutable."""

    client_verb = None  # set by each peer

    def server_cmd(self, port, direct):
        del direct
        return [self.tool, "server", "--address=127.0.0.1:%s" % port]

    def client_cmd(self, port, outstanding, direct, duration, warmup, payload, channels, streaming):
        del direct
        flags = qps_client_flags(port, outstanding, duration, warmup, payload, channels, streaming)
        return [self.tool, self.client_verb, *flags]


class RawEcho(PeerPrograms):
    """The raw loopback echo (peers/echo/raw-echo.c, in $PEERS_DIR): the echo part's one program,
    with a JavaSystem's command methods (its server, its ping-pong client taking the qps clients'
    flags, its connections client taking ConnectionsClient's). No executor, no JVM."""

    name = "raw-echo"
    label = "raw echo"
    # Seconds of unmeasured round trips before its ping-pong is timed: a C program has no JIT to
    # wait for.
    warmup = 2
    tool = PEERS_DIR + "/raw-echo"
    install = BUILT_BY
    client_verb = "pingpong"

    def connections_client(self):
        return [self.tool, "connections"]

    def sink_cmd(self, port):
        """The server of the bandwidth run: it reads and drops whatever it is sent."""
        return [self.tool, "server", "--address=127.0.0.1:%s" % port, "--discard"]

    def bandwidth_cmd(self, port, write_size, warmup, duration):
        """One connection writing `write_size` bytes at a time to the sink for `duration` s after
        `warmup` s: the loopback's one-way bandwidth, in bytes per second."""
        return [
            self.tool,
            "bandwidth",
            "--address=127.0.0.1:%s" % port,
            "--client_payload=%d" % write_size,
            "--warmup_duration=%d" % warmup,
            "--duration=%d" % duration,
        ]


class VertxSystem(PeerPrograms):
    """Vert.x gRPC 5.0.7's peer (peers/vertx, `vertx-bench` in $PEERS_DIR): its server of the
    BenchmarkService (one event loop) and its qps client. Vert.x runs every callback on its event
    loops and has no executor to choose. Immutable."""

    name = "vertx"
    label = "Vert.x gRPC 5.0.7"
    parts = ("e2e", "server")
    tls = False
    tool = PEERS_DIR + "/vertx-bench"
    install = BUILT_BY
    client_verb = "client"

    def server_only_cmd(self, port, work):
        del work  # it serves from memory
        return self.server_cmd(port, False)

    def prepare(self, work):
        """Nothing: the server serves from memory."""


def nghttpd_root(work):
    return os.path.join(work, "nghttpd-htdocs")


def nghttpd_cmd(port, work):
    # One worker thread (its default, said here), plaintext h2c, 127.0.0.1 only.
    return [
        "nghttpd",
        "--no-tls",
        "--workers=1",
        "--address=127.0.0.1",
        "--htdocs=" + nghttpd_root(work),
        str(port),
    ]


def nghttpd_prepare(work):
    """The static answer: a file at the request's path holding an empty message's 5-byte frame.
    nghttpd answers a POST with the file at its path and discards the body."""
    path = os.path.join(nghttpd_root(work), UNARY_PATH.lstrip("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(EMPTY_FRAME)


TERN = JavaSystem(
    "tern",
    "Tern",
    "$TERN_CP",
    "$TERN_CP",
    "dev.tern.benchmarks.qps.QpsServer",
    "dev.tern.benchmarks.qps.QpsClient",
    "nio",
)
GRPC_JAVA = JavaSystem(
    "grpc-java",
    "grpc-java",
    "$GRPC_JAVA_CP",
    "$GRPC_JAVA_CP:$PROBE_CP",
    "io.grpc.benchmarks.qps.AsyncServer",
    "io.grpc.benchmarks.qps.AsyncClient",
    "netty_nio",
)


def tern_defaults_cmd(port, work):
    """Tern's qps server as a user writes it: the server's default executor (no ForkJoinPool of the
    benchmark's own) and two ordinary interceptors."""
    del work  # it serves from memory
    return TERN.server_cmd(port, False) + ["--defaults"]


TERN_DEFAULTS = ServerOnlySystem(
    "tern-defaults",
    "Tern, defaults (default executor, two interceptors)",
    tern_defaults_cmd,
    None,  # java, which bin/bench-compare checks
    None,
)


def tls_files(work):
    """The certificate and key (PEM) every TLS server of the server-only part serves with."""
    folder = os.path.join(work, "tls")
    return os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")


def tls_prepare(work):
    """Makes tls_files(work) once with openssl: a self-signed P-256 certificate for localhost and
    127.0.0.1 (h2load does not check it), its key in PKCS#8, which every TLS server here reads."""
    cert, key = tls_files(work)
    if os.path.exists(cert) and os.path.exists(key):
        return
    os.makedirs(os.path.dirname(cert), exist_ok=True)
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout",
            key,
            "-out",
            cert,
        ],
        check=True,
        capture_output=True,
    )


def tern_tls(provider, label):
    """Tern's qps server over TLS with `provider` (openssl: netty-tcnative's BoringSSL; jdk: the
    JDK's own), chosen with the transport's property."""

    def command(port, work):
        cert, key = tls_files(work)
        flags = ["--tls_cert=" + cert, "--tls_key=" + key]
        jvm = ["-Ddev.tern.netty.sslProvider=" + provider]
        return TERN.java(*TERN.server_args(port, False), *flags, jvm=jvm)

    name = "tern-tls" + ("-jdk" if provider == "jdk" else "")
    return ServerOnlySystem(name, label, command, None, None, prepare=tls_prepare, tls=True)


def grpc_java_tls(cp, name, label):
    """grpc-java's AsyncServer with --tls (its own test certificate, server1.pem): OpenSSL when
    netty-tcnative is on `cp`, as grpc-java prefers it, else the JDK's TLS."""

    def command(port, work):
        del work  # it serves its own certificate
        return GRPC_JAVA.java(*GRPC_JAVA.server_args(port, False), "--tls", cp=cp)

    return ServerOnlySystem(name, label, command, None, None, tls=True)


def nghttpd_tls_cmd(port, work):
    cert, key = tls_files(work)
    return [c for c in nghttpd_cmd(port, work) if c != "--no-tls"] + [key, cert]


def nghttpd_tls_prepare(work):
    nghttpd_prepare(work)
    tls_prepare(work)


GRPC_GO = native_peer("grpc-go", "grpc-go 1.85.0", "grpc-go-bench-server")
TONIC = native_peer("tonic", "tonic 0.14.9", "tonic-bench-server")
NGHTTPD = ServerOnlySystem(
    "nghttpd",
    "nghttpd (static file)",
    nghttpd_cmd,
    "nghttpd",
    "apt-get install nghttp2-server",
    prepare=nghttpd_prepare,
)

# Server-only over TLS (issue 52's second target), each provider beside its kind.
TERN_TLS = tern_tls("openssl", "Tern, TLS (OpenSSL)")
TERN_TLS_JDK = tern_tls("jdk", "Tern, TLS (JDK)")
# grpc-java's class path without netty-tcnative, so that it takes the JDK's TLS (bench_compare's
# expand builds it from $GRPC_JAVA_CP).
GRPC_JAVA_JDK_CP = "$GRPC_JAVA_JDK_CP"
GRPC_JAVA_TLS = grpc_java_tls("$GRPC_JAVA_CP", "grpc-java-tls", "grpc-java, TLS (OpenSSL)")
GRPC_JAVA_TLS_JDK = grpc_java_tls(GRPC_JAVA_JDK_CP, "grpc-java-tls-jdk", "grpc-java, TLS (JDK)")
NGHTTPD_TLS = ServerOnlySystem(
    "nghttpd-tls",
    "nghttpd (static file), TLS",
    nghttpd_tls_cmd,
    "nghttpd",
    "apt-get install nghttp2-server",
    prepare=nghttpd_tls_prepare,
    tls=True,
)
VERTX = VertxSystem()
SYSTEMS = {
    s.name: s
    for s in (
        TERN,
        TERN_DEFAULTS,
        GRPC_JAVA,
        VERTX,
        GRPC_GO,
        TONIC,
        NGHTTPD,
        TERN_TLS,
        TERN_TLS_JDK,
        GRPC_JAVA_TLS,
        GRPC_JAVA_TLS_JDK,
        NGHTTPD_TLS,
    )
}


def tern_for(name):
    """The Tern row a server-only row is compared with: Tern over TLS with the same provider for a
    TLS server, plain Tern otherwise."""
    if not SYSTEMS[name].tls:
        return "tern"
    return "tern-tls-jdk" if name.endswith("-jdk") else "tern-tls"


def ceiling_for(name):
    """The static-answer row a server-only row is a share of: nghttpd with TLS for a TLS one."""
    return "nghttpd-tls" if SYSTEMS[name].tls else "nghttpd"


RAW_ECHO = RawEcho()
# The echo part's key of its bandwidth runs (the loopback's one-way bandwidth, bytes per second).
BANDWIDTH_KEY = "bandwidth"


def java_system(name):
    """The JavaSystem called name; fails for a server-only one."""
    system = SYSTEMS[name]
    if not isinstance(system, JavaSystem):
        raise ValueError("%s is not a JVM system" % name)
    return system


def qps_programs(name):
    """The qps programs of `name` (and its connections client, for a JavaSystem or the raw echo):
    a JavaSystem's, Vert.x's, or the raw echo's."""
    if name == RAW_ECHO.name:
        return RAW_ECHO
    if name == VERTX.name:
        return VERTX
    return java_system(name)


def taking_part(names, part):
    """The systems of `names` that take part in `part`, in the table's order."""
    return tuple(n for n in SYSTEMS if n in names and part in SYSTEMS[n].parts)


def parse_systems(text):
    """--systems: a comma-separated list of the table's names, which must include BASE; raises
    ValueError naming what is wrong."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in SYSTEMS]
    if unknown:
        raise ValueError(
            "unknown system %s (known: %s)%s"
            % (
                ", ".join(unknown),
                ", ".join(SYSTEMS),
                "; tern-engine is gone: tern is Tern on its own HTTP/2 engine, its one stack"
                if "tern-engine" in unknown
                else "",
            )
        )
    missing = [n for n in BASE if n not in names]
    if missing:
        raise ValueError(
            "the page compares every system with %s: add %s"
            % (" and ".join(BASE), ", ".join(missing))
        )
    return tuple(n for n in SYSTEMS if n in names)
