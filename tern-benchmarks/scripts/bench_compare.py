#!/usr/bin/env python3
"""Runs Tern beside grpc-java 1.79 (and Vert.x gRPC and native peers); writes the page.

Called by bin/bench-compare, which builds tern-benchmarks first and the native peers with
build-peers.sh, and passes the class paths and the peers' folder in the environment (TERN_CP,
GRPC_JAVA_CP, PEERS_DIR). The systems (bench_systems.py, chosen with --systems) are Tern and
grpc-java in every part below, Vert.x gRPC 5.0.7 (issue 52, built by build-peers.sh) in the
end-to-end and server-only parts, and in the server-only part also grpc-go's and tonic's servers
(issue 34's native peers) and nghttpd (a C HTTP/2 server answering with a static file). A system
whose program is not there (a peer build-peers.sh could not build, nghttpd not installed) is
recorded as missing. Thirteen parts, each optional:

  e2e     own qps client against own qps server, unary, 0-byte payloads, 4 channels x {10, 100}
          outstanding, default executor and --directexecutor; systems alternate, each run repeated.
  streaming  own client against own server, ping-pong on one bidi stream (1 channel x 1), 0 B and
          1 KiB messages, default executor and the fastest configuration (--directexecutor on
          both sides: every callback where its bytes arrived); alternating and repeated as e2e.
  large   own client against own server, unary, 1 MiB request and 1 MiB response, 4 channels x 1
          outstanding, default executor; alternating and repeated as e2e.
  server  the qps server alone, pinned to CPU 0, loaded by h2load pinned to CPU 1 posting a
          pre-encoded empty SimpleRequest to BenchmarkService/UnaryCall; grpc-go's and tonic's
          servers of the same service, and nghttpd serving the answer as a static file (the
          machine's HTTP/2 baseline), loaded the same way; and Tern, grpc-java and nghttpd over
          TLS (the -tls systems; OpenSSL, or the JDK's TLS for -jdk), h2load speaking TLS.
  client  the client alone (client_only.py): nghttpd pinned to CPU 0 answering every call with a
          static gRPC response (content-type application/grpc, trailer grpc-status: 0), loaded
          from CPU 1 by h2load (the ceiling) and by Tern's and grpc-java's clients, 4 x 100 as
          the server part; each client's calls/s as a share of h2load's.
  startup launch to first answered call of Tern's, grpc-java's and Vert.x's servers (h2load polls)
          and of Tern's and grpc-java's first-call clients, --startup-runs times each, without and
          with an AppCDS archive of the system's own training launch.
  fanin   the server part's plaintext servers under h2load with --fanin-connections connections
          (1,000 and 10,000) of one stream each: req/s and the server's RSS at the window's end.
  alloc   heap bytes the qps server allocates per empty unary call: the server under the Epsilon
          collector (which frees nothing), h2load 4x100 making --alloc-warmup-calls and then
          --alloc-calls calls, the heap in use read before and after the second batch.
  conns   many connections, each a channel of the system's own (ConnectionsClient) that made one
          empty call to its own qps server (pinned to CPU 0; client on CPU 1), the client ends
          spread over 127.0.0.2..127.0.0.11: the server's live heap (after full collections, read
          through HeapUsedProbe) and RSS before and while it holds --conns-idle idle connections;
          then --conns-new new connections one after another (after as many unmeasured ones),
          connect + first call latency and connections per second.
  echo    the raw loopback limit of the wake-up-bound rows (raw-echo, built by build-peers.sh):
          blocking ping-pong with 1 B (the least a round trip can carry; the 0 B row's limit) and
          1 KiB, one client thread and one server thread, unpinned as the streaming part runs;
          and new connections (connect, one 1-byte round trip, close), the server on CPU 0 and the
          client on CPU 1 as the conns part runs; and the loopback's one-way bandwidth (one
          connection writing 1 MiB at a time to a server that drops what it reads, unpinned as
          the large part runs), the limit of the large-message rows. The page divides those rows
          by these figures.
  tls     JMH TlsBenchmark: handshakes (a new connection and one 1 KiB call) and 1 KiB calls on one
          TLS connection per second, on the JDK's TLS and on OpenSSL (netty-tcnative), with
          --tls-forks forks (their ratio moved by up to 0.3 between runs of one fork); then the
          OpenSSL handshakes with both systems on the X25519 key exchange (-p groups=x25519).
  flow    JMH OneWayStreamBenchmark and LargeUnaryBenchmark with -prof gc: messages per second on
          one stream flowing one way (client to server and server to client, 0 B, 1 KiB and
          64 KiB, each sent only while the call is ready), and 1 MiB and 16 MiB echoed unary
          calls (MiB/s and heap bytes allocated per payload byte delivered). grpc-java's qps
          client has no one-way streaming and its server takes 4 MiB messages at most, hence JMH
          over both systems.
  jmh     CallBenchmark with -prof gc, then CallBenchmark.unaryCall1024
          again with -p otel=true (OpenTelemetry metrics and tracing on, both systems).

With --bridge, none of these runs: bridge_compare.py runs issue 38's bridge benchmark instead
(the same io.grpc qps programs on grpc-java and on tern-grpc-java, beside Tern's own qps tools) and
prints its tables; the page is left alone.

Only the standard library is used here. The page and its chart are written by bench_report.py,
run with $BENCH_REPORT_PYTHON (bin/bench-compare's virtualenv that has matplotlib) if set.
Every process started is in its own process group and is killed on exit, error or signal.

Each run waits until the machine is quiet, and measures the CPU other processes used while it was
measured; a run that shared the machine is run again and, if it shared it again, marked. Figures
taken beside a build or a test suite are what made grpc-java look half as fast as its own tools
show it alone.
"""

import argparse
import copy
import datetime
import glob
import json
import math
import os
import platform
import re
import resource
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import client_only  # beside this script too; given this module's helpers when it runs

# Beside this script, which Python puts first on sys.path.
from bench_systems import (
    BANDWIDTH_KEY,
    BASE,
    EMPTY_FRAME,
    GRPC_JAVA_JDK_CP,
    HEAP_PROBE,
    MISSING,
    PEERS_DIR,
    RAW_ECHO,
    SYSTEMS,
    UNARY_PATH,
    java_system,
    parse_systems,
    qps_programs,
    taking_part,
)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "pylib"))  # the drivers' shared modules
from process_groups import stop_process_group  # noqa: E402 (importable only after the line above)


def abba(systems, repeat):
    """`systems` in the order of run `repeat` (0-based): forwards, then backwards, so that no
    system always runs first or last (ABBA...)."""
    return tuple(systems) if repeat % 2 == 0 else tuple(reversed(systems))


LATENCY_KEYS = ("p50", "p90", "p95", "p99", "p999", "max")
SUMMARY_LINES = [
    ("channels", r"Channels:\s+(\d+)"),
    ("outstanding", r"Outstanding RPCs per Channel:\s+(\d+)"),
    ("server_payload", r"Server Payload Size:\s+(\d+)"),
    ("client_payload", r"Client Payload Size:\s+(\d+)"),
    ("p50", r"50%ile Latency \(in micros\):\s+(\d+)"),
    ("p90", r"90%ile Latency \(in micros\):\s+(\d+)"),
    ("p95", r"95%ile Latency \(in micros\):\s+(\d+)"),
    ("p99", r"99%ile Latency \(in micros\):\s+(\d+)"),
    ("p999", r"99\.9%ile Latency \(in micros\):\s+(\d+)"),
    ("max", r"Maximum Latency \(in micros\):\s+(\d+)"),
    ("qps", r"QPS:\s+(\d+)"),
]

_children = []


def log(msg):
    print("[bench-compare %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def start(cmd, out_path):
    """Starts cmd in its own process group (so cleanup reaches its children), output to a file."""
    out = open(out_path, "wb")
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    out.close()
    _children.append(proc)
    return proc


def stop(proc):
    """Ends one started process group: TERM, then KILL if it lingers 10 s."""
    stop_process_group(proc, term_wait_s=10)
    if proc in _children:
        _children.remove(proc)


def stop_all():
    for proc in list(_children):
        stop(proc)


def _on_signal(signum, _frame):
    raise SystemExit("stopped by signal %d" % signum)


def free_port():
    """A loopback port the kernel just handed out for port 0 (closed again for the server)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, proc, log_path, timeout=90):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("server exited early; see %s:\n%s" % (log_path, tail(log_path)))
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("server did not listen on port %d within %ds" % (port, timeout))


def tail(path, lines=15):
    try:
        with open(path, "r", errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


def server_cmd(system, port, direct):
    """The qps server of a system on the JVM (bench_systems.SYSTEMS), or the raw echo's server."""
    return qps_programs(system).server_cmd(port, direct)


def client_cmd(system, port, outstanding, direct, args, payload=0, channels=4, streaming=False):
    """The qps client of a system on the JVM, or the raw echo's ping-pong, for args.duration s
    after args.warmup s."""
    shape = (payload, channels, streaming)
    return qps_programs(system).client_cmd(
        port, outstanding, direct, args.duration, args.warmup, *shape
    )


def bench_jar():
    """tern-benchmarks' jar (bin/bench-compare builds it), or its expected folder if not built."""
    found = sorted(
        glob.glob(os.path.join(ROOT, "tern-benchmarks", "target", "tern-benchmarks-*.jar"))
    )
    return found[-1] if found else os.path.join(ROOT, "tern-benchmarks", "target", "missing.jar")


def without_tcnative(class_path):
    """`class_path` without netty-tcnative's jars: grpc-java then takes the JDK's TLS."""
    return ":".join(p for p in class_path.split(":") if "netty-tcnative" not in os.path.basename(p))


def expand(cmd):
    """Replaces the class path placeholders (kept in the doc's commands) with the real paths."""
    env = {
        "$TERN_CP": os.environ["TERN_CP"],
        "$GRPC_JAVA_CP": os.environ["GRPC_JAVA_CP"],
        GRPC_JAVA_JDK_CP: without_tcnative(os.environ["GRPC_JAVA_CP"]),
        "$PROBE_CP": os.path.join(ROOT, "tern-benchmarks", "target", "classes"),
        "$TERN_JAR_CP": bench_jar()
        + ":"
        + os.path.join(ROOT, "tern-benchmarks", "target", "lib", "*"),
        "$BENCH_JAR": bench_jar(),
        PEERS_DIR: os.environ.get("PEERS_DIR", ""),
    }
    out = []
    for c in cmd:
        for name, value in env.items():
            c = c.replace(name, value)
        out.append(c)
    return out


def show(cmd):
    """cmd as a shell line, the placeholders ($PORT, $TERN_CP, ...) left for the shell to expand."""
    return " ".join(c if re.fullmatch(r"[\w@%+=:,./$-]+", c) else shlex.quote(c) for c in cmd)


def parse_summary(text):
    result = {}
    for key, pattern in SUMMARY_LINES:
        m = re.search(pattern, text)
        if not m:
            raise RuntimeError("qps client output lacks %r:\n%s" % (key, text[-2000:]))
        result[key] = int(m.group(1))
    return result


def measure_alone(measure, *measure_args, **measure_kwargs):
    """Runs measure(*measure_args, **measure_kwargs) on a quiet machine; a run during which other
    processes used more than CONTENDED_CORES is run once more, and kept marked as contended if
    that one was too."""
    for attempt_no in (1, 2):
        quiet = wait_quiet()
        result = dict(measure(*measure_args, **measure_kwargs), quiet_before=quiet)
        foreign = result.get("foreign_cpu")
        if foreign is None or foreign <= CONTENDED_CORES:
            return result
        log(
            "  other processes used %.2f cores while this run was measured%s"
            % (foreign, "; measuring it again" if attempt_no == 1 else "")
        )
    result["contended"] = True
    return result


def measure_now(measure, *measure_args, **measure_kwargs):
    """measure_alone for a --quick smoke run (as --bridge --quick): runs measure at once, without
    waiting for a quiet machine or measuring again; a contended run is marked as such."""
    result = measure(*measure_args, **measure_kwargs)
    foreign = result.get("foreign_cpu")
    if foreign is not None and foreign > CONTENDED_CORES:
        result["contended"] = True
    return result


def measurer(args):
    """How this run measures: measure_alone, or measure_now for --quick."""
    return measure_now if args.quick else measure_alone


def run_e2e_alone(system, outstanding, direct, args, work, payload=0, channels=4, streaming=False):
    port = free_port()
    tag = "e2e-%s-%dx%d-%s-%d%s" % (
        system,
        channels,
        outstanding,
        "direct" if direct else "default",
        payload,
        "-streaming" if streaming else "",
    )
    srv_log = os.path.join(work, tag + "-server.log")
    server = start(expand(server_cmd(system, port, direct)), srv_log)
    try:
        wait_listening(port, server, srv_log)
        cmd = expand(
            client_cmd(system, port, outstanding, direct, args, payload, channels, streaming)
        )
        rc, out, err, jit, foreign = run_load(cmd, args.warmup, args.duration, server.pid)
        if rc != 0:
            raise RuntimeError("%s client failed (%d):\n%s" % (system, rc, err[-2000:]))
        result = parse_summary(out)
        result["jit_cpu_share"] = jit
        result["foreign_cpu"] = foreign
        return result
    finally:
        stop(server)


def attempt(results, what, measure, *measure_args, **measure_kwargs):
    """Runs measure(*measure_args, **measure_kwargs); a failure is recorded for the report and the
    run goes on."""
    try:
        return measure(*measure_args, **measure_kwargs)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        record_failure(results, what, str(e).strip())
        return None


def record_failure(results, what, message):
    """Logs a failure of `what` and records it for the page's Failures, each message once, with
    this checkout's paths made relative to it (the page names no path of the machine it ran on)."""
    message = message.replace(ROOT + os.sep, "")
    log("FAILED %s: %s" % (what, message))
    errors = results["errors"].setdefault(what, [])
    if message not in errors:
        errors.append(message)


def available(results, what, program):
    """Whether `program` (a system of bench_systems' table, or the raw echo) has the program it
    needs: its tool on PATH, or its peer in $PEERS_DIR. If not, that is recorded once as `what`'s
    failure, starting with MISSING (the page calls its rows missing rather than failed), and the
    run goes on without it."""
    tool = program.tool
    if tool is None or shutil.which(expand([tool])[0]):
        return True
    if tool.startswith(PEERS_DIR) and not os.environ.get("PEERS_DIR"):
        why = "PEERS_DIR is not set (bin/bench-compare sets it to build-peers.sh's output)"
    else:
        why = "no %s (%s)" % (tool, program.install)
    record_failure(results, what, MISSING + why)
    return False


def run_qps_config(
    args, work, results, part, label, key, outstanding, direct, systems=None, **shape
):
    """Runs one configuration of each system's own qps client and server, the systems alternating
    run by run (ABBA...), args.repeats times each; the runs go to results[part][key] and the
    commands to results["commands"]. `shape` is passed on to run_e2e_alone and client_cmd
    (payload, channels, streaming); `label` names the part in the log and in failures. `systems`:
    the part's systems of --systems unless given."""
    systems = systems or taking_part(args.systems, part)
    runs = {s: [] for s in systems}
    # A peer whose program is not there keeps its empty list: the page lists it as missing.
    what = "%s %s, " % (label, key)
    systems = tuple(
        s for s in systems if s not in SYSTEMS or available(results, what + s, SYSTEMS[s])
    )
    for r in range(args.repeats):
        for system in abba(systems, r):
            log("%s %s %s run %d/%d" % (label, key, system, r + 1, args.repeats))
            run = attempt(
                results,
                "%s %s, %s" % (label, key, system),
                measurer(args),
                run_e2e_alone,
                system,
                outstanding,
                direct,
                args,
                work,
                **shape,
            )
            if run:
                runs[system].append(run)
                log("  -> %d calls/s, p50 %d us" % (run["qps"], run["p50"]))
    results[part][key] = runs
    results["commands"]["%s %s" % (part, key)] = {
        s: [
            show(server_cmd(s, 0, direct)).replace(":0", ":$PORT"),
            show(client_cmd(s, 0, outstanding, direct, args, **shape)).replace(":0 ", ":$PORT "),
        ]
        for s in systems
    }


def run_e2e(args, work, results):
    for outstanding in (10, 100):
        for direct in (False, True):
            key = "4x%d %s" % (outstanding, "direct" if direct else "default")
            run_qps_config(args, work, results, "e2e", "end-to-end", key, outstanding, direct)


STREAMING_PAYLOADS = (0, 1024)


def run_streaming(args, work, results):
    """Ping-pong on one bidi stream (1 channel x 1 stream), 0 B and 1 KiB messages each way, each
    system's own client and server, with the default executor and in the fastest configuration
    (direct executor on client and server, as docs/blocking.md describes it): messages per second
    one way is the QPS."""
    for direct in (False, True):
        for payload in STREAMING_PAYLOADS:
            shape = {"payload": payload, "channels": 1, "streaming": True}
            key = streaming_key(payload, direct)
            run_qps_config(args, work, results, "streaming", "streaming", key, 1, direct, **shape)


def streaming_key(payload, direct=False):
    """The streaming part's (and, default executor, the raw echo's) key of a ping-pong
    configuration."""
    key = "ping-pong %s 1x1" % ("1 KiB" if payload else "0 B")
    return key + " direct" if direct else key


LARGE_PAYLOAD = 1024 * 1024


# Runs per system at least, outside --quick, for the parts whose ratio moved most from run to run
# (large messages and connections); they are short, so a third run costs about two minutes each.
NOISY_PART_MIN_REPEATS = 3

# The warm-up of issue 18's own large-message figures; grpc-java's JIT gains more than Tern's from
# the page's longer one, so the large part shows both.
ISSUE_LARGE_WARMUP = 20


def noisy_part_args(args):
    """args with at least NOISY_PART_MIN_REPEATS repeats (unless --quick)."""
    if args.quick or args.repeats >= NOISY_PART_MIN_REPEATS:
        return args
    more = copy.copy(args)
    more.repeats = NOISY_PART_MIN_REPEATS
    return more


def run_large(args, work, results):
    """Unary calls with a 1 MiB request and a 1 MiB response, 4 channels x 1 call in flight, each
    system's own client and server (default executor), alternating like the end-to-end part: once
    after the page's warm-up and, when that is longer, once after ISSUE_LARGE_WARMUP seconds."""
    large_args = noisy_part_args(args)
    shape = {"payload": LARGE_PAYLOAD}
    key = "1 MiB unary 4x1"
    run_qps_config(large_args, work, results, "large", "large messages", key, 1, False, **shape)
    if args.warmup > ISSUE_LARGE_WARMUP:
        short = copy.copy(large_args)
        short.warmup = ISSUE_LARGE_WARMUP
        key = "1 MiB unary 4x1, %d s warm-up" % ISSUE_LARGE_WARMUP
        run_qps_config(short, work, results, "large", "large messages", key, 1, False, **shape)


H2LOAD_CONNECTIONS, H2LOAD_STREAMS = 4, 100


def grpc_post_args(port, body_path, tls=False, path=UNARY_PATH):
    """The h2load and nghttp arguments that POST body_path to UnaryCall (or `path`) as a gRPC
    request (over TLS with ALPN h2 if `tls`)."""
    return [
        "-d",
        body_path,
        "-H",
        "content-type: application/grpc",
        "-H",
        "te: trailers",
        "%s://127.0.0.1:%d%s" % ("https" if tls else "http", port, path),
    ]


def h2load_cmd(
    port,
    body_path,
    args,
    tls=False,
    shape=(H2LOAD_CONNECTIONS, H2LOAD_STREAMS),
    path=UNARY_PATH,
    warmup=None,
):
    """h2load on CPU 1 loading the server on `port` with shape's connections x streams, posting
    to `path`, for args.duration s after `warmup` (default args.server_warmup) s."""
    connections, streams = shape
    warmup = args.server_warmup if warmup is None else warmup
    return [
        "taskset",
        "-c",
        "1",
        "h2load",
        "-c",
        str(connections),
        "-m",
        str(streams),
        "-t",
        "1",
        "-D",
        str(args.duration),
        "--warm-up-time=%d" % warmup,
        *grpc_post_args(port, body_path, tls, path),
    ]


def parse_h2load(text):
    m = re.search(r"finished in [\d.]+\w+, ([\d.]+) req/s", text)
    req = re.search(
        r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, "
        r"(\d+) failed, (\d+) errored, (\d+) timeout",
        text,
    )
    codes = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", text)
    traffic = re.search(r"traffic: .*, [\d.]+\w*B \((\d+)\) data", text)
    if not (m and req and codes and traffic):
        raise RuntimeError("unexpected h2load output:\n" + text[-2000:])
    done, succeeded, failed = int(req.group(3)), int(req.group(4)), int(req.group(5))
    return {
        "req_per_s": float(m.group(1)),
        "done": done,
        "succeeded": succeeded,
        "failed": failed,
        "errored": int(req.group(6)),
        "status_2xx": int(codes.group(1)),
        "status_other": sum(int(codes.group(i)) for i in (2, 3, 4)),
        "data_bytes": int(traffic.group(1)),
    }


def jit_ticks(pid):
    """CPU ticks the JVM's JIT compiler threads (C1, C2) of process pid have used, from /proc."""
    total = 0
    task_dir = "/proc/%d/task" % pid
    try:
        tasks = os.listdir(task_dir)
    except OSError:
        return 0  # the process ended
    for task in tasks:
        try:
            with open(os.path.join(task_dir, task, "comm")) as f:
                if "CompilerThre" not in f.read():
                    continue
            with open(os.path.join(task_dir, task, "stat")) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except OSError:
            pass  # the thread ended
    return total


def busy_ticks():
    """CPU ticks the whole machine has spent busy (user, nice, system, irq, softirq, steal)."""
    with open("/proc/stat") as f:
        fields = f.readline().split()[1:]
    return sum(int(fields[i]) for i in (0, 1, 2, 5, 6, 7))


def process_ticks(pid):
    """CPU ticks (user + system) of process pid and all its threads; 0 once it has ended."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except OSError:
        return 0


# Other processes may use at most this share of a core while a run is measured; a run above it is
# measured again (once) after the machine is quiet, and marked as contended if it still is.
CONTENDED_CORES = 0.25
# Before each run the machine must be this quiet (no benchmark process runs then).
QUIET_CORES = 0.15


def wait_quiet(limit_s=120):
    """Waits (up to limit_s) until the machine's CPU use over 2 s is below QUIET_CORES; returns the
    last level seen, in cores. Whatever else runs here (a build, a test suite) would otherwise be
    measured as part of whichever system happened to run beside it."""
    hz = os.sysconf("SC_CLK_TCK")
    deadline = time.time() + limit_s
    while True:
        before = busy_ticks()
        time.sleep(2)
        level = (busy_ticks() - before) / hz / 2
        if level < QUIET_CORES or time.time() > deadline:
            if level >= QUIET_CORES:
                log(
                    "the machine is still busy (%.2f cores used by others); measuring anyway"
                    % level
                )
            return level
        log("waiting for a quiet machine (%.2f cores in use by other processes)" % level)


def run_load(cmd, warmup, duration, server_pid, at_window_end=None):
    """Runs a load generator that warms up for `warmup` s and then measures for `duration` s.

    Returns its exit code, stdout, stderr, the JIT's share of the measured window, and the CPU
    that other processes used in that window. The JIT's share: for the server and for the load
    generator (a JVM client; 0 for h2load), the CPU their JIT compiler threads used, in cores,
    sampled from the end of the warm-up to a second before the end. Near 0 is the steady state the
    figures are meant to show. The other processes' CPU: the machine's busy time minus the server's
    and the load generator's, in cores; near 0 means the two systems were measured alone. Both are
    None if the load generator ended before the window did (it failed; its exit code and output
    say why, at once). `at_window_end`, if given, is called once at the end of the window, while
    the load still runs.
    """
    # Output goes to files, not pipes: nothing reads a pipe while the window is sampled.
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, start_new_session=True)
        _children.append(proc)
        try:
            pids = {"server": server_pid, "client": proc.pid}
            window = max(duration - 1, 0.5)
            jit = foreign = None
            if not ended_within(proc, warmup):
                before = {k: jit_ticks(p) for k, p in pids.items()}
                own_before = sum(process_ticks(p) for p in pids.values())
                busy_before = busy_ticks()
                if not ended_within(proc, window):
                    if at_window_end:
                        at_window_end()
                    after = {k: jit_ticks(p) for k, p in pids.items()}
                    own = sum(process_ticks(p) for p in pids.values()) - own_before
                    busy = busy_ticks() - busy_before
                    hz = os.sysconf("SC_CLK_TCK")
                    jit = {k: max(after[k] - before[k], 0) / hz / window for k in pids}
                    foreign = max(busy - own, 0) / hz / window
            proc.wait(timeout=duration + 120)
        finally:
            stop(proc)
        out.seek(0)
        err.seek(0)
        return (
            proc.returncode,
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
            jit,
            foreign,
        )


def ended_within(proc, seconds):
    """Waits up to `seconds` for proc to exit; returns whether it did."""
    try:
        proc.wait(timeout=seconds)
        return True
    except subprocess.TimeoutExpired:
        return False


def summary(h2):
    return (
        "%d done, %d succeeded, %d failed, %d errored, %d 2xx, %d other statuses, %d response "
        "data bytes"
        % (
            h2["done"],
            h2["succeeded"],
            h2["failed"],
            h2["errored"],
            h2["status_2xx"],
            h2["status_other"],
            h2["data_bytes"],
        )
    )


def probe(port, body_path, tls=False):
    """The frames that explain a failure (GOAWAY, RST_STREAM, grpc-status) for one request."""
    try:
        done = subprocess.run(
            ["nghttp", "-v", *grpc_post_args(port, body_path, tls)],
            capture_output=True,
            text=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return "(nghttp probe failed: %s)" % e
    # Without nghttp's timestamps, so the same failure reads the same on every run.
    keep = [
        re.sub(r"^\[\s*[\d.]+\]\s*", "", line.strip())
        for line in done.stdout.splitlines()
        if re.search(r"GOAWAY|RST_STREAM|opaque_data|error_code|grpc-status|grpc-message", line)
    ]
    return " | ".join(keep) or "(nothing unusual)"


def run_server_once(system, args, work, body_path, shape=(H2LOAD_CONNECTIONS, H2LOAD_STREAMS)):
    return measurer(args)(run_server_alone, system, args, work, body_path, shape)


def server_only_cmd(system, port, work):
    """The server the server-only part loads, pinned to CPU 0."""
    return ["taskset", "-c", "0"] + SYSTEMS[system].server_only_cmd(port, work)


def h2load_ok(result, in_flight, answer_bytes):
    """Whether an h2load run (parse_h2load's figures) saw only good answers: none failed or
    errored, and every finished request had a 2xx and at least `answer_bytes` of DATA. h2load counts
    statuses and bytes of requests open when the clock starts or stops apart from "done", so the
    totals may differ by up to the `in_flight` requests. 2xx alone does not prove success: a gRPC
    error is a 200 with trailers only, and no DATA."""
    return (
        result["failed"] == 0
        and result["errored"] == 0
        and result["done"] > 0
        and result["succeeded"] == result["done"]
        and result["status_other"] == 0
        and result["status_2xx"] >= result["done"] - in_flight
        and result["data_bytes"] >= answer_bytes * (result["done"] - in_flight)
    )


def run_server_alone(system, args, work, body_path, shape):
    port = free_port()
    srv_log = os.path.join(work, "server-only-%s.log" % system)
    server = start(expand(server_only_cmd(system, port, work)), srv_log)
    tls = SYSTEMS[system].tls
    in_flight = shape[0] * shape[1]
    memory = {}
    try:
        wait_listening(port, server, srv_log)
        rc, out, err, jit, foreign = run_load(
            h2load_cmd(port, body_path, args, tls, shape),
            args.server_warmup,
            args.duration,
            server.pid,
            at_window_end=lambda: memory.update(rss=rss(server.pid)),
        )
        if rc != 0:
            raise RuntimeError("h2load failed (%d):\n%s%s" % (rc, out[-1500:], err[-1500:]))
        result = parse_h2load(out)
        result["jit_cpu_share"] = jit
        result["foreign_cpu"] = foreign
        result["server_rss"] = memory.get("rss")
        # A good answer carries one 5-byte frame (the empty SimpleResponse; nghttpd's file holds
        # the same bytes) in DATA.
        result["ok"] = h2load_ok(result, in_flight, len(EMPTY_FRAME))
        if not result["ok"]:
            raise RuntimeError(
                "h2load saw unsuccessful responses (%s); one request seen by "
                "nghttp -v: %s" % (summary(result), probe(port, body_path, tls))
            )
        return result
    finally:
        stop(server)


def run_server_only(args, work, results):
    body_path = os.path.join(work, "empty-unary-request.bin")
    with open(body_path, "wb") as f:
        f.write(EMPTY_FRAME)
    systems = taking_part(args.systems, "server")
    # A system whose program is not there keeps its empty list: the page lists it as missing.
    runs = {s: [] for s in systems}
    systems = tuple(s for s in systems if available(results, "server-only, " + s, SYSTEMS[s]))
    for system in systems:
        SYSTEMS[system].prepare(work)
    for r in range(args.repeats):
        for system in abba(systems, r):
            log("server-only %s run %d/%d" % (system, r + 1, args.repeats))
            run = attempt(
                results,
                "server-only, %s" % system,
                run_server_once,
                system,
                args,
                work,
                body_path,
            )
            if run:
                runs[system].append(run)
                log("  -> %.0f req/s" % run["req_per_s"])
    results["server"] = runs
    results["commands"]["server-only"] = {
        s: [
            show(server_only_cmd(s, "$PORT", "$WORK")),
            show(h2load_cmd(0, "empty-unary-request.bin", args, SYSTEMS[s].tls)).replace(
                ":0/", ":$PORT/"
            ),
        ]
        for s in systems
    }
    results["commands"]["server-only body"] = "printf '\\0\\0\\0\\0\\0' > empty-unary-request.bin"
    if any(SYSTEMS[s].tls for s in systems):
        results["commands"]["server-only TLS certificate"] = (
            "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
            "-subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 "
            "-keyout $WORK/tls/key.pem -out $WORK/tls/cert.pem"
        )
    if "nghttpd" in systems or "nghttpd-tls" in systems:
        results["commands"]["server-only nghttpd's file"] = (
            "mkdir -p $WORK/nghttpd-htdocs%s && cp empty-unary-request.bin $WORK/nghttpd-htdocs%s"
            % (os.path.dirname(UNARY_PATH), UNARY_PATH)
        )


def fanin_shapes(args):
    """The many-connections part's connection counts (one stream each): --fanin-connections."""
    return tuple(int(c) for c in args.fanin_connections.split(","))


def run_fanin(args, work, results):
    """Server-only with many connections of one stream each (issue 52's third target: the shape of
    a large fleet of clients): each plaintext server of the server-only part under h2load with
    1,000 and 10,000 connections x 1 stream, its req/s and its resident memory at the end of the
    measured window."""
    body_path = os.path.join(work, "empty-unary-request.bin")
    with open(body_path, "wb") as f:
        f.write(EMPTY_FRAME)
    systems = tuple(s for s in taking_part(args.systems, "server") if not SYSTEMS[s].tls)
    shapes = fanin_shapes(args)
    raise_fd_limit(max(shapes))
    systems = tuple(s for s in systems if available(results, "fan-in, " + s, SYSTEMS[s]))
    for system in systems:
        SYSTEMS[system].prepare(work)
    out = {}
    for connections in shapes:
        key = "%d x 1" % connections
        runs = out[key] = {s: [] for s in systems}
        for r in range(args.repeats):
            for system in abba(systems, r):
                log("fan-in %s, %s run %d/%d" % (key, system, r + 1, args.repeats))
                shape = (connections, 1)
                run = attempt(
                    results, "fan-in %s, %s" % (key, system), run_server_once, system, args, work,
                    body_path, shape,
                )  # fmt: skip
                if run:
                    runs[system].append(run)
                    log("  -> %.0f req/s, server RSS %s" % (run["req_per_s"], run["server_rss"]))
    results["fanin"] = out
    results["commands"]["fan-in"] = [
        show(h2load_cmd(0, "empty-unary-request.bin", args, False, (c, 1))).replace(
            ":0/", ":$PORT/"
        )
        for c in shapes
    ]


# The start-up part: the systems whose server (and, where it has one here, first-call client) it
# times, and the client programs (tern-benchmarks' dev.tern.benchmarks.startup).
# AppCDS takes jars only on the class path, so every launch of this part runs tern-benchmarks from
# its jar ($BENCH_JAR), not from its classes folder.
STARTUP_CLIENTS = {
    "tern": ["java", "-cp", "$TERN_JAR_CP", "dev.tern.benchmarks.startup.TernFirstCall"],
    "grpc-java": [
        "java",
        "-cp",
        "$GRPC_JAVA_CP:$BENCH_JAR",
        "dev.tern.benchmarks.startup.GrpcJavaFirstCall",
    ],
}


def startup_server_cmd(system, port, work):
    """`system`'s server as the server-only part starts it, unpinned, Tern's from its jar."""
    return [
        c.replace("$TERN_CP", "$TERN_JAR_CP") for c in SYSTEMS[system].server_only_cmd(port, work)
    ]


FIRST_CALL_DONE = "first call answered"


def first_served_call(port, body_path, proc, log_path, timeout=120):
    """Seconds from now until the server on `port` (process proc) answers a call: the port polled
    every 5 ms, then one h2load call (repeated until it succeeds)."""
    begin = time.monotonic()
    deadline = begin + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("server exited early; see %s:\n%s" % (log_path, tail(log_path)))
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                pass
        except OSError:
            time.sleep(0.005)
            continue
        done = subprocess.run(
            ["h2load", "-n", "1", "-c", "1", *grpc_post_args(port, body_path)],
            capture_output=True,
            text=True,
        )
        if done.returncode == 0 and re.search(r"1 succeeded", done.stdout):
            return time.monotonic() - begin
    raise RuntimeError("no call answered within %d s; see %s" % (timeout, log_path))


def startup_env(cds):
    """The environment of a timed JVM: JAVA_TOOL_OPTIONS carrying the AppCDS flag (`cds`: None,
    or (flag, archive)) so that a launcher script (Vert.x's) passes it on too."""
    env = dict(os.environ)
    if cds:
        env["JAVA_TOOL_OPTIONS"] = "-XX:%s=%s" % cds
    return env


def time_server_start(system, work, body_path, cds=None):
    """One launch of `system`'s server: seconds from launch to its first answered call."""
    port = free_port()
    srv_log = os.path.join(work, "startup-%s.log" % system)
    out = open(srv_log, "wb")
    cmd = expand(startup_server_cmd(system, port, work))
    begin = time.monotonic()
    proc = subprocess.Popen(
        cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=startup_env(cds)
    )
    out.close()
    _children.append(proc)
    try:
        first_served_call(port, body_path, proc, srv_log)
        return time.monotonic() - begin
    finally:
        stop(proc)


def time_client_start(system, port, cds=None):
    """One launch of `system`'s first-call client against the server on `port`: seconds from
    launch to its line saying the call was answered. A training launch (AppCDS's
    ArchiveClassesAtExit) is left to exit by itself, as the archive is written at exit."""
    cmd = expand(STARTUP_CLIENTS[system] + ["127.0.0.1:%d" % port])
    begin = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
        env=startup_env(cds),
    )
    _children.append(proc)
    try:
        for line in proc.stdout:
            if line.strip() == FIRST_CALL_DONE:
                took = time.monotonic() - begin
                if cds and cds[0] == "ArchiveClassesAtExit":
                    proc.wait(timeout=120)
                return took
        raise RuntimeError("%s's first-call client ended without an answer" % system)
    finally:
        stop(proc)


def startup_of(system, args, work, results, port, body_path, figures):
    """The start-up launches of one system, into `figures` (lists of seconds by key): its AppCDS
    training launches, then --startup-runs rounds of server, server with AppCDS, client and client
    with AppCDS (a client only where STARTUP_CLIENTS has one; AppCDS only if training wrote an
    archive)."""
    what = {"server": "startup, " + system, "client": "startup, %s client" % system}

    def launch(kind, cds):
        if kind == "server":
            return attempt(results, what[kind], time_server_start, system, work, body_path, cds)
        return attempt(results, what[kind], time_client_start, system, port, cds)

    kinds = ("server", "client") if system in STARTUP_CLIENTS else ("server",)
    archives = {k: os.path.join(work, "startup-%s-%s.jsa" % (system, k)) for k in kinds}
    log("start-up %s: AppCDS training launches" % system)
    for kind in kinds:
        if os.path.exists(archives[kind]):
            os.remove(archives[kind])  # an earlier run's, perhaps of other classes
        launch(kind, ("ArchiveClassesAtExit", archives[kind]))
    for _ in range(args.startup_runs):
        for kind in kinds:
            for key, cds in ((kind, None), (kind + "_cds", ("SharedArchiveFile", archives[kind]))):
                if cds and not os.path.exists(archives[kind]):
                    continue
                took = launch(kind, cds)
                if took is not None:
                    figures[key].append(took)
    log("  -> %s" % {k: ["%.0f ms" % (1000 * t) for t in v] for k, v in figures.items()})


def run_startup(args, work, results):
    """Start-up (issue 52's seventh target): for each JVM system, the time from launching its
    server to its first answered call, and from launching its first-call client to its answer,
    each --startup-runs times; then the same with an AppCDS archive the system's own training
    launch wrote (-XX:ArchiveClassesAtExit, then -XX:SharedArchiveFile). Unpinned: start-up uses
    every core a user's machine gives it."""
    body_path = os.path.join(work, "empty-unary-request.bin")
    with open(body_path, "wb") as f:
        f.write(EMPTY_FRAME)
    systems = tuple(
        s
        for s in taking_part(args.systems, "server")
        if s in ("tern", "grpc-java", "vertx") and available(results, "startup, " + s, SYSTEMS[s])
    )
    out = {s: {"server": [], "server_cds": [], "client": [], "client_cds": []} for s in systems}
    if not args.quick:
        wait_quiet()
    # The clients call Tern's qps server, started once and already answering.
    port = free_port()
    target_log = os.path.join(work, "startup-target.log")
    target = start(expand(server_only_cmd("tern", port, work)), target_log)
    try:
        first_served_call(port, body_path, target, target_log)
        for system in systems:
            startup_of(system, args, work, results, port, body_path, out[system])
    finally:
        stop(target)
    results["startup"] = out
    results["commands"]["startup"] = {
        s: [show(startup_server_cmd(s, "$PORT", "$WORK"))]
        + ([show(STARTUP_CLIENTS[s] + ["127.0.0.1:$PORT"])] if s in STARTUP_CLIENTS else [])
        for s in systems
    }


ALLOC_HEAP = "10g"
# The collector that frees nothing, so that heap growth is what was allocated.
EPSILON = (
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+UseEpsilonGC",
    "-Xms" + ALLOC_HEAP,
    "-Xmx" + ALLOC_HEAP,
)


def alloc_server_cmd(system, port):
    """The qps server under the Epsilon collector (nothing is freed, so heap growth is what the
    server allocated), run by HeapUsedProbe, which reports the heap in use on a port of its own."""
    java = java_system(system)
    return java.java(HEAP_PROBE, *java.server_args(port, False), jvm=EPSILON, cp=java.probe_cp)


def heap_used(port):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        return int(s.makefile().readline())


def h2load_count_cmd(port, body_path, requests):
    return [
        "taskset",
        "-c",
        "1",
        "h2load",
        "-c",
        str(H2LOAD_CONNECTIONS),
        "-m",
        str(H2LOAD_STREAMS),
        "-t",
        "1",
        "-n",
        str(requests),
        *grpc_post_args(port, body_path),
    ]


def run_alloc_once(system, args, work, body_path):
    port = free_port()
    srv_log = os.path.join(work, "alloc-%s.log" % system)
    cmd = ["taskset", "-c", "0"] + expand(alloc_server_cmd(system, port))
    server = start(cmd, srv_log)
    try:
        wait_listening(port, server, srv_log)
        probe = probe_port(srv_log)
        used = []
        for requests in (args.alloc_warmup_calls, args.alloc_calls):
            done = subprocess.run(
                h2load_count_cmd(port, body_path, requests),
                capture_output=True,
                text=True,
                timeout=600,
            )
            h2 = parse_h2load(done.stdout)
            if done.returncode != 0 or h2["succeeded"] != requests or h2["status_other"]:
                raise RuntimeError("h2load: %s\n%s" % (summary(h2), done.stdout[-1500:]))
            used.append(heap_used(probe))
        return {"bytes_per_call": (used[1] - used[0]) / args.alloc_calls, "heap_used": used}
    finally:
        stop(server)


CLIENT_ALLOC_SECONDS = (4, 14)


def alloc_client_cmd(system, port, duration):
    """A qps client (4x10, empty calls, direct executor, no warm-up) under Epsilon GC, run by
    HeapUsedProbe, which prints the heap in use when the client exits."""
    java = java_system(system)
    main = java.client_args(port, 10, True, duration, 0, payload=0, channels=4, streaming=False)
    return java.java(HEAP_PROBE, *main, jvm=EPSILON, cp=java.probe_cp)


def run_client_alloc_once(system, work):
    """Client heap bytes per call: two runs of the client against Tern's server (the same server
    for both clients), CLIENT_ALLOC_SECONDS long; the difference of their heaps at exit over the
    difference of their calls, so start-up and JIT warm-up cancel out."""
    points = []
    for seconds in CLIENT_ALLOC_SECONDS:
        port = free_port()
        srv_log = os.path.join(work, "client-alloc-server.log")
        server = start(["taskset", "-c", "0"] + expand(server_cmd("tern", port, True)), srv_log)
        try:
            wait_listening(port, server, srv_log)
            done = subprocess.run(
                ["taskset", "-c", "1"] + expand(alloc_client_cmd(system, port, seconds)),
                capture_output=True,
                text=True,
                timeout=seconds + 120,
            )
        finally:
            stop(server)
        text = done.stdout + done.stderr
        qps = re.search(r"QPS:\s+(\d+)", text)
        heap = re.search(r"heap used at exit: (\d+)", text)
        if not (qps and heap):
            raise RuntimeError("%s client under the heap probe:\n%s" % (system, text[-1500:]))
        points.append((int(qps.group(1)) * seconds, int(heap.group(1))))
    (calls0, heap0), (calls1, heap1) = points
    return {"bytes_per_call": (heap1 - heap0) / (calls1 - calls0), "points": points}


def run_alloc(args, work, results):
    body_path = os.path.join(work, "empty-unary-request.bin")
    with open(body_path, "wb") as f:
        f.write(EMPTY_FRAME)
    systems = taking_part(args.systems, "alloc")
    runs = {s: [] for s in systems}
    for system in systems:
        log("server allocation %s" % system)
        run = attempt(
            results, "server allocation, %s" % system, run_alloc_once, system, args, work, body_path
        )
        if run:
            runs[system].append(run)
            log("  -> %.0f bytes per call" % run["bytes_per_call"])
    results["alloc"] = runs
    client_runs = {s: [] for s in systems}
    for system in systems:
        log("client allocation %s" % system)
        run = attempt(
            results, "client allocation, %s" % system, run_client_alloc_once, system, work
        )
        if run:
            client_runs[system].append(run)
            log("  -> %.0f bytes per call" % run["bytes_per_call"])
    results["client_alloc"] = client_runs
    results["commands"]["alloc client"] = {
        s: [
            "taskset -c 0 " + show(server_cmd("tern", 0, True)).replace(":0", ":$PORT"),
            "taskset -c 1 " + show(alloc_client_cmd(s, 0, "$SECONDS")).replace(":0 ", ":$PORT "),
            "(for SECONDS = %d and %d: bytes per call = difference of 'heap used at exit' / "
            "difference of QPS x SECONDS)" % CLIENT_ALLOC_SECONDS,
        ]
        for s in systems
    }
    results["commands"]["alloc"] = {
        s: [
            "taskset -c 0 " + show(alloc_server_cmd(s, 0)).replace(":0", ":$PORT"),
            show(h2load_count_cmd(0, "empty-unary-request.bin", args.alloc_warmup_calls)).replace(
                ":0/", ":$PORT/"
            ),
            "(read the heap in use from the probe's port)",
            show(h2load_count_cmd(0, "empty-unary-request.bin", args.alloc_calls)).replace(
                ":0/", ":$PORT/"
            ),
            "(read it again: bytes per call = growth / calls)",
        ]
        for s in systems
    }


# The connections part. The client ends of the connections are spread over 127.0.0.2..127.0.0.11:
# a socket bound before it connects takes an ephemeral port of its own address, and one address
# has ~28,000 (Linux's default range), too few for 10,000 idle connections per run plus the
# TIME_WAIT remains of the runs before it.
CONNS_SOURCE_ADDRESSES = 10
# Connections made and closed before the baseline of the idle measurement, so that the server has
# loaded and initialised what serving a connection needs: the growth after it is the connections'.
CONNS_SERVER_WARMUP = 100
# Seconds between the idle client reporting its connections up and the server's memory being read:
# the server may still be finishing the last connections' first calls.
CONNS_SETTLE_S = 2
# Warm-up connections of the second new-connections row. After as many warm-up connections as
# timed ones, both JVMs are still compiling the connection path (C2 threads took a third of the
# machine's CPU in a profile of that phase), and the rate moved from 1.35x to 1.71x between full
# runs; after this many, compilation has died down on both and the row measures connection set-up.
CONNS_SETTLED_WARMUP = 8000
# File descriptors a JVM needs beyond one per connection (its jars, selectors, pipes).
CONNS_FD_MARGIN = 1000


def conns_server_cmd(system, port):
    """The qps server (default collector and heap) run by HeapUsedProbe, which answers with the
    live heap after a full collection; pinned to CPU 0."""
    java = java_system(system)
    return ["taskset", "-c", "0"] + java.java(
        HEAP_PROBE, *java.server_args(port, False), cp=java.probe_cp
    )


def conns_client_cmd(system, port, *mode):
    """ConnectionsClient on `system`'s channels (Tern's or grpc-java's, in a JVM with the system's
    flags), or the raw echo's connections client, pinned to CPU 1; `mode`: --idle_connections=N
    (not the echo) or --new_connections=N [--warmup_connections=W]."""
    return [
        "taskset",
        "-c",
        "1",
        *qps_programs(system).connections_client(),
        "--address=127.0.0.1:%d" % port,
        "--source_addresses=%d" % CONNS_SOURCE_ADDRESSES,
        *mode,
    ]


def raise_fd_limit(connections):
    """Raises this process's soft limit of open files (inherited by the server and the client it
    starts) to the hard limit if `connections` need more; fails naming the limit if even the hard
    limit is too low."""
    need = connections + CONNS_FD_MARGIN
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < need:
        raise RuntimeError(
            "%d idle connections need about %d open files in the server and in the client, but "
            "the hard limit (ulimit -Hn) is %d: raise it, or lower --conns-idle"
            % (connections, need, hard)
        )
    if soft != resource.RLIM_INFINITY and soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def probe_port(srv_log):
    """The port HeapUsedProbe printed in the server's log."""
    m = re.search(r"heap probe listening on port (\d+)", tail(srv_log, 50))
    if not m:
        raise RuntimeError("no heap probe port in %s:\n%s" % (srv_log, tail(srv_log)))
    return int(m.group(1))


def live_heap(port):
    """The server's heap in use after full collections (HeapUsedProbe's `gc` request on its
    port), bytes."""
    with socket.create_connection(("127.0.0.1", port), timeout=120) as s:
        f = s.makefile("rw")
        f.readline()  # the heap in use now, garbage included
        f.write("gc\n")
        f.flush()
        return int(f.readline())


def rss(pid):
    """The resident set size of process pid (VmRSS in /proc/PID/status), bytes."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS for process %d" % pid)


# 127.0.0.1 as /proc/net/tcp and /proc/net/tcp6 (an IPv4-mapped address) spell it.
LOOPBACK_HEX = ("0100007F", "0000000000000000FFFF00000100007F")


def established(port):
    """TCP connections in state ESTABLISHED whose local end is 127.0.0.1:`port` (the server's
    ends; a client end on 127.0.0.2.. may have the same port number), IPv4 and IPv6 (a dual-stack
    listener's IPv4 connections are listed in tcp6)."""
    local = {"%s:%04X" % (address, port) for address in LOOPBACK_HEX}
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)  # the header
                for line in f:
                    fields = line.split()
                    if fields[3] == "01" and fields[1] in local:
                        count += 1
        except OSError:
            pass  # no IPv6
    return count


# How long conns_port() waits for ports to leave TIME_WAIT (Linux keeps them 60 s).
CONNS_PORT_WAIT_SECONDS = 75


def conns_port(sleep=time.sleep, clock=time.monotonic, wait_seconds=CONNS_PORT_WAIT_SECONDS):
    """A port as free_port() gives, that no socket on the source addresses holds either: the
    client ends of earlier runs linger there in TIME_WAIT for a minute, on ports of the same range,
    and one on the server's port would make grpc-java's server (which listens on every address of
    its port) fail to start. After a run of thousands of new connections most ports are held on
    one source address or another; it then tries again every few seconds as they leave TIME_WAIT,
    for up to `wait_seconds`."""
    deadline = clock() + wait_seconds
    while True:
        for _ in range(100):
            port = free_port()
            if port_free_on_sources(port):
                return port
        if clock() >= deadline:
            raise RuntimeError(
                "found no port free on all of 127.0.0.1..127.0.0.%d in %d s"
                % (1 + CONNS_SOURCE_ADDRESSES, wait_seconds)
            )
        sleep(5)


def port_free_on_sources(port):
    """Whether `port` can be bound on every source address (127.0.0.2 and on)."""
    try:
        for i in range(CONNS_SOURCE_ADDRESSES):
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                s.bind(("127.0.0.%d" % (2 + i), port))
        return True
    except OSError:
        return False


def wait_for_line(path, pattern, proc, timeout):
    """Waits until the log at `path` has a line matching `pattern`; returns the match. Fails if
    proc exits first or the line does not come within `timeout` seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        m = re.search(pattern, tail(path, 50))
        if m:
            return m
        if proc.poll() is not None:
            raise RuntimeError(
                "the client exited (%d); see %s:\n%s" % (proc.returncode, path, tail(path))
            )
        time.sleep(0.5)
    raise RuntimeError("no %r in %s within %d s:\n%s" % (pattern, path, timeout, tail(path)))


def run_conns_idle_once(system, args, work):
    """The server's live heap and RSS before and while it holds args.conns_idle idle connections,
    each a channel of the system's own that made one empty call."""
    raise_fd_limit(args.conns_idle)
    port = conns_port()
    srv_log = os.path.join(work, "conns-idle-%s-server.log" % system)
    server = start(expand(conns_server_cmd(system, port)), srv_log)
    try:
        wait_listening(port, server, srv_log)
        probe = probe_port(srv_log)
        warm = subprocess.run(
            expand(conns_client_cmd(system, port, "--new_connections=%d" % CONNS_SERVER_WARMUP)),
            capture_output=True,
            text=True,
            timeout=300,
        )
        if warm.returncode != 0:
            raise RuntimeError(
                "warming connections failed (%d):\n%s" % (warm.returncode, warm.stderr[-1500:])
            )
        heap0, rss0 = live_heap(probe), rss(server.pid)
        cli_log = os.path.join(work, "conns-idle-%s-client.log" % system)
        client = start(
            expand(conns_client_cmd(system, port, "--idle_connections=%d" % args.conns_idle)),
            cli_log,
        )
        try:
            m = wait_for_line(
                cli_log,
                r"idle connections: (\d+) \(opened in ([\d.]+) s",
                client,
                120 + args.conns_idle / 20,
            )
            time.sleep(CONNS_SETTLE_S)
            held = established(port)
            heap1, rss1 = live_heap(probe), rss(server.pid)
        finally:
            stop(client)
    finally:
        stop(server)
    n = int(m.group(1))
    if held < n:
        raise RuntimeError(
            "the client reported %d connections up, but the server's port had %d established"
            % (n, held)
        )
    return {
        "connections": n,
        "established": held,
        "open_seconds": float(m.group(2)),
        "heap": [heap0, heap1],
        "rss": [rss0, rss1],
        "heap_per_connection": (heap1 - heap0) / n,
        "rss_per_connection": (rss1 - rss0) / n,
    }


NEW_CONNS_LINES = [
    ("connections", r"New connections:\s+(\d+)"),
    ("p50", r"50%ile Latency \(in micros\):\s+(\d+)"),
    ("p90", r"90%ile Latency \(in micros\):\s+(\d+)"),
    ("p99", r"99%ile Latency \(in micros\):\s+(\d+)"),
    ("max", r"Maximum Latency \(in micros\):\s+(\d+)"),
    ("per_second", r"Connections per second:\s+(\d+)"),
]


def run_conns_new_once(system, args, work, warmup=None):
    """args.conns_new new connections of the system's own channels to its own server, one after
    another, after `warmup` unmeasured ones (default: as many); with the CPU other processes used
    meanwhile."""
    warmup = args.conns_new if warmup is None else warmup
    port = conns_port()
    srv_log = os.path.join(work, "conns-new-%s-%d-server.log" % (system, warmup))
    server = start(["taskset", "-c", "0"] + expand(server_cmd(system, port, False)), srv_log)
    try:
        wait_listening(port, server, srv_log)
        cli_log = os.path.join(work, "conns-new-%s-%d-client.log" % (system, warmup))
        flags = new_conns_flags(args, warmup)
        client = start(expand(conns_client_cmd(system, port, *flags)), cli_log)
        try:
            # Sampled until the client exits: the last sample ends the window, so the client's
            # CPU after it is not counted as other processes'.
            deadline = time.time() + 120 + 0.1 * (args.conns_new + warmup)
            pids = (server.pid, client.pid)
            first = last = None
            while client.poll() is None:
                if time.time() > deadline:
                    raise RuntimeError("the client did not finish in time; see %s" % cli_log)
                sample = (time.time(), busy_ticks(), sum(process_ticks(p) for p in pids))
                first, last = first or sample, sample
                time.sleep(0.2)
        finally:
            stop(client)
    finally:
        stop(server)
    text = tail(cli_log, 40)
    if client.returncode != 0:
        raise RuntimeError("the client failed (%d):\n%s" % (client.returncode, text[-1500:]))
    result = {}
    for key, pattern in NEW_CONNS_LINES:
        m = re.search(pattern, text)
        if not m:
            raise RuntimeError("the client's output lacks %r:\n%s" % (key, text[-1500:]))
        result[key] = int(m.group(1))
    # Other processes' CPU over the client's life (JVM start and warm-up included), in cores.
    if first and last and last[0] > first[0]:
        hz = os.sysconf("SC_CLK_TCK")
        busy, own = last[1] - first[1], last[2] - first[2]
        result["foreign_cpu"] = max(busy - own, 0) / hz / (last[0] - first[0])
    return result


def new_conns_flags(args, warmup=None):
    warmup = args.conns_new if warmup is None else warmup
    return ["--new_connections=%d" % args.conns_new, "--warmup_connections=%d" % warmup]


def settled_warmup(args):
    """The second new-connections row's warm-up: CONNS_SETTLED_WARMUP, scaled down with a
    --quick run's fewer connections."""
    return CONNS_SETTLED_WARMUP if args.conns_new >= 1000 else 4 * args.conns_new


def run_conns(args, work, results):
    """Idle connections (server memory) and new connections (latency and rate), each system's own
    channels against its own qps server, the systems alternating run by run (at least
    NOISY_PART_MIN_REPEATS runs each)."""
    args = noisy_part_args(args)
    systems = taking_part(args.systems, "conns")
    idle = {s: [] for s in systems}
    for r in range(args.repeats):
        for system in abba(systems, r):
            log("connections idle %s run %d/%d" % (system, r + 1, args.repeats))
            run = attempt(
                results, "connections idle, %s" % system, run_conns_idle_once, system, args, work
            )
            if run:
                idle[system].append(run)
                log(
                    "  -> %d connections: heap %.0f B, RSS %.0f B per connection"
                    % (run["connections"], run["heap_per_connection"], run["rss_per_connection"])
                )
    new = {s: [] for s in systems}
    settled = {s: [] for s in systems}
    for kind, runs, warmup in (("new", new, None), ("new_settled", settled, settled_warmup(args))):
        for r in range(args.repeats):
            for system in abba(systems, r):
                log("connections %s %s run %d/%d" % (kind, system, r + 1, args.repeats))
                run = attempt(
                    results,
                    "connections %s, %s" % (kind, system),
                    measurer(args),
                    run_conns_new_once,
                    system,
                    args,
                    work,
                    warmup,
                )
                if run:
                    runs[system].append(run)
                    log("  -> %d connections/s, p50 %d us" % (run["per_second"], run["p50"]))
    results["conns"] = {
        "idle": idle,
        "new": new,
        "new_settled": settled,
        "settled_warmup": settled_warmup(args),
        "sources": "127.0.0.2..127.0.0.%d" % (1 + CONNS_SOURCE_ADDRESSES),
        "server_warmup": CONNS_SERVER_WARMUP,
        "settle_s": CONNS_SETTLE_S,
    }
    results["commands"]["connections idle"] = {
        s: [
            show(conns_server_cmd(s, 0)).replace(":0", ":$PORT"),
            show(conns_client_cmd(s, 0, "--new_connections=%d" % CONNS_SERVER_WARMUP)).replace(
                ":0 ", ":$PORT "
            ),
            "(live heap: connect to the probe's port, read a line, send 'gc', read the answer; "
            "RSS: VmRSS of /proc/$SERVER_PID/status)",
            show(conns_client_cmd(s, 0, "--idle_connections=%d" % args.conns_idle)).replace(
                ":0 ", ":$PORT "
            ),
            "(when it prints 'idle connections: N', wait %d s and read both again: per connection "
            "= growth / N)" % CONNS_SETTLE_S,
        ]
        for s in systems
    }
    results["commands"]["connections new"] = {
        s: [
            "taskset -c 0 " + show(server_cmd(s, 0, False)).replace(":0", ":$PORT"),
            show(conns_client_cmd(s, 0, *new_conns_flags(args))).replace(":0 ", ":$PORT "),
            "(the settled row: the same with --warmup_connections=%d)" % settled_warmup(args),
        ]
        for s in systems
    }


def run_echo(args, work, results):
    """The raw loopback limit of the streaming ping-pong and new-connections rows: the raw echo
    (bench_systems.RAW_ECHO) run by those parts' own code, in those parts' topology (ping-pong
    unpinned, as the streaming part runs; new connections with the server on CPU 0 and the client
    on CPU 1, 10 source addresses, as the conns part runs). A round trip carries at least 1 byte,
    so the 0 B row's limit is measured with 1 B. Stored under the streaming rows' keys and "new
    connections". And the limit of the large-message rows (issue 52): the loopback's one-way
    bandwidth, one connection writing 1 MiB at a time to a server that drops what it reads,
    unpinned as the large-message part runs; stored under BANDWIDTH_KEY."""
    results["echo"] = {}
    echo = RAW_ECHO.name
    if not available(results, "raw echo, " + echo, RAW_ECHO):
        return
    echo_args = copy.copy(noisy_part_args(args))
    echo_args.warmup = RAW_ECHO.warmup
    label = "raw echo"
    for payload in STREAMING_PAYLOADS:
        shape = {"payload": max(payload, 1), "channels": 1, "streaming": True}
        key = streaming_key(payload)
        run_qps_config(echo_args, work, results, "echo", label, key, 1, False, (echo,), **shape)
    repeat_echo(
        echo_args,
        results,
        "new connections",
        lambda run: "%d connections/s, p50 %d us" % (run["per_second"], run["p50"]),
        run_conns_new_once,
        echo,
        echo_args,
        work,
    )
    results["commands"]["echo new connections"] = {
        echo: [
            "taskset -c 0 " + show(server_cmd(echo, 0, False)).replace(":0", ":$PORT"),
            show(conns_client_cmd(echo, 0, *new_conns_flags(args))).replace(":0 ", ":$PORT "),
        ]
    }
    repeat_echo(
        echo_args,
        results,
        BANDWIDTH_KEY,
        lambda run: "%.0f MiB/s" % (run["bytes_per_second"] / (1 << 20)),
        run_bandwidth_once,
        echo_args,
        work,
    )
    results["commands"]["echo bandwidth"] = {
        echo: [
            show(RAW_ECHO.sink_cmd("$PORT")),
            show(RAW_ECHO.bandwidth_cmd("$PORT", LARGE_PAYLOAD, RAW_ECHO.warmup, args.duration)),
        ]
    }


def repeat_echo(echo_args, results, key, summary, measure, *measure_args):
    """echo_args.repeats runs of measure(*measure_args), each on a quiet machine, kept as the
    echo part's `key` (a failed run is recorded as "raw echo KEY, raw-echo"); `summary(run)` is
    the log line of one."""
    runs = []
    for r in range(echo_args.repeats):
        log("raw echo %s run %d/%d" % (key, r + 1, echo_args.repeats))
        what = "raw echo %s, %s" % (key, RAW_ECHO.name)
        run = attempt(results, what, measurer(echo_args), measure, *measure_args)
        if run:
            runs.append(run)
            log("  -> " + summary(run))
    results["echo"][key] = {RAW_ECHO.name: runs}


def run_bandwidth_once(args, work):
    """The loopback's one-way bandwidth: one connection of the raw echo writing LARGE_PAYLOAD
    bytes at a time to its discarding server, unpinned as the large-message part runs; with the
    CPU other processes used while it was measured (run_load's)."""
    port = free_port()
    srv_log = os.path.join(work, "echo-bandwidth-server.log")
    server = start(expand(RAW_ECHO.sink_cmd(port)), srv_log)
    try:
        wait_listening(port, server, srv_log)
        cmd = RAW_ECHO.bandwidth_cmd(port, LARGE_PAYLOAD, RAW_ECHO.warmup, args.duration)
        rc, out, err, _jit, foreign = run_load(
            expand(cmd), RAW_ECHO.warmup, args.duration, server.pid
        )
    finally:
        stop(server)
    m = re.search(r"Bytes per second:\s+(\d+)", out)
    if rc != 0 or not m:
        raise RuntimeError(
            "the bandwidth client failed (%d):\n%s%s" % (rc, out[-1500:], err[-1500:])
        )
    return {"bytes_per_second": int(m.group(1)), "foreign_cpu": foreign}


def jmh_cmd(args, json_path, benchmarks, params=(), time_unit="ns"):
    """The JMH command line for the benchmarks matching the regex `benchmarks`, with `-p`
    params."""
    return [
        "java",
        "-cp",
        "$TERN_CP",
        "org.openjdk.jmh.Main",
        "-f",
        str(args.jmh_forks),
        "-wi",
        str(args.jmh_warmups),
        "-i",
        str(args.jmh_iterations),
        "-w",
        "1s",
        "-r",
        "1s",
        "-tu",
        time_unit,
        "-prof",
        "gc",
        "-rf",
        "json",
        "-rff",
        json_path,
        *[arg for param in params for arg in ("-p", param)],
        benchmarks,
    ]


def run_jmh(args, work, results):
    """The JMH set, then (unless --jmh-otel-filter is empty) its OpenTelemetry run."""
    results["jmh"] = run_jmh_once(args, work, results, "jmh", args.jmh_filter)
    if args.jmh_otel_filter:
        results["jmh"] += run_jmh_once(
            args, work, results, "jmh-otel", args.jmh_otel_filter, ("otel=true",)
        )


def run_tls(args, work, results):
    """TlsBenchmark (JMH, throughput, --tls-forks forks): new TLS connections with one call each,
    and calls on one TLS connection, on the JDK's TLS and on OpenSSL; Tern and grpc-java in one
    JMH run. Then the OpenSSL handshakes again with both systems on X25519 (groups=x25519): by
    default Tern's Netty offers the hybrid post-quantum X25519MLKEM768 first and grpc-java's X25519,
    so the default rows compare different key exchanges."""
    args = copy.copy(args)
    args.jmh_forks = args.tls_forks
    results["tls"] = run_jmh_once(args, work, results, "tls", "TlsBenchmark", (), "s")
    results["tls"] += run_jmh_once(
        args,
        work,
        results,
        "tls-x25519",
        "TlsBenchmark.handshake",
        ("provider=openssl", "groups=x25519"),
        "s",
    )


FLOW_BENCHMARKS = "OneWayStreamBenchmark|LargeUnaryBenchmark"
# Every (benchmark, size) the flow part must produce, for both systems.
FLOW_EXPECTED = [
    ("OneWayStreamBenchmark." + method, size)
    for method in ("clientToServer", "serverToClient")
    for size in ("0", "1024", "65536")
] + [("LargeUnaryBenchmark.unaryEcho", size) for size in ("1048576", "16777216")]


def run_flow(args, work, results):
    """OneWayStreamBenchmark and LargeUnaryBenchmark (JMH, throughput, -prof gc), both systems.
    JMH goes on past a benchmark that throws; each missing result is recorded as a failure with the
    first exception JMH logged for it."""
    rows = attempt(
        results, "flow JMH", run_jmh_once, args, work, results, "flow", FLOW_BENCHMARKS, (), "s"
    )
    results["flow"] = rows or []
    if rows is None:
        return
    found = {(r["benchmark"], r["params"].get("size"), r["params"].get("system")) for r in rows}
    log_path = os.path.join(work, "flow.log")
    for bench, size in FLOW_EXPECTED:
        for system in BASE:
            if (bench, size, system) not in found:
                what = "flow %s size=%s, %s" % (bench, size, system)
                message = "no JMH result; see %s: %s" % (
                    log_path,
                    jmh_failure(log_path, bench, size, system),
                )
                log("FAILED %s: %s" % (what, message))
                results["errors"].setdefault(what, []).append(message)


def jmh_failure(log_path, bench, size, system):
    """The first exception line JMH logged while running one parameter set of bench, or ''."""
    try:
        with open(log_path, errors="replace") as f:
            text = f.read()
    except OSError:
        return ""
    # JMH announces each run with "# Benchmark: <fqcn>.<method>" and "# Parameters: (...)".
    for section in text.split("# Benchmark: ")[1:]:
        head = section.split("\n", 1)[0]
        params = re.search(r"# Parameters: \((.*)\)", section)
        if not head.endswith(bench) or not params:
            continue
        if "size = %s" % size not in params.group(1) or "system = %s" % system not in params.group(
            1
        ):
            continue
        m = re.search(r"^\S*(?:Exception|Error)\b.*$", section, re.M)
        return m.group(0).strip() if m else ""
    return ""


def run_jmh_once(args, work, results, name, benchmarks, params=(), time_unit="ns"):
    """Runs JMH once and returns its rows; its command goes to results["commands"] as `name`
    with spaces for dashes (output files: work/name.json and work/name.log)."""
    json_path = os.path.join(work, name + ".json")
    cmd = jmh_cmd(args, json_path, benchmarks, params, time_unit)
    log("%s: %s" % (name, show(cmd)))
    log_path = os.path.join(work, name + ".log")
    with open(log_path, "wb") as out:
        proc = subprocess.Popen(
            expand(cmd), stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        _children.append(proc)
        rc = proc.wait()
        _children.remove(proc)
    if rc != 0:
        raise RuntimeError("JMH failed (%d); see %s" % (rc, log_path))
    results["commands"][name.replace("-", " ")] = show(cmd).replace(json_path, name + ".json")
    return parse_jmh(json_path)


def parse_jmh(json_path):
    """The rows of JMH's JSON results: benchmark, params, ns/op with its error, bytes/op."""
    with open(json_path) as f:
        raw = json.load(f)
    rows = []
    for entry in raw:
        alloc = entry.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {})
        rows.append(
            {
                "benchmark": entry["benchmark"].rsplit(".", 2)[-2]
                + "."
                + entry["benchmark"].rsplit(".", 1)[-1],
                "params": entry.get("params", {}),
                "ns_per_op": entry["primaryMetric"]["score"],
                # JMH writes the string "NaN" when one iteration leaves no error to estimate.
                "ns_error": number(entry["primaryMetric"].get("scoreError")),
                "bytes_per_op": alloc.get("score"),
            }
        )
    return rows


def number(value):
    """value if it is a finite number, else None (unknown)."""
    if isinstance(value, (int, float)) and math.isfinite(value):
        return value
    return None


# Which commands and failure records belong to which part, by the prefix of their keys.
PART_PREFIXES = {
    "e2e": ("e2e", "end-to-end"),
    "streaming": ("streaming",),
    "large": ("large",),
    "server": ("server-only",),
    "fanin": ("fan-in",),
    "client": ("client-only",),
    "startup": ("startup",),
    "alloc": ("alloc", "server allocation", "client allocation"),
    "conns": ("connections",),
    "echo": ("echo", "raw echo"),
    "tls": ("tls",),
    "flow": ("flow",),
    "jmh": ("jmh",),
}


# The shape of results.json, in the file as "version". 2: Tern has one HTTP/2 stack, its own
# engine; the figures of an earlier file under "tern" are Tern on Netty's HTTP/2 codec.
RESULTS_VERSION = 2


def page_results_path(page):
    """The results.json kept beside the page (docs/benchmarks.json beside docs/benchmarks.md), in
    the repository, so that --reuse on a new machine, whose work directory is empty, keeps the
    page's other parts."""
    return os.path.splitext(page)[0] + ".json"


def reused_results_path(page_json, work_json):
    """The results --reuse keeps parts from: those of the page being rewritten, else the work
    directory's last run."""
    if os.path.exists(page_json):
        return page_json
    if os.path.exists(work_json):
        return work_json
    raise SystemExit(
        "bench-compare: --reuse: neither %s nor %s exists; run every part, without --reuse"
        % (page_json, work_json)
    )


def reuse(results, json_path, skipped):
    """Copies the skipped parts (figures, commands, failures) from the previous results; stops the
    run if those are of an earlier version, whose Tern figures are not Tern's now."""
    if not skipped:
        return
    with open(json_path) as f:
        previous = json.load(f)
    if previous.get("version", 1) != RESULTS_VERSION:
        raise SystemExit(
            "bench-compare: --reuse: %s is from before Tern had one HTTP/2 stack (its tern figures "
            "are Tern on Netty's HTTP/2 codec); run every part again, without --reuse" % json_path
        )
    results["reused"] = {}
    results["earlier_loads"] = (
        [previous["load_start"]]
        + previous["load_samples"]
        + [previous["load_end"]]
        + previous.get("earlier_loads", [])
    )
    for part in skipped:
        if not previous.get(part):
            continue
        results[part] = previous[part]
        if part == "alloc":
            results["client_alloc"] = previous.get("client_alloc", {})
        results["reused"][part] = previous.get("reused", {}).get(
            part,
            {
                "started": previous["started"],
                "argv": previous["argv"],
                "settings": previous["settings"],
            },
        )
        for section in ("commands", "errors"):
            for key, value in previous[section].items():
                if key.startswith(PART_PREFIXES[part]):
                    results[section][key] = value


def machine_facts():
    def first(path, prefix):
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith(prefix):
                        return line.split(":", 1)[1].strip()
        except OSError:
            pass
        return "unknown"

    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.strip()
    h2 = subprocess.run(["h2load", "--version"], capture_output=True, text=True).stdout.strip()
    nghttpd = "not installed"
    if shutil.which("nghttpd"):
        done = subprocess.run(["nghttpd", "--version"], capture_output=True, text=True)
        nghttpd = done.stdout.strip()
    return {
        "nproc": os.cpu_count(),
        "cpu": first("/proc/cpuinfo", "model name"),
        "memory": first("/proc/meminfo", "MemTotal"),
        "kernel": platform.release(),
        "java": java.splitlines(),
        "h2load": h2,
        "nghttpd": nghttpd,
    }


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def systems_flag(text):
    """--systems' value as a tuple of names; argparse reports a ValueError's text."""
    try:
        return parse_systems(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


class OneLineErrorParser(argparse.ArgumentParser):
    """Reports a bad command line in one line naming the flag, status 2, as Tern's programs do."""

    def error(self, message):
        sys.stderr.write("bench-compare: %s; see --help\n" % message)
        sys.exit(2)


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Every flag's default in the help, and the epilog's example kept as written."""


def main():
    p = OneLineErrorParser(
        prog="bin/bench-compare",
        description=__doc__.split("\n")[0],
        epilog="Example:\n  bin/bench-compare --quick --skip=jmh",
        formatter_class=HelpFormatter,
    )
    p.add_argument("--duration", type=int, default=10, help="measured seconds per run")
    p.add_argument(
        "--warmup",
        type=int,
        default=35,
        help="warm-up seconds per end-to-end run: with client and server sharing "
        "these 2 cores, each JVM's JIT compilers keep about a third of a core "
        "busy for the first 30-40 s",
    )
    p.add_argument(
        "--server-warmup",
        type=int,
        default=35,
        help="h2load warm-up seconds of the server-only part: pinned to one core, "
        "both servers' JIT compilers keep a third of it busy for 25-30 s",
    )
    p.add_argument("--repeats", type=int, default=3, help="runs per system and configuration")
    p.add_argument(
        "--alloc-calls",
        type=int,
        default=1000000,
        help="calls measured by the allocation part (server under Epsilon GC, h2load 4x100)",
    )
    p.add_argument(
        "--alloc-warmup-calls",
        type=int,
        default=200000,
        help="calls made before the allocation part starts counting",
    )
    p.add_argument(
        "--conns-idle",
        type=int,
        default=10000,
        help="idle connections the connections part opens to each server (the server and the "
        "client each need that many open files, and more)",
    )
    p.add_argument(
        "--conns-new",
        type=int,
        default=1000,
        help="new connections the connections part times, one after another (after as many "
        "unmeasured ones)",
    )
    p.add_argument("--jmh-forks", type=int, default=1, help="JMH forks per benchmark")
    p.add_argument(
        "--tls-forks",
        type=int,
        default=3,
        help="JMH forks per TLS benchmark (the tls part; one fork's ratio moved by up to 0.3 "
        "between runs)",
    )
    p.add_argument("--jmh-warmups", type=int, default=3, help="JMH warm-up iterations")
    p.add_argument("--jmh-iterations", type=int, default=5, help="JMH measured iterations")
    p.add_argument(
        "--jmh-filter",
        default="CallBenchmark",
        help="regular expression of the JMH benchmarks to run",
    )
    p.add_argument(
        "--jmh-otel-filter",
        default="CallBenchmark.unaryCall1024",
        help="benchmarks run a second time with -p otel=true (OpenTelemetry metrics and "
        "tracing on server and channel, both systems), against the otel=false rows of the "
        "first run; empty: no such run",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: 3 s + 2 s warm-up, one repeat, short JMH, 1,000 idle and 200 new "
        "connections, no waiting for a quiet machine (a run that shared it is marked contended)",
    )
    p.add_argument(
        "--startup-runs",
        type=int,
        default=5,
        metavar="N",
        help="launches of each server and first-call client timed by the start-up part, with and "
        "without AppCDS (--quick: 2)",
    )
    p.add_argument(
        "--fanin-connections",
        default="1000,10000",
        metavar="N,N...",
        help="the many-connections part's connection counts, one stream each (--quick: 200,1000)",
    )
    p.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=list(PART_PREFIXES),
        help="leave a part out (repeat the flag for more than one)",
    )
    p.add_argument(
        "--systems",
        type=systems_flag,
        default=",".join(SYSTEMS),
        metavar="NAME,NAME...",
        help="the systems to run, of %s; tern and grpc-java are always needed (the page compares "
        "every system with both). vertx is Vert.x gRPC 5.0.7's server and client (issue 52, "
        "built by build-peers.sh) in the end-to-end and server-only parts. grpc-go and tonic are "
        "grpc-go's and tonic's servers (issue 34's native peers, built by build-peers.sh; a peer "
        "not built is listed as missing) and nghttpd the HTTP/2 baseline, and tern-defaults "
        "Tern's qps server with --defaults (its default executor and two ordinary interceptors, "
        "issue 52), all four in the server-only part. tern-tls, tern-tls-jdk, grpc-java-tls, "
        "grpc-java-tls-jdk and nghttpd-tls are the same servers over TLS (h2load with ALPN h2; "
        "OpenSSL, or the JDK's TLS for -jdk; issue 52), in the server-only part too. "
        "--systems=tern,grpc-java leaves the others out" % ", ".join(SYSTEMS),
    )
    p.add_argument(
        "--bridge",
        action="store_true",
        help="run only issue 38's bridge benchmark instead of the page's parts: the same io.grpc "
        "qps programs on grpc-java and on tern-grpc-java, beside Tern's own qps tools (see "
        "bridge_compare.py); prints Markdown tables with the ratios and writes bridge.json and "
        "bridge.md in --work, leaving the page alone. Takes --duration, --warmup, --repeats and "
        "--quick",
    )
    p.add_argument(
        "--reuse",
        action="store_true",
        help="keep the skipped parts' figures from the results kept beside the page "
        "(docs/benchmarks.json for docs/benchmarks.md), else from the work directory's "
        "results.json, so one part can be re-run alone (not from results written before "
        "Tern had one HTTP/2 stack: its Tern figures are Tern on Netty's HTTP/2 codec)",
    )
    p.add_argument(
        "--out", default=os.path.join(ROOT, "docs", "benchmarks.md"), help="the page written"
    )
    p.add_argument(
        "--work",
        default=os.path.join(ROOT, "tern-benchmarks", "target", "bench"),
        help="where logs and results.json go (the results also go beside the page: --out with "
        ".json for .md)",
    )
    # bin/bench-compare calls the script with --check-flags first, so that a bad flag is reported
    # before any tool is installed or anything built.
    p.add_argument("--check-flags", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.quick:
        args.duration, args.warmup, args.server_warmup, args.repeats = 3, 2, 2, 1
        args.jmh_warmups, args.jmh_iterations, args.tls_forks = 1, 2, 1
        args.alloc_calls, args.alloc_warmup_calls = 100000, 20000
        if args.conns_idle == p.get_default("conns_idle"):
            args.conns_idle = 1000
        if args.conns_new == p.get_default("conns_new"):
            args.conns_new = 200
        if args.fanin_connections == p.get_default("fanin_connections"):
            args.fanin_connections = "200,1000"
        args.startup_runs = min(args.startup_runs, 2)
        if args.jmh_filter == p.get_default("jmh_filter"):
            args.jmh_filter = "CallBenchmark.unaryCall1024"
    for name in (
        "duration",
        "repeats",
        "jmh_forks",
        "tls_forks",
        "jmh_iterations",
        "alloc_calls",
        "conns_idle",
        "conns_new",
        "startup_runs",
    ):
        if getattr(args, name) < 1:
            p.error("--%s must be at least 1" % name.replace("_", "-"))
    for name in ("warmup", "server_warmup", "jmh_warmups", "alloc_warmup_calls"):
        if getattr(args, name) < 0:
            p.error("--%s must not be negative" % name.replace("_", "-"))
    if args.check_flags:
        return

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _on_signal)
    os.makedirs(args.work, exist_ok=True)
    if args.bridge:
        import bridge_compare  # beside this script, which Python puts first on sys.path

        try:
            bridge_compare.run_bridge(sys.modules[__name__], args, args.work)
        finally:
            stop_all()
        return
    results = {
        "version": RESULTS_VERSION,
        "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "argv": sys.argv[1:],
        "systems": list(args.systems),
        "labels": {s: SYSTEMS[s].label for s in args.systems},
        "machine": machine_facts(),
        "load_start": loadavg(),
        "settings": {
            k: getattr(args, k)
            for k in (
                "duration",
                "warmup",
                "repeats",
                "server_warmup",
                "jmh_forks",
                "tls_forks",
                "jmh_warmups",
                "jmh_iterations",
                "jmh_filter",
                "jmh_otel_filter",
                "alloc_calls",
                "alloc_warmup_calls",
                "conns_idle",
                "conns_new",
                "fanin_connections",
                "startup_runs",
                "quick",
            )
        },
        "e2e": {},
        "server": {},
        "fanin": {},
        "client": {},
        "startup": {},
        "alloc": {},
        "large": {},
        "streaming": {},
        "conns": {},
        "echo": {},
        "tls": [],
        "flow": [],
        "jmh": [],
        "commands": {},
        "load_samples": [],
        "errors": {},
    }
    json_path = os.path.join(args.work, "results.json")
    page_json = page_results_path(args.out)
    if args.reuse:
        reuse(results, reused_results_path(page_json, json_path), args.skip)
    try:
        if "e2e" not in args.skip:
            run_e2e(args, args.work, results)
            results["load_samples"].append(loadavg())
        if "streaming" not in args.skip:
            run_streaming(args, args.work, results)
            results["load_samples"].append(loadavg())
        if "large" not in args.skip:
            run_large(args, args.work, results)
            results["load_samples"].append(loadavg())
        if "server" not in args.skip:
            run_server_only(args, args.work, results)
            results["load_samples"].append(loadavg())
        if "fanin" not in args.skip:
            run_fanin(args, args.work, results)
            results["load_samples"].append(loadavg())
        if "client" not in args.skip:
            client_only.run_client_only(sys.modules[__name__], args, args.work, results)
            results["load_samples"].append(loadavg())
        if "startup" not in args.skip:
            run_startup(args, args.work, results)
        if "alloc" not in args.skip:
            run_alloc(args, args.work, results)
        if "conns" not in args.skip:
            run_conns(args, args.work, results)
            results["load_samples"].append(loadavg())
        if "echo" not in args.skip:
            run_echo(args, args.work, results)
        if "tls" not in args.skip:
            run_tls(args, args.work, results)
        if "flow" not in args.skip:
            run_flow(args, args.work, results)
        if "jmh" not in args.skip:
            run_jmh(args, args.work, results)
    finally:
        stop_all()
    results["load_end"] = loadavg()
    results["finished"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    for path in (json_path, page_json):
        with open(path, "w") as f:
            json.dump(results, f, indent=1)
    log("results in " + json_path + " and " + page_json)
    # The report may run under another interpreter: the virtualenv that has matplotlib.
    report = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_report.py")
    python = os.environ.get("BENCH_REPORT_PYTHON") or sys.executable
    subprocess.run([python, report, json_path, args.out], check=True)


if __name__ == "__main__":
    main()
