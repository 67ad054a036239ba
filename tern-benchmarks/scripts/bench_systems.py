"""The systems bin/bench-compare measures, and how each one's programs are started.

Two kinds, in one table (SYSTEMS, in the order the page lists them):

- JavaSystem: a gRPC stack on the JVM whose own qps server and client, ConnectionsClient channels
  and TlsBenchmark side run in every part it lists: Tern (on Netty's HTTP/2 codec, the default),
  Tern on its own HTTP/2 engine (the same programs with -Dtern.http2.engine=tern in every JVM it
  starts, server and client), and grpc-java 1.79.
- ServerOnlySystem: a server that only the server-only part loads, pinned like the others and under
  the same h2load command: nghttpd, nghttp2's C server, answering the request with a static file
  that holds the same 5 bytes as an empty SimpleResponse's frame (no gRPC: the machine's HTTP/2
  ceiling for this load). Another peer's server (grpc-go's, tonic's) is one more entry here: its
  command, what it needs prepared, and the tool it needs installed.

The commands keep the placeholders ($TERN_CP, $GRPC_JAVA_CP, $PROBE_CP) that bench_compare.expand
replaces, so the page can print them as they are. Nothing here starts a process.
"""

import os

# The method every server-only request goes to, and the gRPC frame of an empty message (not
# compressed, length 0): h2load's request body, and the body of nghttpd's static answer.
UNARY_PATH = "/grpc.testing.BenchmarkService/UnaryCall"
EMPTY_FRAME = bytes(5)

# The parts a system on the JVM takes part in (flow and jmh run both base systems inside JMH).
JVM_PARTS = ("e2e", "streaming", "large", "server", "alloc", "conns", "tls")
# The two systems every page compares; the others are shown beside them.
BASE = ("tern", "grpc-java")
HEAP_PROBE = "dev.tern.benchmarks.qps.HeapUsedProbe"


class JavaSystem:
    """One gRPC stack on the JVM: its class path, the JVM flags every one of its JVMs gets, its qps
    server and client, the --system its ConnectionsClient channels are made with, and its name as
    TlsBenchmark's `system` parameter. Immutable."""

    tool = None  # java, which bin/bench-compare checks
    install = None

    def __init__(
        self,
        name,
        label,
        cp,
        probe_cp,
        server_main,
        client_main,
        transport,
        jvm_flags=(),
        parts=JVM_PARTS,
    ):
        self.name, self.label, self.parts = name, label, parts
        self.cp = cp  # the qps programs'
        self.probe_cp = probe_cp  # the same with HeapUsedProbe on it
        self.server_main, self.client_main, self.transport = server_main, client_main, transport
        self.jvm_flags = tuple(jvm_flags)
        # ConnectionsClient's --system and TlsBenchmark's `system`: the stack, whatever its flags.
        self.stack = "grpc-java" if cp == "$GRPC_JAVA_CP" else "tern"

    def java(self, *main_and_args, jvm=(), cp=None):
        """A JVM of this system running main_and_args: its flags, then `jvm`, then the class path
        (`cp`, or the system's own)."""
        return ["java", *self.jvm_flags, *jvm, "-cp", cp or self.cp, *main_and_args]

    def server_args(self, port, direct):
        """The qps server's main class and flags."""
        args = [self.server_main, "--address=127.0.0.1:%s" % port, "--transport=" + self.transport]
        return args + (["--directexecutor"] if direct else [])

    def client_args(
        self, port, outstanding, direct, duration, warmup, payload, channels, streaming
    ):
        """The qps client's main class and flags."""
        return (
            [
                self.client_main,
                "--transport=" + self.transport,
                "--address=127.0.0.1:%d" % port,
                "--channels=%d" % channels,
                "--outstanding_rpcs=%d" % outstanding,
                "--client_payload=%d" % payload,
                "--server_payload=%d" % payload,
                "--duration=%s" % duration,
                "--warmup_duration=%s" % warmup,
            ]
            + (["--directexecutor"] if direct else [])
            + (["--streaming_rpcs"] if streaming else [])
        )

    def server_only_cmd(self, port, work):
        """The server the server-only part loads: the qps server, default executor."""
        del work  # a qps server needs nothing prepared
        return self.java(*self.server_args(port, False))

    def prepare(self, work):
        """Nothing: the qps server serves from memory."""


class ServerOnlySystem:
    """A server only the server-only part loads: `command(port, work)` starts it on 127.0.0.1:port
    (pinning is the part's), after `prepare(work)` made what it serves in the work directory;
    `tool` is the executable it needs, and `install` how to get it. Immutable."""

    parts = ("server",)

    def __init__(self, name, label, command, prepare, tool, install):
        self.name, self.label, self.tool, self.install = name, label, tool, install
        self._command, self._prepare = command, prepare

    def server_only_cmd(self, port, work):
        return self._command(port, work)

    def prepare(self, work):
        self._prepare(work)


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
TERN_ENGINE = JavaSystem(
    "tern-engine",
    "Tern (engine)",
    "$TERN_CP",
    "$TERN_CP",
    "dev.tern.benchmarks.qps.QpsServer",
    "dev.tern.benchmarks.qps.QpsClient",
    "nio",
    jvm_flags=("-Dtern.http2.engine=tern",),
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
NGHTTPD = ServerOnlySystem(
    "nghttpd",
    "nghttpd (static file)",
    nghttpd_cmd,
    nghttpd_prepare,
    "nghttpd",
    "apt-get install nghttp2-server",
)

SYSTEMS = {s.name: s for s in (TERN, TERN_ENGINE, GRPC_JAVA, NGHTTPD)}


def java_system(name):
    """The JavaSystem called name; fails for a server-only one."""
    system = SYSTEMS[name]
    if not isinstance(system, JavaSystem):
        raise ValueError("%s is not a JVM system" % name)
    return system


def taking_part(names, part):
    """The systems of `names` that take part in `part`, in the table's order."""
    return tuple(n for n in SYSTEMS if n in names and part in SYSTEMS[n].parts)


def parse_systems(text):
    """--systems: a comma-separated list of the table's names, which must include BASE; raises
    ValueError naming what is wrong."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in SYSTEMS]
    if unknown:
        raise ValueError("unknown system %s (known: %s)" % (", ".join(unknown), ", ".join(SYSTEMS)))
    missing = [n for n in BASE if n not in names]
    if missing:
        raise ValueError(
            "the page compares every system with %s: add %s"
            % (" and ".join(BASE), ", ".join(missing))
        )
    return tuple(n for n in SYSTEMS if n in names)
