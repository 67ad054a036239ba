"""bin/bench-compare's client part (issue 52's fifth target): the client alone, called by
bench_compare.py.

The server-only part measures servers against the machine's HTTP/2 ceiling (nghttpd's static
answer under h2load); this part turns it round. nghttpd, pinned to CPU 0, answers every call with
a static gRPC response, and each client, pinned to CPU 1, keeps the same connections x streams
busy against it:

  h2load     the ceiling: nghttp2's C load generator posting the request's frame.
  tern       Tern's QpsClient, as many channels x outstanding calls.
  grpc-java  GrpcJavaBalancedClient: grpc-java 1.79's channels set up as its AsyncClient sets them
             up (grpc-java's own AsyncClient always calls UnaryCall; see below).

Each client's calls/s is given as a share of h2load's (target: Tern at least 0.6).

nghttpd's answer: a file at the method's path holding one gRPC frame (a SimpleResponse with an
empty payload, what the qps servers answer at --server_payload=0), served as `application/grpc`
and followed by the trailer `grpc-status: 0` (`--trailer`). nghttpd takes the content-type from
the extension of the path's last segment (`--mime-types-file`), so the calls go to a method whose
name has one, `Unary.grpc` (`--unary_method` of both Java clients); UnaryCall would be answered
without a content-type, which a gRPC client rejects. Before the runs, `nghttp -v` checks that the
answer has that content-type, the frame and the trailer; the Java clients count a call only when it
ended with status OK and exit with 1 if any failed, and h2load's runs are checked as the
server-only part checks them (bench_compare.h2load_ok).

Only the standard library; the helpers that start, pin, time and stop processes are
bench_compare's, passed in as `bench` (this module is imported by it, never the other way round).
"""

import os
import re
import shutil
import subprocess

# Beside this script, which Python puts first on sys.path.
from bench_systems import BASE, MISSING, SYSTEMS

# The method the calls go to: BenchmarkService's UnaryCall messages under a name with an extension,
# from which nghttpd takes the answer's content-type.
STATIC_METHOD = "grpc.testing.BenchmarkService/Unary.grpc"
MIME_TYPES = "application/grpc grpc\n"
TRAILER = "grpc-status: 0"
# The answer's gRPC frame: not compressed, 2 bytes, a SimpleResponse whose payload (field 1) is
# empty, as the qps servers answer --server_payload=0.
RESPONSE_FRAME = bytes([0, 0, 0, 0, 2, 0x0A, 0])
# h2load's request: the frame the Java clients send, a SimpleRequest whose payload (field 3) is
# empty (nghttpd reads and discards it).
REQUEST_FRAME = bytes([0, 0, 0, 0, 2, 0x1A, 0])
# The connections x streams of every client, as the server-only part loads its servers.
SHAPE = (4, 100)
PART = "client-only"
SYSTEMS_HERE = ("h2load",) + BASE
# Issue 52: Tern's client at least this share of h2load's rate.
TARGET = 0.6


def files(work):
    """The paths this part writes under `work`: nghttpd's folder and MIME map, h2load's body."""
    folder = os.path.join(work, "client-only")
    return {
        "htdocs": os.path.join(folder, "htdocs"),
        "mime_types": os.path.join(folder, "mime.types"),
        "request": os.path.join(folder, "request.bin"),
    }


def prepare(work):
    """Writes nghttpd's answer, its MIME map and h2load's request body."""
    paths = files(work)
    answer = os.path.join(paths["htdocs"], STATIC_METHOD)
    os.makedirs(os.path.dirname(answer), exist_ok=True)
    for path, content in (
        (answer, RESPONSE_FRAME),
        (paths["mime_types"], MIME_TYPES.encode()),
        (paths["request"], REQUEST_FRAME),
    ):
        with open(path, "wb") as f:
            f.write(content)


def nghttpd_cmd(port, work):
    """nghttpd on CPU 0 (plaintext, one worker) answering with the static gRPC response."""
    paths = files(work)
    return [
        "taskset",
        "-c",
        "0",
        "nghttpd",
        "--no-tls",
        "--workers=1",
        "--address=127.0.0.1",
        "--htdocs=" + paths["htdocs"],
        "--mime-types-file=" + paths["mime_types"],
        "--trailer=" + TRAILER,
        str(port),
    ]


def load_cmd(bench, system, port, body_path, args, shape=SHAPE):
    """`system`'s load on CPU 1 for args.warmup s and then args.duration s: h2load
    (bench_compare's command, at the static answer's path), or a Java client with channels x
    outstanding calls."""
    connections, streams = shape
    if system == "h2load":
        path = "/" + STATIC_METHOD
        return bench.h2load_cmd(port, body_path, args, shape=shape, path=path, warmup=args.warmup)
    pin = ["taskset", "-c", "1"]
    method = "--unary_method=" + STATIC_METHOD
    if system == "tern":  # the qps client of the end-to-end part, its default executor
        tern = SYSTEMS["tern"].client_cmd(
            port, streams, False, args.duration, args.warmup, 0, connections, False
        )
        return pin + tern + [method]
    # grpc-java's AsyncClient always calls UnaryCall; this one is set up as it is (module doc).
    return pin + [
        "java",
        "-cp",
        "$TERN_CP",
        "dev.tern.benchmarks.qps.GrpcJavaBalancedClient",
        "--target=ipv4:127.0.0.1:%s" % port,
        "--channels=%d" % connections,
        "--outstanding_rpcs=%d" % streams,
        "--duration=%d" % args.duration,
        "--warmup_duration=%d" % args.warmup,
        method,
    ]


def answer_problems(nghttp_verbose):
    """What is wrong with the static answer as `nghttp -v` showed it (an empty list: nothing):
    a 200, `content-type: application/grpc`, one DATA frame of RESPONSE_FRAME's length, then the
    trailer `grpc-status: 0` in a HEADERS frame that ends the stream."""
    text = nghttp_verbose
    problems = []
    if not re.search(r"recv \(stream_id=\d+\) :status: 200\s*$", text, re.M):
        problems.append("no :status 200")
    if not re.search(r"recv \(stream_id=\d+\) content-type: application/grpc\s*$", text, re.M):
        problems.append("no content-type: application/grpc")
    data = re.search(r"recv DATA frame <length=(\d+),", text)
    if not data or int(data.group(1)) != len(RESPONSE_FRAME):
        problems.append("no DATA frame of %d bytes" % len(RESPONSE_FRAME))
    after = text[data.end() :] if data else ""
    trailer = re.search(r"recv \(stream_id=\d+\) grpc-status: 0\s*$", after, re.M)
    if not trailer or not re.search(
        r"recv HEADERS frame <[^>]*flags=0x0[15],", after[trailer.end() :]
    ):
        problems.append("no trailer grpc-status: 0 ending the stream after the DATA")
    return problems


def check_answer(bench, port, work):
    """Runs `nghttp -v` once against nghttpd on `port`; raises RuntimeError naming what is wrong
    with its answer."""
    path = "/" + STATIC_METHOD
    done = subprocess.run(
        ["nghttp", "-v", *bench.grpc_post_args(port, files(work)["request"], path=path)],
        capture_output=True,
        timeout=20,
    )
    text = done.stdout.decode(errors="replace")
    problems = answer_problems(text)
    if done.returncode != 0 or problems:
        raise RuntimeError(
            "nghttpd's static gRPC answer is not right (%s; nghttp exit %d):\n%s"
            % ("; ".join(problems) or "nghttp failed", done.returncode, text[-1500:])
        )


def run_once(bench, system, args, work):
    """One run of `system`'s load against a fresh nghttpd; its figures (parse_h2load's for h2load,
    the qps summary for a Java client) with the CPU other processes used while it was measured."""
    port = bench.free_port()
    srv_log = os.path.join(work, "client-only-nghttpd-%s.log" % system)
    server = bench.start(nghttpd_cmd(port, work), srv_log)
    try:
        bench.wait_listening(port, server, srv_log)
        cmd = bench.expand(load_cmd(bench, system, port, files(work)["request"], args))
        rc, out, err, jit, foreign = bench.run_load(cmd, args.warmup, args.duration, server.pid)
        if rc != 0:
            raise RuntimeError("%s failed (%d):\n%s%s" % (system, rc, out[-1000:], err[-1500:]))
        if system == "h2load":
            result = bench.parse_h2load(out)
            if not bench.h2load_ok(result, SHAPE[0] * SHAPE[1], len(RESPONSE_FRAME)):
                raise RuntimeError("h2load saw unsuccessful answers: " + bench.summary(result))
            result["calls_per_s"] = result["req_per_s"]
        else:
            result = bench.parse_summary(out)
            result["calls_per_s"] = result["qps"]
        result["jit_cpu_share"] = jit
        result["foreign_cpu"] = foreign
        return result
    finally:
        bench.stop(server)


def commands(bench, args):
    """Each system's two commands as the page prints them, with $PORT and $WORK for the shell."""
    body = "$WORK/client-only/request.bin"
    return {
        s: [
            bench.show(nghttpd_cmd("$PORT", "$WORK")),
            bench.show(load_cmd(bench, s, 0, body, args)).replace("127.0.0.1:0", "127.0.0.1:$PORT"),
        ]
        for s in SYSTEMS_HERE
    }


def key():
    return "%d x %d" % SHAPE


def run_client_only(bench, args, work, results):
    """The part: the answer checked once, then each of SYSTEMS_HERE in turn (ABBA...),
    args.repeats runs each; into results["client"][key()] and results["commands"]."""
    runs = {s: [] for s in SYSTEMS_HERE}
    results["client"] = {key(): runs}
    if not shutil.which("nghttpd") or not shutil.which("nghttp"):
        bench.record_failure(
            results, PART, MISSING + "no nghttpd or nghttp (apt-get install nghttp2-server "
            "nghttp2-client)"
        )  # fmt: skip
        return
    prepare(work)
    port = bench.free_port()
    srv_log = os.path.join(work, "client-only-nghttpd-check.log")
    server = bench.start(nghttpd_cmd(port, work), srv_log)
    try:
        bench.wait_listening(port, server, srv_log)
        check_answer(bench, port, work)
    except RuntimeError as e:
        bench.record_failure(results, PART, str(e).strip())
        return
    finally:
        bench.stop(server)
    for r in range(args.repeats):
        for system in bench.abba(SYSTEMS_HERE, r):
            bench.log("client-only %s run %d/%d" % (system, r + 1, args.repeats))
            what = "%s %s, %s" % (PART, key(), system)
            run = bench.attempt(results, what, bench.measurer(args), run_once, bench, system,
                                args, work)  # fmt: skip
            if run:
                runs[system].append(run)
                bench.log("  -> %.0f calls/s" % run["calls_per_s"])
    results["commands"][PART] = commands(bench, args)
    results["commands"][PART + " files"] = (
        "printf '\\0\\0\\0\\0\\2\\n\\0' > $WORK/client-only/htdocs/%s; "
        "printf '\\0\\0\\0\\0\\2\\032\\0' > $WORK/client-only/request.bin; "
        "echo 'application/grpc grpc' > $WORK/client-only/mime.types" % STATIC_METHOD
    )
