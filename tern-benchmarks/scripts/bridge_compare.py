"""bin/bench-compare --bridge: issue 38's bridge benchmark, called by bench_compare.py.

One qps client and server written against grpc-java's io.grpc API only (ProviderQpsClient and
ProviderQpsServer in tern-benchmarks: grpc-java's own AsyncClient and AsyncServer name
NettyChannelBuilder and NettyServerBuilder, so they never reach the bridge) run twice, as the same
program with two class paths:

  grpc-java  tern-benchmarks/target/classes + target/lib: grpc-java 1.79 with grpc-netty-shaded.
  bridge     the same without grpc-netty-shaded, plus target/bridge-lib (tern-grpc-java alone).

and beside them Tern's own qps tools (QpsServer, QpsClient) at the same settings ("tern"), on
epoll as the bridge's default transport is. Unary 4x10 and 4x100 (default executor) and ping-pong
on one bidi stream (1x1, 0 B). The systems rotate run by run; each run waits for a quiet machine
and is run again if it shared it (as the page's runs), except under --quick. Medians of QPS, p50,
p99, and heap bytes per call (each JVM's threads' allocation over its measured window over the
calls in it, client and server apart, counted by the programs themselves: QpsClient
--heap_per_call, QpsServer --warmup_duration --duration).

Prints Markdown tables and the ratios bridge / grpc-java and bridge / Tern against issue 38's
targets, and writes them with every run to bridge.json and bridge.md in --work; the page
(docs/benchmarks.md) is left alone.
"""

import json
import os
import re
import statistics
import time

SYSTEMS = ("grpc-java", "bridge", "tern")
CONFIGS = (
    # key, channels, outstanding, streaming
    ("unary 4x10", 4, 10, False),
    ("unary 4x100", 4, 100, False),
    ("ping-pong 1x1", 1, 1, True),
)
# Issue 38's targets: bridge / grpc-java QPS and heap per call, bridge / Tern QPS and heap per call.
TARGET_QPS_VS_GRPC = 1.5
TARGET_HEAP_VS_GRPC = 0.7
# "Within 15% of Tern's native API", read here as within 15% on both figures.
TARGET_QPS_VS_TERN = 0.85
TARGET_HEAP_VS_TERN = 1.15
PROVIDER = "dev.tern.benchmarks.qps.ProviderQps"
CLIENT_HEAP = re.compile(r"Client heap bytes per call:\s+(\d+)")
SERVER_HEAP = re.compile(r"Server heap bytes per call:\s+(\d+)")
# The provider programs' lines naming the channel and server classes they were given.
FIRST_LINE = re.compile(r"^ProviderQps(?:Client|Server): (?:channel|server) (\S+)$", re.M)


def class_path(system):
    """The class path of `system`'s run, from bin/bench-compare's TERN_CP and BRIDGE_CP."""
    return os.environ["BRIDGE_CP" if system == "bridge" else "TERN_CP"]


def server_cmd(system, port, args):
    address = "--address=127.0.0.1:%d" % port
    window = ["--warmup_duration=%d" % args.warmup, "--duration=%d" % args.duration]
    if system == "tern":
        return ["java", "-cp", "$TERN_CP", "dev.tern.benchmarks.qps.QpsServer", address,
                "--transport=epoll"] + window  # fmt: skip
    cp = "$BRIDGE_CP" if system == "bridge" else "$TERN_CP"
    return ["java", "-cp", cp, PROVIDER + "Server", address] + window


def client_cmd(system, port, channels, outstanding, streaming, args):
    flags = [
        "--address=127.0.0.1:%d" % port,
        "--channels=%d" % channels,
        "--outstanding_rpcs=%d" % outstanding,
        "--warmup_duration=%d" % args.warmup,
        "--duration=%d" % args.duration,
    ] + (["--streaming_rpcs"] if streaming else [])
    if system == "tern":
        return ["java", "-cp", "$TERN_CP", "dev.tern.benchmarks.qps.QpsClient",
                "--transport=epoll", "--heap_per_call"] + flags  # fmt: skip
    cp = "$BRIDGE_CP" if system == "bridge" else "$TERN_CP"
    return ["java", "-cp", cp, PROVIDER + "Client"] + flags


def expand(cmd):
    return [c.replace("$BRIDGE_CP", os.environ["BRIDGE_CP"]) for c in cmd]


def wait_for(pattern, path, seconds):
    """The first match of pattern in the file at path, waiting up to `seconds` for it; or None."""
    deadline = time.time() + seconds
    while True:
        with open(path, errors="replace") as f:
            m = pattern.search(f.read())
        if m or time.time() > deadline:
            return m
        time.sleep(0.2)


def run_once(bench, system, config, args, work):
    """One run of `system` at `config`: its server, then its client; the client's summary, its
    heap per call and the server's, and the classes the provider programs were given."""
    key, channels, outstanding, streaming = config
    port = bench.free_port()
    tag = "bridge-%s-%s" % (system, key.replace(" ", "-"))
    srv_log = os.path.join(work, tag + "-server.log")
    server = bench.start(bench.expand(expand(server_cmd(system, port, args))), srv_log)
    try:
        bench.wait_listening(port, server, srv_log)
        cmd = bench.expand(expand(client_cmd(system, port, channels, outstanding, streaming, args)))
        rc, out, err, jit, foreign = bench.run_load(cmd, args.warmup, args.duration, server.pid)
        if rc != 0:
            raise RuntimeError("%s client failed (%d):\n%s" % (system, rc, (err or out)[-2000:]))
        result = bench.parse_summary(out)
        result.update(jit_cpu_share=jit, foreign_cpu=foreign)
        # The server's window closes with the client's, give or take the client's start-up.
        server_heap = wait_for(SERVER_HEAP, srv_log, 15)
        result["client_heap"] = int(CLIENT_HEAP.search(out).group(1))
        result["server_heap"] = int(server_heap.group(1)) if server_heap else None
        if system != "tern":
            result["channel_class"] = FIRST_LINE.search(out).group(1)
            result["server_class"] = FIRST_LINE.search(open(srv_log).read()).group(1)
        return result
    finally:
        bench.stop(server)


def median(runs, key):
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def heap(runs):
    """Median heap bytes per call, client + server (None when not counted)."""
    totals = [
        r["client_heap"] + r["server_heap"]
        for r in runs
        if r.get("client_heap") is not None and r.get("server_heap") is not None
    ]
    return statistics.median(totals) if totals else None


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt(value, suffix=""):
    return "n/a" if value is None else "{:,.0f}{}".format(value, suffix)


def fmt_ratio(value, target, higher_better):
    if value is None:
        return "n/a"
    met = value >= target if higher_better else value <= target
    return "%.2fx (target %s %.2fx: %s)" % (
        value,
        ">=" if higher_better else "<=",
        target,
        "met" if met else "not met",
    )


def report(results):
    """The Markdown the run prints and writes to bridge.md."""
    lines = [
        "io.grpc qps programs (ProviderQpsClient/ProviderQpsServer) on grpc-java 1.79 "
        "(grpc-netty-shaded) and on tern-grpc-java, and Tern's own qps tools; medians of %d "
        "run(s), %d s measured after %d s warm-up%s."
        % (
            results["settings"]["repeats"],
            results["settings"]["duration"],
            results["settings"]["warmup"],
            " (--quick: a smoke run, not a measurement)" if results["settings"]["quick"] else "",
        ),
        "",
        "| configuration | system | QPS | p50 (us) | p99 (us) | heap B/call client | "
        "heap B/call server |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key, _, _, _ in CONFIGS:
        for system in SYSTEMS:
            runs = results["runs"][key][system]
            lines.append(
                "| %s | %s | %s | %s | %s | %s | %s |"
                % (
                    key,
                    system,
                    fmt(median(runs, "qps")),
                    fmt(median(runs, "p50")),
                    fmt(median(runs, "p99")),
                    fmt(median(runs, "client_heap")),
                    fmt(median(runs, "server_heap")),
                )
            )
    lines += [
        "",
        "| configuration | bridge / grpc-java QPS | bridge / grpc-java heap per call "
        "(client + server) | bridge / Tern QPS | bridge / Tern heap per call |",
        "| --- | --- | --- | --- | --- |",
    ]
    for key, _, _, _ in CONFIGS:
        runs = results["runs"][key]
        qps = {s: median(runs[s], "qps") for s in SYSTEMS}
        lines.append(
            "| %s | %s | %s | %s | %s |"
            % (
                key,
                fmt_ratio(ratio(qps["bridge"], qps["grpc-java"]), TARGET_QPS_VS_GRPC, True),
                fmt_ratio(
                    ratio(heap(runs["bridge"]), heap(runs["grpc-java"])), TARGET_HEAP_VS_GRPC, False
                ),
                fmt_ratio(ratio(qps["bridge"], qps["tern"]), TARGET_QPS_VS_TERN, True),
                fmt_ratio(
                    ratio(heap(runs["bridge"]), heap(runs["tern"])), TARGET_HEAP_VS_TERN, False
                ),
            )
        )
    classes = sorted(
        {
            "%s: channel %s, server %s" % (s, r["channel_class"], r["server_class"])
            for key, _, _, _ in CONFIGS
            for s in ("grpc-java", "bridge")
            for r in results["runs"][key][s]
        }
    )
    lines += [""] + ["- %s" % c for c in classes]
    if results["errors"]:
        lines += [""] + [
            "- FAILED %s: %s" % (k, v[0].splitlines()[0]) for k, v in results["errors"].items()
        ]
    return "\n".join(lines) + "\n"


def run_bridge(bench, args, work):
    """Runs every configuration on the three systems and prints and writes the report. `bench` is
    the running bench_compare module (its process bookkeeping, load runner and parsers)."""
    results = {
        "settings": {k: getattr(args, k) for k in ("duration", "warmup", "repeats", "quick")},
        "runs": {key: {s: [] for s in SYSTEMS} for key, _, _, _ in CONFIGS},
        "commands": {},
        "errors": {},
    }
    for config in CONFIGS:
        key, channels, outstanding, streaming = config
        results["commands"][key] = {
            s: [
                bench.show(server_cmd(s, 0, args)).replace(":0 ", ":$PORT "),
                bench.show(client_cmd(s, 0, channels, outstanding, streaming, args)).replace(
                    ":0 ", ":$PORT "
                ),
            ]
            for s in SYSTEMS
        }
        for r in range(args.repeats):
            for i in range(len(SYSTEMS)):
                system = SYSTEMS[(i + r) % len(SYSTEMS)]  # each system runs first in turn
                bench.log("bridge %s %s run %d/%d" % (key, system, r + 1, args.repeats))
                measure = bench.measure_alone if not args.quick else lambda f, *a: f(*a)
                run = bench.attempt(
                    results, "bridge %s, %s" % (key, system), measure, run_once, bench, system,
                    config, args, work,
                )  # fmt: skip
                if run:
                    results["runs"][key][system].append(run)
                    bench.log("  -> %d calls/s, p50 %d us" % (run["qps"], run["p50"]))
    with open(os.path.join(work, "bridge.json"), "w") as f:
        json.dump(results, f, indent=1)
    text = report(results)
    with open(os.path.join(work, "bridge.md"), "w") as f:
        f.write(text)
    print(text, end="")
    bench.log(
        "results in %s and %s" % tuple(os.path.join(work, n) for n in ("bridge.json", "bridge.md"))
    )
