#!/usr/bin/env python3
"""Tern's qps client beside grpc-java's, both balancing round_robin over the same three servers.

Called by rr-compare.sh, which builds tern-benchmarks first and passes its class path in TERN_CP.
Starts three of Tern's qps servers, on 127.0.0.2, 127.0.0.3 and 127.0.0.4 with ports the system
picks (read from each server's first line), once for the whole run, so only the client side
differs. Then runs Tern's QpsClient --target=ipv4:... and GrpcJavaBalancedClient (grpc-java 1.79,
same load, same measuring code) alternately, --repeats times each, the order swapped on every
repeat; unary, 0-byte payloads, --channels x --outstanding closed loops. A run counts only if every
server answered calls. Prints the medians of QPS, p50 and p99 per system and Tern/grpc-java.

Only the standard library is used here, with bench_compare.py's process and summary helpers. Every
process started is in its own process group and is stopped on exit, error or signal.
"""

import argparse
import json
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_compare import _on_signal, parse_summary, start, stop, stop_all, tail  # noqa: E402

SYSTEMS = ("tern", "grpc-java")
HOSTS = ("127.0.0.2", "127.0.0.3", "127.0.0.4")
CLIENTS = {
    "tern": ["dev.tern.benchmarks.qps.QpsClient", "--transport=nio"],
    "grpc-java": ["dev.tern.benchmarks.qps.GrpcJavaBalancedClient"],
}
LISTENING = re.compile(r"QPS server listening on port (\d+)")
CALLS = re.compile(r"^Calls answered by (\S+): (\d+)$", re.MULTILINE)


def log(msg):
    print("[rr-compare %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def java(main_and_flags):
    """A java command line on tern-benchmarks' class path, left as $TERN_CP (see expand)."""
    return ["java", "-cp", "$TERN_CP"] + main_and_flags


def expand(cmd):
    return [os.environ["TERN_CP"] if c == "$TERN_CP" else c for c in cmd]


def show(cmd):
    return " ".join(c if c.startswith("$") else shlex.quote(c) for c in cmd)


def start_servers(work):
    """Starts one QpsServer per host; returns [(process, "host:port")] once all listen."""
    servers = []
    for host in HOSTS:
        log_path = os.path.join(work, "server-%s.log" % host)
        cmd = java(["dev.tern.benchmarks.qps.QpsServer", "--address=%s:0" % host])
        servers.append((start(expand(cmd + ["--transport=nio"]), log_path), host, log_path))
    listening = []
    for proc, host, log_path in servers:
        port = wait_port(proc, log_path)
        listening.append((proc, "%s:%d" % (host, port)))
        log("server %s (pid %d)" % (listening[-1][1], proc.pid))
    return listening


def wait_port(proc, log_path, timeout=90):
    """The port a starting server prints once it listens."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        with open(log_path, errors="replace") as f:
            m = LISTENING.search(f.read())
        if m:
            return int(m.group(1))
        if proc.poll() is not None:
            raise RuntimeError("server exited early; see %s:\n%s" % (log_path, tail(log_path)))
        time.sleep(0.2)  # polling the log: the server has no other way to say it is ready
    raise RuntimeError("server did not listen within %ds; see %s" % (timeout, log_path))


def client_cmd(system, target, args):
    return java(
        CLIENTS[system]
        + [
            "--target=" + target,
            "--lb_policy=round_robin",
            "--channels=%d" % args.channels,
            "--outstanding_rpcs=%d" % args.outstanding,
            "--client_payload=0",
            "--server_payload=0",
            "--warmup_duration=%d" % args.warmup,
            "--duration=%d" % args.duration,
        ]
    )


def run_client(system, target, servers, args, log_path):
    """One run of one system's client; its summary, with the calls each server answered."""
    proc = start(expand(client_cmd(system, target, args)), log_path)
    try:
        proc.wait(timeout=args.warmup + args.duration + 120)
    finally:
        stop(proc)
    with open(log_path, errors="replace") as f:
        text = f.read()
    if proc.returncode != 0 or "failed:" in text:
        raise RuntimeError("%s client failed (%s):\n%s" % (system, proc.returncode, text[-2000:]))
    result = parse_summary(text)
    result["calls_by_server"] = {s: int(n) for s, n in CALLS.findall(text)}
    idle = [s for s in servers if result["calls_by_server"].get(s, 0) == 0]
    if idle or set(result["calls_by_server"]) != set(servers):
        raise RuntimeError(
            "%s did not balance over %s: calls answered %s"
            % (system, ", ".join(servers), result["calls_by_server"])
        )
    return result


def shares(calls_by_server):
    total = sum(calls_by_server.values())
    return "/".join("%.0f" % (100.0 * n / total) for _, n in sorted(calls_by_server.items())) + "%"


def median(runs, key):
    return statistics.median(r[key] for r in runs) if runs else None


def table(runs, args):
    lines = [
        "round_robin over %d Tern qps servers, %d channels x %d outstanding, unary, 0-byte "
        "payloads; medians of %d run(s) per system, %d s each after %d s warm-up (shares of "
        "calls include the warm-up)"
        % (len(HOSTS), args.channels, args.outstanding, args.repeats, args.duration, args.warmup),
        "",
        "%-16s %10s %10s %10s   %s"
        % ("system", "QPS", "p50 us", "p99 us", "runs  each server's share of calls, per run"),
    ]
    for system in SYSTEMS:
        r = runs[system]
        if not r:
            lines.append("%-16s %10s" % (system, "failed"))
            continue
        lines.append(
            "%-16s %10.0f %10.0f %10.0f   %-5d %s"
            % (
                system,
                median(r, "qps"),
                median(r, "p50"),
                median(r, "p99"),
                len(r),
                " ".join(shares(x["calls_by_server"]) for x in r),
            )
        )
    tern, grpc = runs["tern"], runs["grpc-java"]
    if tern and grpc:
        lines.append(
            "%-16s %10.2f %10.2f %10.2f   (QPS: higher is better for Tern; latency: lower)"
            % (
                "Tern/grpc-java",
                median(tern, "qps") / max(median(grpc, "qps"), 1),
                median(tern, "p50") / max(median(grpc, "p50"), 1),
                median(tern, "p99") / max(median(grpc, "p99"), 1),
            )
        )
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--warmup", type=int, default=10, help="warm-up seconds per run (default 10)")
    p.add_argument("--duration", type=int, default=10, help="measured seconds per run (default 10)")
    p.add_argument("--repeats", type=int, default=3, help="runs per system (default 3)")
    p.add_argument("--channels", type=int, default=4, help="channels per client (default 4)")
    p.add_argument(
        "--outstanding", type=int, default=10, help="calls in flight per channel (default 10)"
    )
    p.add_argument(
        "--work",
        default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "rr"),
        help="folder for the servers' logs and results.json",
    )
    args = p.parse_args()
    for name in ("duration", "repeats", "channels", "outstanding"):
        if getattr(args, name) < 1:
            p.error("--%s must be at least 1" % name)
    if args.warmup < 0:
        p.error("--warmup must not be negative")

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _on_signal)
    os.makedirs(args.work, exist_ok=True)
    runs = {s: [] for s in SYSTEMS}
    errors = []
    results = {"args": vars(args), "runs": runs, "errors": errors}
    try:
        servers = start_servers(args.work)
        names = [name for _, name in servers]
        target = "ipv4:" + ",".join(names)
        results["commands"] = {s: show(client_cmd(s, target, args)) for s in SYSTEMS}
        for r in range(args.repeats):
            order = SYSTEMS if r % 2 == 0 else tuple(reversed(SYSTEMS))
            for system in order:
                for proc, name in servers:
                    if proc.poll() is not None:
                        raise RuntimeError("server %s exited (%d)" % (name, proc.returncode))
                log("%s run %d/%d" % (system, r + 1, args.repeats))
                client_log = os.path.join(args.work, "client-%s-%d.log" % (system, r + 1))
                try:
                    run = run_client(system, target, names, args, client_log)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    log("FAILED: %s" % e)
                    errors.append(str(e))
                    continue
                runs[system].append(run)
                log(
                    "  -> %d qps, p50 %d us, calls per server %s"
                    % (run["qps"], run["p50"], run["calls_by_server"])
                )
    finally:
        stop_all()
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    print(table(runs, args))
    if errors:
        print("\n%d run(s) failed; see above and %s" % (len(errors), args.work))
        sys.exit(1)


if __name__ == "__main__":
    main()
