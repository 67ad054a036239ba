#!/usr/bin/env python3
"""Turns bench_compare.py's results.json into docs/benchmarks.md and its chart.

Usage: bench_report.py RESULTS_JSON OUT_MD
The chart needs matplotlib (bin/bench-compare runs this with a virtualenv under
tern-benchmarks/target that has it); without matplotlib the page is written without a chart.
"""

import json
import os
import re
import statistics
import sys

# Beside this script, which Python puts first on sys.path.
from bench_systems import BANDWIDTH_KEY, MISSING, RAW_ECHO, ceiling_for, tern_for
from bench_systems import SYSTEMS as ALL_SYSTEMS
from client_only import TARGET as CLIENT_TARGET

# The two systems every row compares (Ratio and Better are Tern / grpc-java), in the order the
# chart and the lists of runs show them.
SYSTEMS = ("tern", "grpc-java")
# Within this fraction of 1.0 a ratio is called even: this machine's run-to-run noise is larger.
EVEN = 0.05
# Issue 34's target for the wake-up-bound rows in the fastest configuration: this share of the
# raw echo limit.
ECHO_TARGET = 0.6


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def verdict(ratio, higher_better):
    if ratio is None:
        return ""
    if abs(ratio - 1.0) <= EVEN:
        return "even"
    tern_better = ratio > 1.0 if higher_better else ratio < 1.0
    return "**Tern**" if tern_better else "grpc-java"


def fmt(value, digits=0):
    if value is None:
        return "failed"
    if digits == 0:
        return "{:,.0f}".format(value)
    return "{:,.{}f}".format(value, digits)


def ratio_of(a, b):
    return a / b if a is not None and b else None


def fmt_ratio(ratio):
    return "n/a" if ratio is None else "%.2f" % ratio


def row(name, unit, tern, grpc, higher_better, digits=0, errors=(None, None)):
    """One table row; errors are JMH's 99.9% confidence half-widths, shown as ± when known."""
    ratio = ratio_of(tern, grpc)
    better = "higher" if higher_better else "lower"
    cells = [
        fmt(v, digits) + ("" if e is None or v is None else " ± " + fmt(e, digits))
        for v, e in zip((tern, grpc), errors)
    ]
    return "| %s | %s (%s is better) | %s | %s | %s | %s |" % (
        name,
        unit,
        better,
        cells[0],
        cells[1],
        fmt_ratio(ratio),
        verdict(ratio, higher_better),
    )


def label(results, system):
    """The name the page gives a system (bench_systems' label, recorded by the run)."""
    return (results.get("labels") or {}).get(system, system)


def medians(runs, metrics):
    """Per system of `runs` (a dict of lists of runs), the median of each metric."""
    return {s: {m: median([r[m] for r in rs]) for m in metrics} for s, rs in runs.items()}


def e2e_rows(results):
    rows = []
    for key, runs in results["e2e"].items():
        med = medians(runs, ("qps", "p50", "p90", "p99"))
        rows.append(
            row(
                "end-to-end %s: QPS" % key,
                "calls/s",
                med["tern"]["qps"],
                med["grpc-java"]["qps"],
                True,
            )
        )
        for p in ("p50", "p90", "p99"):
            rows.append(
                row(
                    "end-to-end %s: %s latency" % (key, p),
                    "µs",
                    med["tern"][p],
                    med["grpc-java"][p],
                    False,
                )
            )
    return rows


def server_rows(results):
    if not results["server"]:
        return []
    med = medians(results["server"], ("req_per_s",))
    return [
        row(
            "server-only (h2load, 4 conn x 100 streams)",
            "req/s",
            med["tern"]["req_per_s"],
            med["grpc-java"]["req_per_s"],
            True,
        )
    ]


def server_peer_rows(results):
    """The server-only table: every server of the part (the JVM systems, Tern with its defaults,
    Vert.x, grpc-go, tonic, nghttpd, and the TLS servers; one whose program was not there reads
    *missing*) with its median req/s, its ratio to nghttpd (to nghttpd over TLS for a TLS server),
    and Tern's ratio to it (Tern over TLS with the same provider for a TLS server) beside the
    target for that ratio (issue 34's; issue 52's for the defaults and TLS). Nothing when the part
    ran only Tern and grpc-java."""
    runs = results["server"] or {}
    if set(runs) <= set(SYSTEMS):
        return [], []
    med = {s: m["req_per_s"] for s, m in medians(runs, ("req_per_s",)).items()}
    head = (
        "| Server | req/s | / nghttpd | Tern / it | Target for Tern / it | |",
        "|---|---:|---:|---:|---|---|",
    )
    out = []
    for s in runs:
        missing = is_missing(results, "server-only, " + s)
        tern = tern_for(s) if s in ALL_SYSTEMS else "tern"
        ceiling = ceiling_for(s) if s in ALL_SYSTEMS else "nghttpd"
        cells = [
            label(results, s),
            "missing" if missing else fmt(med[s]),
            fmt_ratio(ratio_of(med[s], med.get(ceiling))),
        ]
        ratio = ratio_of(med.get(tern), med[s])
        target = SERVER_TARGETS.get(s)
        if s == tern:
            cells += ["", "", ""]
        elif target is None:
            what = "the ceiling" if s == ceiling else "the distance"
            cells += [fmt_ratio(ratio), "none: %s" % what, ""]
        else:
            cells += [fmt_ratio(ratio), *target_verdict(ratio, *target)]
        out.append("| %s |" % " | ".join(cells))
    return head, out


# Issue 52's third target: with many connections of one stream each, Tern at least 0.7 of nghttpd.
FANIN_TARGET = 0.7


def fanin_rows(results):
    """The many-connections table: per connection count (one stream each), every plaintext server
    of the server-only part with its median req/s, its resident memory at the end of the measured
    window, its share of nghttpd, and Tern's ratio to it; nghttpd's row carries the target."""
    head = (
        "| Server | Connections x streams | req/s | Server RSS | / nghttpd | Tern / it | "
        "Target for Tern / it | |",
        "|---|---|---:|---:|---:|---:|---|---|",
    )
    out = []
    for key, runs in (results.get("fanin") or {}).items():
        req = {s: m["req_per_s"] for s, m in medians(runs, ("req_per_s",)).items()}
        rss = {
            s: median([r["server_rss"] for r in rs if r.get("server_rss") is not None])
            for s, rs in runs.items()
        }
        for s in runs:
            missing = is_missing(results, "fan-in %s, %s" % (key, s))
            ratio = ratio_of(req.get("tern"), req[s])
            if s == "tern":
                judged = ["", "", ""]
            elif s == "nghttpd":
                judged = [fmt_ratio(ratio), *target_verdict(ratio, FANIN_TARGET, True)]
            else:
                judged = [fmt_ratio(ratio), "none", ""]
            cells = [
                label(results, s),
                key,
                "missing" if missing else fmt(req[s]),
                "" if rss[s] is None else "%s MiB" % fmt(mib(rss[s]), 1),
                fmt_ratio(ratio_of(req[s], req.get("nghttpd"))),
                *judged,
            ]
            out.append("| %s |" % " | ".join(cells))
    return head, out


CLIENT_LABELS = {
    "h2load": "h2load (the ceiling)",
    "tern": "Tern (QpsClient)",
    "grpc-java": "grpc-java (GrpcJavaBalancedClient)",
}


# The client-only part in "How to read the parts" (also kept by hand in docs/benchmarks.md until
# the page is next generated).
CLIENT_ONLY_NOTE = (
    "- **Client-only** (issue 52's fifth target; `tern-benchmarks/scripts/client_only.py`): "
    "nghttpd (plaintext, one worker, pinned to CPU 0) answers every call with a static file "
    "holding one gRPC frame (a `SimpleResponse` with an empty payload, 7 bytes), served as "
    "`content-type: application/grpc` through a MIME map (`--mime-types-file`) and followed by "
    "the trailer `grpc-status: 0` (`--trailer`). nghttpd takes the content-type from the "
    "extension of the path's last segment, so the calls go to "
    "`grpc.testing.BenchmarkService/Unary.grpc` (the clients' `--unary_method`): at `UnaryCall` "
    "it would answer without a content-type, which a gRPC client rejects. Before the runs, "
    "`nghttp -v` checks the answer's status, content-type, frame and trailer. Each client, "
    "pinned to CPU 1, keeps 4 connections x 100 calls busy: h2load (the ceiling; its runs "
    "checked as the server-only part's), Tern's `QpsClient` (4 channels x 100 outstanding, "
    "default executor) and grpc-java's `GrpcJavaBalancedClient` on one address (grpc-java 1.79 "
    "channels set up as its `AsyncClient` sets them up, which always calls `UnaryCall`). The Java "
    "clients count a call only when it ended with status OK and fail the run if any call failed. "
    "Warm-up and measured seconds are the end-to-end part's."
)


def client_rows(results):
    """The client-only table: per connections x streams, h2load and each Java client against
    nghttpd's static gRPC answer, the median calls/s and its share of h2load's; Tern's row carries
    the target."""
    head = (
        "| Client | Connections x streams | calls/s | / h2load | Target for it | |",
        "|---|---|---:|---:|---|---|",
    )
    out = []
    for key, runs in (results.get("client") or {}).items():
        med = {s: median([r["calls_per_s"] for r in rs]) for s, rs in runs.items()}
        for s in runs:
            share = ratio_of(med[s], med.get("h2load"))
            judged = target_verdict(share, CLIENT_TARGET, True) if s == "tern" else ("", "")
            cells = [CLIENT_LABELS.get(s, s), key, fmt(med[s]), fmt_ratio(share), *judged]
            out.append("| %s |" % " | ".join(cells))
    return head, out


def startup_rows(results):
    """The start-up table: per system, the median milliseconds from launching its server to its
    first answered call and from launching its first-call client to its answer, without and with
    AppCDS, each beside its multiple of Tern's (above 1 favours Tern)."""
    head = (
        "| System | Server: launch to first answered call | with AppCDS | "
        "Client: launch to first answer | with AppCDS |",
        "|---|---:|---:|---:|---:|",
    )
    data = results.get("startup") or {}
    med = {s: {k: median(v) for k, v in figures.items()} for s, figures in data.items()}
    out = []
    for s, figures in med.items():
        cells = [label(results, s)]
        for key in ("server", "server_cds", "client", "client_cds"):
            ms = None if figures.get(key) is None else 1000 * figures[key]
            if ms is None:
                cells.append(
                    "-" if key.startswith("client") and not data[s].get("client") else "failed"
                )
                continue
            cell = "%s ms" % fmt(ms)
            theirs, ours = med.get(s, {}).get(key), med.get("tern", {}).get(key)
            if s != "tern" and theirs and ours:
                cell += " (%sx Tern's)" % fmt_ratio(theirs / ours)
            cells.append(cell)
        out.append("| %s |" % " | ".join(cells))
    return head, out


def e2e_peer_rows(results):
    """The end-to-end table of every system that ran the part (Tern, grpc-java and the peers with
    a client of their own: Vert.x), each its own client against its own server: per configuration
    its median QPS and p50/p99, Tern's QPS over its, and the target for that (issue 52's for
    Vert.x). One whose program was not there reads *missing*. Nothing when the part ran only Tern
    and grpc-java, whose figures are in the results table."""
    if all(set(runs) <= set(SYSTEMS) for runs in results["e2e"].values()):
        return [], []
    head = (
        "| Configuration | Client and server | QPS | p50 µs | p99 µs | Tern / it (QPS) "
        "| Target for Tern / it | |",
        "|---|---|---:|---:|---:|---:|---|---|",
    )
    out = []
    for key, runs in results["e2e"].items():
        med = medians(runs, ("qps", "p50", "p99"))
        for s in runs:
            if is_missing(results, "end-to-end %s, %s" % (key, s)):
                out.append("| %s | %s | missing | | | | | |" % (key, label(results, s)))
                continue
            cells = [key, label(results, s)] + [fmt(med[s][m]) for m in ("qps", "p50", "p99")]
            ratio = ratio_of(med["tern"]["qps"], med[s]["qps"]) if "tern" in med else None
            target = E2E_TARGETS.get(s)
            if s == "tern":
                cells += ["", "", ""]
            elif target is None:
                cells += [fmt_ratio(ratio), "none (the results table above)", ""]
            else:
                cells += [fmt_ratio(ratio), *target_verdict(ratio, *target)]
            out.append("| %s |" % " | ".join(cells))
    return head, out


# The streaming part's ping-pong rows (bench_compare.streaming_key) and whether each is the fastest
# configuration (direct executor on both sides); each row's raw echo limit is under its key
# without " direct".
PING_PONG_KEYS = tuple(
    ("ping-pong %s 1x1%s" % (size, " direct" if direct else ""), direct)
    for direct in (False, True)
    for size in ("0 B", "1 KiB")
)
FASTEST = " (fastest configuration: direct executors)"


def echo_limit(results, key, metric="qps"):
    """The raw echo's median `metric` for a streaming key (its " direct" row's limit is the
    default row's), or None where the echo part did not run it."""
    runs = ((results.get("echo") or {}).get(key.replace(" direct", "")) or {}).get(RAW_ECHO.name)
    return median([r[metric] for r in runs or []])


def is_missing(results, what):
    """Whether `what` (a server, or the raw echo) did not run because its program was not there."""
    return any(m.startswith(MISSING) for m in results.get("errors", {}).get(what, []))


def wake_up_figures(results):
    """The wake-up-bound figures: (name, unit, raw echo limit, figure by system, whether issue
    34's target judges it). The target is for the fastest configuration: the ping-pong rows run
    direct, and the new-connection rows, which the connections part runs with default executors
    only (a lower bound of the fastest's share)."""
    streaming = results.get("streaming") or {}
    figures = []
    for key, direct in PING_PONG_KEYS:
        by = {s: m["qps"] for s, m in medians(streaming.get(key) or {}, ("qps",)).items()}
        name = "streaming %s%s: round trips" % (key, FASTEST if direct else "")
        figures.append((name, "msgs/s", echo_limit(results, key), by, direct))
    # The echo has no JIT to warm up: one figure is the limit of both new-connection rows.
    conns, ran = conns_medians(results), results.get("conns") or {}
    new_limit = echo_limit(results, "new connections", "per_second")
    what = "new connection + first call, one at a time: rate"
    by = {s: m["per_second"] for s, m in conns.items()} if ran.get("new") else {}
    figures.append((what, "conns/s", new_limit, by, bool(by)))
    if ran.get("new_settled"):
        by = {s: m["settled_per_second"] for s, m in conns.items()}
        figures.append(("%s: rate" % settled_label(results), "conns/s", new_limit, by, True))
    return figures


def echo_section(results):
    """Issue 34's wake-up-bound rows: each JVM system's streaming ping-pong and new-connection
    rates as a share of the raw loopback echo's, measured in the same run (n/a where the row's
    part did not run); nothing if the echo part neither ran nor failed."""
    echo = results.get("echo") or {}
    errors = results.get("errors", {})
    if not echo and not any(what.startswith("raw echo") for what in errors):
        return []
    missing = is_missing(results, "raw echo, " + RAW_ECHO.name)
    figures = wake_up_figures(results)
    systems = [s for s in SYSTEMS if s in results.get("systems", SYSTEMS)]
    rows = []
    for name, unit, top, by, _judged in figures:
        if top is None and not by:
            continue
        cells = [name, unit, "missing" if missing else fmt(top)]
        for s in systems:
            if s in by:
                cells += [fmt(by[s]), fmt_ratio(ratio_of(by[s], top))]
            else:
                cells += ["n/a", "n/a"]  # the row's part did not run it
        rows.append("| %s |" % " | ".join(cells))
    names = [label(results, s) for s in systems]
    return table(
        "Wake-up-bound rows against the machine (issue 34): each system's figure as a share of the "
        "raw loopback limit measured in the same run by `raw-echo` (blocking C, one client thread "
        "and one server thread, no protocol; the 0 B row's limit is a 1-byte round trip). Target: "
        "at least %.1f of the limit in the fastest configuration." % ECHO_TARGET,
        (
            "| Figure | Unit | Raw echo limit | %s |"
            % " | ".join("{0} | {0} / limit".format(n) for n in names),
            "|---|---|---:|%s" % ("---:|---:|" * len(systems)),
        ),
        rows,
    )


# Issue 52's fourth target for the 1 MiB unary rows: Tern at least this share of the loopback's
# one-way bandwidth measured in the same run, and at least LARGE_OVER_GRPC_JAVA times grpc-java.
BANDWIDTH_TARGET = 0.5
LARGE_OVER_GRPC_JAVA = 1.5
# The one-way rows issue 52 puts against the same limit: server streaming of these sizes.
STREAMED_SIZES = (("1024", "1 KiB"), ("65536", "64 KiB"))


def bandwidth_figures(results):
    """The large-message figures in MiB/s by system, each (name, MiB/s by system, judged): the
    1 MiB unary rows' payload moved (2 MiB a call), judged by issue 52's targets, and the flow
    part's server-to-client one-way stream's payload delivered (messages/s times the message's
    bytes; the gRPC prefix of 5 bytes a message is not counted), recorded."""
    figures = []
    for key, runs in (results.get("large") or {}).items():
        by = {s: m["qps"] for s, m in medians(runs, ("qps",)).items()}
        by = {s: twice(v) for s, v in by.items() if v is not None}
        figures.append(("%s: payload moved (2 MiB a call)" % key, by, True))
    flow = flow_results(results)
    for size, size_name in STREAMED_SIZES:
        systems = flow.get(("OneWayStreamBenchmark.serverToClient", size)) or {}
        by = {
            s: r["ns_per_op"] * int(size) / MIB
            for s, r in systems.items()
            if r.get("ns_per_op") is not None
        }
        if by:
            name = "JMH one-way stream, server to client, %s messages: payload delivered" % (
                size_name
            )
            figures.append((name, by, False))
    return figures


def bandwidth_section(results):
    """Issue 52's large-message rows against the machine: each system's MiB/s as a share of the
    loopback's one-way bandwidth (the echo part's raw echo, same run), and Tern over grpc-java;
    nothing if neither the limit nor a figure was measured."""
    runs = ((results.get("echo") or {}).get(BANDWIDTH_KEY) or {}).get(RAW_ECHO.name) or []
    limit = median([r["bytes_per_second"] / MIB for r in runs])
    figures = [f for f in bandwidth_figures(results) if f[1]]
    if limit is None or not figures:
        return []
    rows = []
    for name, by, judged in figures:
        tern, grpc = by.get("tern"), by.get("grpc-java")
        share, over = ratio_of(tern, limit), ratio_of(tern, grpc)
        if judged:
            bounds = ">= %g of the limit, >= %g x grpc-java" % (
                BANDWIDTH_TARGET,
                LARGE_OVER_GRPC_JAVA,
            )
            missed = [
                what
                for what, ratio, target in (
                    ("limit", share, BANDWIDTH_TARGET),
                    ("grpc-java", over, LARGE_OVER_GRPC_JAVA),
                )
                if ratio is None or ratio < target
            ]
            verdict = "met" if not missed else "not met (%s)" % ", ".join(missed)
        else:
            bounds, verdict = "none: recorded", ""
        cells = [name, fmt(limit), fmt(tern), fmt_ratio(share), fmt(grpc)]
        cells += [fmt_ratio(ratio_of(grpc, limit)), fmt_ratio(over), bounds, verdict]
        rows.append("| %s |" % " | ".join(cells))
    return table(
        "Large messages against the machine (issue 52's fourth target): MiB/s of payload as a "
        "share of the loopback's one-way bandwidth measured in the same run by `raw-echo "
        "bandwidth` (blocking C, one connection writing 1 MiB at a time to a server that drops "
        "what it reads, no protocol; unpinned, as the large-message part runs). The 1 MiB rows "
        "move 2 MiB a call, one each way; the one-way rows are the flow part's JMH "
        "server-to-client stream (messages/s times the message's size). Target for the 1 MiB "
        "rows: Tern at least %g of the limit and at least %g x grpc-java."
        % (BANDWIDTH_TARGET, LARGE_OVER_GRPC_JAVA),
        (
            "| Figure | Raw bandwidth MiB/s | Tern MiB/s | Tern / limit | grpc-java MiB/s "
            "| grpc-java / limit | Tern / grpc-java | Target | |",
            "|---|---:|---:|---:|---:|---:|---:|---|---|",
        ),
        rows,
    )


def streaming_rows(results):
    out = []
    for key, runs in (results.get("streaming") or {}).items():
        if not all(runs.get(s) for s in SYSTEMS):
            continue
        med = medians(runs, ("qps", "p50"))
        t, g = med["tern"], med["grpc-java"]
        out.append(row("%s: round trips" % key, "msgs/s", t["qps"], g["qps"], True))
        out.append(row("%s: p50 latency" % key, "µs", t["p50"], g["p50"], False))
    return out


def large_rows(results):
    out = []
    for key, runs in (results.get("large") or {}).items():
        if not all(runs.get(s) for s in SYSTEMS):
            continue
        med = medians(runs, ("qps", "p50"))
        t, g = med["tern"], med["grpc-java"]
        out.append(row("%s: calls" % key, "calls/s", t["qps"], g["qps"], True))
        out.append(
            row(
                "%s: payload moved (2 MiB a call)" % key,
                "MiB/s",
                twice(t["qps"]),
                twice(g["qps"]),
                True,
            )
        )
        out.append(row("%s: p50 latency" % key, "µs", t["p50"], g["p50"], False))
    return out


def twice(value):
    """2 x value, for a figure (None: failed)."""
    return None if value is None else 2 * value


def tls_by(results):
    """TlsBenchmark's rows by (benchmark, provider), then by system; the provider of a run with
    both systems on X25519 (groups=x25519) reads "openssl, both on X25519"."""
    by = {}
    for r in results.get("tls") or []:
        p = r["params"]
        provider = p.get("provider")
        if p.get("groups", "default") != "default":
            provider += ", both on %s" % p["groups"].upper()
        by.setdefault((r["benchmark"].split(".")[1], provider), {})[p.get("system")] = r
    return by


def tls_rows(results):
    by = tls_by(results)
    out = []
    names = {
        "handshakeAndCall": "TLS handshake + one 1 KiB call (new connection)",
        "handshakesFourAtOnce": "TLS handshake + one 1 KiB call (new connection), four at once",
        "unaryCall1024": "TLS 1 KiB unary calls on one connection",
    }
    for (bench, provider), systems in sorted(by.items()):
        if all(s in systems for s in SYSTEMS):
            out.append(
                row(
                    "JMH %s, %s" % (names.get(bench, bench), provider),
                    "ops/s",
                    systems["tern"]["ns_per_op"],
                    systems["grpc-java"]["ns_per_op"],
                    True,
                )
            )
    return out


MIB = 1024 * 1024
ONE_WAY = (("clientToServer", "client to server"), ("serverToClient", "server to client"))
ONE_WAY_SIZES = (("0", "0 B"), ("1024", "1 KiB"), ("65536", "64 KiB"))
LARGE_SIZES = (("16777216", "16 MiB"), ("1048576", "1 MiB"))


def flow_results(results):
    """The flow part's JMH rows by (benchmark, size), then by system. The primary score is in
    ops/s there (JMH ran with -tu s), kept under parse_jmh's "ns_per_op" key."""
    by = {}
    for r in results.get("flow") or []:
        p = r["params"]
        by.setdefault((r["benchmark"], p.get("size")), {})[p.get("system")] = r
    return by


def flow_figure(systems, key, scale=1.0):
    """Per system, (value * scale, JMH error * scale) of one metric; None where missing."""
    values, errors = [], []
    for s in SYSTEMS:
        r = systems.get(s) or {}
        value = r.get(key)
        values.append(None if value is None else value * scale)
        error = r.get("ns_error") if key == "ns_per_op" else None
        errors.append(None if error is None else error * scale)
    return values, tuple(errors)


def flow_rows(results):
    """One-way messages/s, large-unary MiB/s, and heap bytes allocated per delivered byte (or per
    message), Tern beside grpc-java; a system with no result shows as failed."""
    by = flow_results(results)
    out = []
    for method, direction in ONE_WAY:
        for size, size_name in ONE_WAY_SIZES:
            systems = by.get(("OneWayStreamBenchmark." + method, size))
            if systems:
                (tern, grpc), errors = flow_figure(systems, "ns_per_op")
                name = "JMH one-way stream, %s, %s messages: delivered" % (direction, size_name)
                out.append(row(name, "msgs/s", tern, grpc, True, errors=errors))
    for size, size_name in LARGE_SIZES:
        systems = by.get(("LargeUnaryBenchmark.unaryEcho", size))
        if systems:
            (tern, grpc), errors = flow_figure(systems, "ns_per_op", 2.0 * int(size) / MIB)
            name = "JMH %s unary echo: payload moved (2 x %s a call)" % (size_name, size_name)
            out.append(row(name, "MiB/s", tern, grpc, True, errors=errors))
    for size, size_name in LARGE_SIZES:
        systems = by.get(("LargeUnaryBenchmark.unaryEcho", size))
        if systems:
            (tern, grpc), _ = flow_figure(systems, "bytes_per_op", 1.0 / (2 * int(size)))
            name = "JMH %s unary echo: heap allocated per payload byte delivered" % size_name
            out.append(row(name, "B/B", tern, grpc, False, 2))
    for method, direction in ONE_WAY:
        for size, size_name in ONE_WAY_SIZES:
            systems = by.get(("OneWayStreamBenchmark." + method, size))
            if systems:
                (tern, grpc), _ = flow_figure(systems, "bytes_per_op")
                name = "JMH one-way stream, %s, %s messages: heap allocated" % (
                    direction,
                    size_name,
                )
                out.append(row(name, "B/msg", tern, grpc, False))
    return out


def alloc_medians(results, part):
    """Heap bytes per call by system, of "alloc" (server) or "client_alloc"."""
    return {s: median([r["bytes_per_call"] for r in runs]) for s, runs in results[part].items()}


def alloc_rows(results):
    alloc = results.get("alloc") or {}
    if not all(alloc.get(s) for s in SYSTEMS):
        return []
    med = alloc_medians(results, "alloc")
    out = [
        row(
            "server heap allocated per empty unary call (Epsilon GC, h2load 4x100)",
            "B/call",
            med["tern"],
            med["grpc-java"],
            False,
        )
    ]
    client = results.get("client_alloc") or {}
    if all(client.get(s) for s in SYSTEMS):
        med = alloc_medians(results, "client_alloc")
        out.append(
            row(
                "client heap allocated per empty unary call (Epsilon GC, qps client 4x10 direct)",
                "B/call",
                med["tern"],
                med["grpc-java"],
                False,
            )
        )
    return out


MIB = 1024.0 * 1024.0
# Issue 18's targets for the connections part, Tern / grpc-java: memory per idle connection at most
# half of grpc-java's, new connections per second at least one and a half times as many.
CONNS_MEMORY_TARGET, CONNS_RATE_TARGET = 0.5, 1.5


def conns_medians(results):
    """Median figures of the connections part per system, None where a system has no runs."""
    conns = results.get("conns") or {}
    idle, new = conns.get("idle") or {}, conns.get("new") or {}
    settled = conns.get("new_settled") or {}
    med = {}
    for s in dict.fromkeys(list(SYSTEMS) + list(idle) + list(new) + list(settled)):
        i, n, st = idle.get(s) or [], new.get(s) or [], settled.get(s) or []
        med[s] = {
            "connections": median([r["connections"] for r in i]),
            "heap_per_connection": median([r["heap_per_connection"] for r in i]),
            "rss_per_connection": median([r["rss_per_connection"] for r in i]),
            "heap_total": mib(median([r["heap"][1] for r in i])),
            "rss_total": mib(median([r["rss"][1] for r in i])),
            "new_connections": median([r["connections"] for r in n]),
            "p50": median([r["p50"] for r in n]),
            "p99": median([r["p99"] for r in n]),
            "per_second": median([r["per_second"] for r in n]),
            "settled_connections": median([r["connections"] for r in st]),
            "settled_p50": median([r["p50"] for r in st]),
            "settled_p99": median([r["p99"] for r in st]),
            "settled_per_second": median([r["per_second"] for r in st]),
        }
    return med


def settled_label(results):
    """The label of the new-connections row measured after the longer warm-up."""
    warmup = (results.get("conns") or {}).get("settled_warmup")
    return "new connection + first call, one at a time, after {:,} warm-up connections".format(
        warmup or 0
    )


def conns_rows(results):
    med = conns_medians(results)
    t, g = med["tern"], med["grpc-java"]

    def conns_row(name, unit, metric, higher_better, digits=0):
        return row(name, unit, t[metric], g[metric], higher_better, digits)

    out = []
    if t["connections"] or g["connections"]:
        n = "{:,.0f}".format(t["connections"] or g["connections"])
        out += [
            conns_row(
                "server live heap per idle connection (%s held)" % n,
                "B/conn",
                "heap_per_connection",
                False,
            ),
            conns_row(
                "server RSS per idle connection (%s held)" % n,
                "B/conn",
                "rss_per_connection",
                False,
            ),
            conns_row(
                "server live heap holding %s idle connections" % n, "MiB", "heap_total", False, 1
            ),
            conns_row("server RSS holding %s idle connections" % n, "MiB", "rss_total", False, 1),
        ]
    if t["new_connections"] or g["new_connections"]:
        what = "new connection + first call, one at a time"
        out += [
            conns_row("%s: p50 latency" % what, "µs", "p50", False),
            conns_row("%s: p99 latency" % what, "µs", "p99", False),
            conns_row("%s: rate" % what, "conns/s", "per_second", True),
        ]
    if t["settled_connections"] or g["settled_connections"]:
        what = settled_label(results)
        out += [
            conns_row("%s: p50 latency" % what, "µs", "settled_p50", False),
            conns_row("%s: p99 latency" % what, "µs", "settled_p99", False),
            conns_row("%s: rate" % what, "conns/s", "settled_per_second", True),
        ]
    return out


def mib(value):
    return None if value is None else value / MIB


def conns_targets(results):
    """Issue 18's targets beside the measured ratios, as table rows; none without figures."""
    med = conns_medians(results)
    conns = results.get("conns") or {}
    t, g = med["tern"], med["grpc-java"]
    out = []
    for name, metric, target, higher in (
        ("server live heap per idle connection", "heap_per_connection", CONNS_MEMORY_TARGET, False),
        ("server RSS per idle connection", "rss_per_connection", CONNS_MEMORY_TARGET, False),
        ("new connections per second", "per_second", CONNS_RATE_TARGET, True),
        (
            "new connections per second, after {:,} warm-up connections".format(
                conns.get("settled_warmup") or 0
            ),
            "settled_per_second",
            CONNS_RATE_TARGET,
            True,
        ),
    ):
        if t[metric] is None or not g[metric]:
            continue
        out.append(target_row(name, t[metric] / g[metric], target, higher))
    return out


def target_row(name, ratio, target, higher):
    """A target table's row: the figure, the bound, the measured ratio, and whether it is met."""
    bound, verdict = target_verdict(ratio, target, higher)
    return "| %s | %s | %s | %s |" % (name, bound, fmt_ratio(ratio), verdict)


def target_verdict(ratio, target, higher):
    """A target's bound ("at least" if higher) and whether `ratio` meets it. A target of AHEAD
    is being ahead by more than the page's noise band (EVEN); within it the verdict is even."""
    if target is AHEAD:
        bound = "> 1 (ahead)"
        if ratio is None:
            return bound, "not measured"
        return bound, "met" if ratio > 1 + EVEN else "even" if ratio >= 1 - EVEN else "not met"
    bound = "%s %s" % (">=" if higher else "<=", "{:g}".format(target))
    if ratio is None:
        return bound, "not measured"
    return bound, "met" if (ratio >= target if higher else ratio <= target) else "not met"


# Issue 34's targets for Tern (set for its own HTTP/2 engine, Tern's one stack since), as ratios
# to grpc-java: server memory per idle connection, heap and RSS, and heap per empty unary call,
# server and client (at most); TLS ops/s (at least).
ISSUE34_IDLE_HEAP, ISSUE34_IDLE_RSS, ISSUE34_CALL_HEAP, ISSUE34_TLS = 0.5, 0.7, 0.35, 1.2
AHEAD = object()  # a target: ahead, beyond the noise band
# The server-only table's targets for Tern / each server (issue 34's, higher is better; issue 52's
# for Tern's defaults: at least 0.8 of the tuned row, so tuned / defaults at most 1.25); tonic's row
# shows the distance and nghttpd's the ceiling, with no target.
SERVER_TARGETS = {
    "tern-defaults": (1.25, False),
    "grpc-java": (3.0, True),
    "vertx": (AHEAD, True),
    "grpc-go": (AHEAD, True),
    # Issue 52's TLS target: at least 2.5x grpc-java's with each provider, and at least 0.8 of
    # nghttpd over TLS.
    "grpc-java-tls": (2.5, True),
    "grpc-java-tls-jdk": (2.5, True),
    "nghttpd-tls": (0.8, True),
}
# Issue 52's target against Vert.x gRPC on every row it has: ahead, beyond the noise band.
E2E_TARGETS = {"vertx": (AHEAD, True)}


def issue34_targets(results):
    """Issue 34's targets beside the ratios measured in this run, as table rows (a target whose
    figures the run lacks reads *not measured*); none if the run measured none of them. The
    server-only ones are in the server-only table (server_peer_rows)."""
    conns = conns_medians(results)
    alloc = alloc_medians(results, "alloc") if results.get("alloc") else {}
    client = alloc_medians(results, "client_alloc") if results.get("client_alloc") else {}
    targets = []  # (name, ratio, target, higher is better)
    for name, metric, target in (
        ("server live heap per idle connection", "heap_per_connection", ISSUE34_IDLE_HEAP),
        ("server RSS per idle connection", "rss_per_connection", ISSUE34_IDLE_RSS),
    ):
        ratio = ratio_of(conns["tern"][metric], conns["grpc-java"][metric])
        targets.append((name + ", Tern / grpc-java", ratio, target, False))
    for name, by in (("server", alloc), ("client", client)):
        ratio = ratio_of(by.get("tern"), by.get("grpc-java"))
        name = "%s heap allocated per empty unary call, Tern / grpc-java" % name
        targets.append((name, ratio, ISSUE34_CALL_HEAP, False))
    targets += wake_up_targets(results) + tls_targets(results) + in_process_targets(results)
    if all(ratio is None for _name, ratio, _target, _higher in targets):
        return []
    return [target_row(*target) for target in targets]


def wake_up_targets(results):
    """Issue 34's wake-up-bound target: Tern's figure as a share of the raw echo limit of the same
    run, for the figures the target judges (wake_up_figures)."""
    out = []
    for name, _unit, top, by, judged in wake_up_figures(results):
        if judged:
            label = name.rsplit(": ", 1)[0] + ", Tern / raw echo limit"
            if "fastest" not in name:
                label = label.replace(", Tern", " (default executors: no fastest run), Tern")
            out.append((label, ratio_of(by.get("tern"), top), ECHO_TARGET, True))
    return out


def tls_targets(results):
    """The TLS rows (JMH TlsBenchmark, ops/s): Tern / grpc-java at least ISSUE34_TLS."""
    by = tls_by(results)
    names = {
        "handshakeAndCall": "handshake + one call",
        "handshakesFourAtOnce": "handshake + one call, four at once",
        "unaryCall1024": "calls on one connection",
    }
    out = []
    for (bench, provider), systems in sorted(by.items()):
        tern, grpc = systems.get("tern"), systems.get("grpc-java")
        ratio = ratio_of(tern and tern["ns_per_op"], grpc and grpc["ns_per_op"])
        name = "JMH TLS %s, %s, Tern / grpc-java" % (names.get(bench, bench), provider)
        out.append((name, ratio, ISSUE34_TLS, True))
    return out


def in_process_targets(results):
    """JMH's in-process ping-pong with direct executors, Tern / grpc-java ns/op: issue 34 asks
    why Tern was slower and for the fix (no slower than grpc-java). In-process, no HTTP/2."""
    key = ("streamingPingPong1024", "inprocess", "true", "false")
    by = call_benchmarks(results).get(key, {})
    if not by:
        return []
    tern, grpc = by.get("tern"), by.get("grpc-java")
    ratio = ratio_of(tern and tern["ns_per_op"], grpc and grpc["ns_per_op"])
    name = "JMH in-process ping-pong, direct executors, Tern / grpc-java ns/op"
    return [(name, ratio, 1.0, False)]


def new_conns_run_line(what, system, r):
    """One new-connections run, for the list of runs."""
    return (
        "- %s, %s: %d timed; p50/p90/p99/max µs %d/%d/%d/%d; %d per second; "
        "other processes' CPU, of a core: %s"
        % (
            what,
            system,
            r["connections"],
            r["p50"],
            r["p90"],
            r["p99"],
            r["max"],
            r["per_second"],
            contention(r) or "?",
        )
    )


def contention(run):
    """'; other processes X% of a core' for a run that measured it, marked if contended."""
    foreign = run.get("foreign_cpu")
    if foreign is None:
        return ""
    return "%.0f%%%s" % (100 * foreign, " (contended)" if run.get("contended") else "")


def call_benchmarks(results):
    """CallBenchmark's rows by (benchmark, transport, direct, otel), then by system. Results
    from before the otel parameter existed count as otel=false."""
    calls = {}
    for r in results["jmh"]:
        if r["benchmark"].startswith("CallBenchmark"):
            p = r["params"]
            key = (
                r["benchmark"].split(".")[1],
                p.get("transport"),
                p.get("direct"),
                p.get("otel", "false"),
            )
            calls.setdefault(key, {})[p.get("system")] = r
    return calls


def jmh_rows(results):
    """CallBenchmark's rows, Tern beside grpc-java."""
    rows = []
    for (bench, transport, direct, otel), by in sorted(call_benchmarks(results).items()):
        if not all(s in by for s in SYSTEMS):
            continue
        label = "JMH %s, %s, direct=%s%s" % (
            bench,
            transport,
            direct,
            ", OpenTelemetry on" if otel == "true" else "",
        )
        rows.append(
            row(
                label,
                "ns/op",
                by["tern"]["ns_per_op"],
                by["grpc-java"]["ns_per_op"],
                False,
                errors=(by["tern"]["ns_error"], by["grpc-java"]["ns_error"]),
            )
        )
        rows.append(
            row(label, "B/op", by["tern"]["bytes_per_op"], by["grpc-java"]["bytes_per_op"], False)
        )
    return rows


def overhead(off, on, digits=0):
    """What turning OpenTelemetry on added: "+123 (+4%)", from off to on."""
    if off is None or on is None:
        return "n/a"
    added = on - off
    sign = "+" if added >= 0 else "-"
    share = "" if not off else " (%+.0f%%)" % (100.0 * added / off)
    return sign + fmt(abs(added), digits) + share


def otel_rows(results):
    """Each system with OpenTelemetry on against itself with it off, where both were measured."""
    calls = call_benchmarks(results)
    rows = []
    for (bench, transport, direct, otel), on in sorted(calls.items()):
        off = calls.get((bench, transport, direct, "false"), {})
        if otel != "true" or not any(s in on and s in off for s in SYSTEMS):
            continue
        label = "JMH %s, %s, direct=%s" % (bench, transport, direct)
        for unit, metric in (("ns/op", "ns_per_op"), ("B/op", "bytes_per_op")):
            cells = []
            for s in SYSTEMS:
                before = off.get(s, {}).get(metric)
                after = on.get(s, {}).get(metric)
                cells += [fmt(before), fmt(after), overhead(before, after)]
            rows.append("| %s | %s | %s |" % (label, unit, " | ".join(cells)))
    return rows


def memory(meminfo):
    """/proc/meminfo's "24684092 kB" as GiB."""
    parts = meminfo.split()
    if len(parts) == 2 and parts[0].isdigit() and parts[1] == "kB":
        return "%.1f GiB" % (int(parts[0]) / 1024.0 / 1024.0)
    return meminfo


def chart_systems(results):
    """The systems of SYSTEMS that the end-to-end or server-only part ran, for the chart."""
    ran = set(results["server"] or {})
    for runs in results["e2e"].values():
        ran |= set(runs)
    return [s for s in SYSTEMS if s in ran]


def chart(results, png_path):
    """QPS per configuration and latency percentiles, Tern beside grpc-java. False if no
    chart."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    keys = list(results["e2e"].keys())
    if not keys and not results["server"]:
        return False
    systems = chart_systems(results)
    colors = {"tern": "#2a7ab0", "grpc-java": "#d98c2b"}
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    labels = ["e2e " + k for k in keys]
    values = {
        s: [median([r["qps"] for r in results["e2e"][k].get(s, [])]) for k in keys] for s in systems
    }
    if results["server"]:
        labels.append("server-only\n(h2load req/s)")
        for s in systems:
            values[s].append(median([r["req_per_s"] for r in results["server"].get(s, [])]))
    width = 0.76 / len(systems)
    offsets = {s: (i - (len(systems) - 1) / 2.0) * width for i, s in enumerate(systems)}
    xs = range(len(labels))
    ax = axes[0]
    for s in systems:
        ys = [v or 0 for v in values[s]]  # a failed measurement shows as a missing bar...
        name = label(results, s)
        ax.bar([x + offsets[s] for x in xs], ys, width, label=name, color=colors[s])
        for x, v in zip(xs, values[s]):
            if v is None:  # ...labelled, so it is not read as zero throughput
                ax.text(
                    x + offsets[s],
                    0,
                    " %s failed" % name,
                    rotation=90,
                    ha="center",
                    va="bottom",
                    fontsize=8,
                    color=colors[s],
                )
    ax.set_xticks(list(xs))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel("calls per second (median; higher is better)")
    ax.set_title("Throughput")
    ax.legend()
    ax = axes[1]
    pcts = ("p50", "p90", "p99")
    group = []
    for k in keys:
        for p in pcts:
            group.append((k, p))
    xs = range(len(group))
    for s in systems:
        ys = [
            (median([r[p] for r in results["e2e"][k].get(s, [])]) or 0) / 1000.0 for k, p in group
        ]
        ax.bar([x + offsets[s] for x in xs], ys, width, label=label(results, s), color=colors[s])
    ax.set_xticks(list(xs))
    ax.set_xticklabels(
        ["%s\n%s" % (p, k.replace(" ", "\n")) if p == "p50" else p for k, p in group], fontsize=7
    )
    ax.set_yscale("log")
    ax.set_ylabel("latency, ms (median of runs; log scale; lower is better)")
    ax.set_title("End-to-end latency percentiles")
    ax.legend()
    fig.suptitle("Tern vs grpc-java 1.79 (NIO, loopback, %d cores)" % results["machine"]["nproc"])
    fig.tight_layout()
    fig.savefig(png_path, dpi=100)
    return True


def failures(results, what):
    """How many runs of one measurement failed: the repeats it had minus the runs recorded."""
    return repeats_of(results, what) - len(runs_of(results, what))


def repeats_of(results, what):
    if what.startswith(("server allocation, ", "client allocation, ")):
        return 1
    prefixes = (("server", "server"), ("large", "large"), ("streaming", "streaming"))
    prefixes += (("connections", "conns"), ("raw echo", "echo"), ("client-only", "client"))
    part = next((p for prefix, p in prefixes if what.startswith(prefix)), "e2e")
    origin = results.get("reused", {}).get(part, {})
    return (origin.get("settings") or results["settings"])["repeats"]


def runs_of(results, what):
    if what.startswith("client-only "):  # "client-only KEY, SYSTEM"
        key, system = what[len("client-only ") :].rsplit(", ", 1)
        return (results.get("client") or {}).get(key, {}).get(system, [])
    if what.startswith("raw echo "):  # "raw echo KEY, raw-echo"
        key, system = what[len("raw echo ") :].rsplit(", ", 1)
        return (results.get("echo") or {}).get(key, {}).get(system, [])
    if what.startswith("connections "):
        kind, system = what[len("connections ") :].split(", ", 1)
        return (results.get("conns") or {}).get(kind, {}).get(system, [])
    if what.startswith("client allocation, "):
        return (results.get("client_alloc") or {}).get(what.split(", ", 1)[1], [])
    if what.startswith("streaming "):
        key, system = what[len("streaming ") :].rsplit(", ", 1)
        return (results.get("streaming") or {}).get(key, {}).get(system, [])
    if what.startswith("large messages "):
        key, system = what[len("large messages ") :].rsplit(", ", 1)
        return (results.get("large") or {}).get(key, {}).get(system, [])
    if what.startswith("server allocation, "):
        return (results.get("alloc") or {}).get(what.split(", ", 1)[1], [])
    if what.startswith("server-only, "):
        return results["server"].get(what.split(", ", 1)[1], [])
    key, system = what[len("end-to-end ") :].rsplit(", ", 1)
    return results["e2e"].get(key, {}).get(system, [])


def raw_runs(results):
    lines = []
    for key, runs in results["e2e"].items():
        for s in runs:
            jit = ""
            if runs[s] and all(isinstance(r.get("jit_cpu_share"), dict) for r in runs[s]):
                jit = "; JIT compiler threads while measured, server/client, %% of a core: %s" % (
                    "; ".join(
                        "%.1f/%.1f"
                        % (100 * r["jit_cpu_share"]["server"], 100 * r["jit_cpu_share"]["client"])
                        for r in runs[s]
                    )
                )
            foreign = ""
            if runs[s] and all(contention(r) for r in runs[s]):
                foreign = "; other processes' CPU while measured, of a core: %s" % "; ".join(
                    contention(r) for r in runs[s]
                )
            lines.append(
                "- end-to-end %s, %s: QPS %s; p50/p90/p99 µs %s%s%s"
                % (
                    key,
                    s,
                    ", ".join(str(r["qps"]) for r in runs[s]),
                    "; ".join("%d/%d/%d" % (r["p50"], r["p90"], r["p99"]) for r in runs[s]),
                    jit,
                    foreign,
                )
            )
    for s, runs in (results["server"] or {}).items():
        if runs:
            jit = ""
            if all(isinstance(r.get("jit_cpu_share"), dict) for r in runs):
                jit = "; JIT compiler threads' share of the server's core while measured: %s" % (
                    ", ".join("%.1f%%" % (100 * r["jit_cpu_share"]["server"]) for r in runs)
                )
            foreign = ""
            if all(contention(r) for r in runs):
                foreign = "; other processes' CPU while measured, of a core: %s" % "; ".join(
                    contention(r) for r in runs
                )
            lines.append(
                "- server-only, %s: req/s %s (requests done %s, all 2xx with a response "
                "frame)%s%s"
                % (
                    s,
                    ", ".join("%.0f" % r["req_per_s"] for r in runs),
                    ", ".join(str(r["done"]) for r in runs),
                    jit,
                    foreign,
                )
            )
    for key, runs in (results.get("client") or {}).items():
        for s, rs in runs.items():
            if rs:
                lines.append(
                    "- client-only %s, %s: calls/s %s; other processes' CPU while measured, of a "
                    "core: %s"
                    % (
                        key,
                        s,
                        ", ".join("%.0f" % r["calls_per_s"] for r in rs),
                        "; ".join(contention(r) or "?" for r in rs),
                    )
                )
    for key, runs in list((results.get("streaming") or {}).items()) + list(
        (results.get("large") or {}).items()
    ):
        for s in runs:
            if runs.get(s):
                lines.append(
                    "- %s, %s: calls/s %s; p50/p99 µs %s; other processes' CPU, of a core: %s"
                    % (
                        key,
                        s,
                        ", ".join(str(r["qps"]) for r in runs[s]),
                        "; ".join("%d/%d" % (r["p50"], r["p99"]) for r in runs[s]),
                        "; ".join(contention(r) or "?" for r in runs[s]),
                    )
                )
    for s in dict.fromkeys(
        list(results.get("alloc") or {}) + list(results.get("client_alloc") or {})
    ):
        for r in (results.get("alloc") or {}).get(s, []):
            lines.append(
                "- server allocation, %s: %.0f bytes per call (heap in use %d -> %d bytes)"
                % (s, r["bytes_per_call"], r["heap_used"][0], r["heap_used"][1])
            )
        for r in (results.get("client_alloc") or {}).get(s, []):
            lines.append(
                "- client allocation, %s: %.0f bytes per call (calls, heap at exit: %s)"
                % (s, r["bytes_per_call"], "; ".join("%d, %d" % tuple(p) for p in r["points"]))
            )
    for (bench, size), systems in sorted(flow_results(results).items()):
        for s in SYSTEMS:
            r = systems.get(s)
            if r:
                lines.append(
                    "- %s size=%s, %s: %s ops/s (JMH error %s), %s B/op"
                    % (
                        bench,
                        size,
                        s,
                        fmt(r["ns_per_op"], 1),
                        "n/a" if r["ns_error"] is None else fmt(r["ns_error"], 1),
                        fmt(r["bytes_per_op"]),
                    )
                )
    conns = results.get("conns") or {}
    for s in conns.get("idle") or {}:
        for r in conns["idle"][s]:
            lines.append(
                "- idle connections, %s: %d held (%d established at the server, opened in %.1f s); "
                "live heap %.1f -> %.1f MiB, RSS %.1f -> %.1f MiB; per connection %.0f B heap, "
                "%.0f B RSS"
                % (
                    s,
                    r["connections"],
                    r["established"],
                    r["open_seconds"],
                    r["heap"][0] / MIB,
                    r["heap"][1] / MIB,
                    r["rss"][0] / MIB,
                    r["rss"][1] / MIB,
                    r["heap_per_connection"],
                    r["rss_per_connection"],
                )
            )
    for kind, what in (("new", "new connections"), ("new_settled", "new connections, settled")):
        for s in conns.get(kind) or {}:
            for r in conns[kind][s]:
                lines.append(new_conns_run_line(what, s, r))
    echo = results.get("echo") or {}
    for key, by in echo.items():
        runs = by.get(RAW_ECHO.name, [])
        if key == "new connections":
            what = "new connections, raw echo limit"
            lines += [new_conns_run_line(what, RAW_ECHO.name, r) for r in runs]
        elif key == BANDWIDTH_KEY and runs:
            line = (
                "- loopback one-way bandwidth, raw echo limit (1 MiB writes): MiB/s "
                + ", ".join(fmt(r["bytes_per_second"] / MIB) for r in runs)
            )
            if any(contention(r) for r in runs):  # results from before it was measured lack it
                line += "; other processes' CPU while measured, of a core: " + "; ".join(
                    contention(r) or "?" for r in runs
                )
            lines.append(line)
        elif runs:
            lines.append(
                "- %s, raw echo limit (%d B): round trips/s %s; p50/p99 µs %s; other processes' "
                "CPU, of a core: %s"
                % (
                    key,
                    runs[0]["client_payload"],
                    ", ".join(str(r["qps"]) for r in runs),
                    "; ".join("%d/%d" % (r["p50"], r["p99"]) for r in runs),
                    "; ".join(contention(r) or "?" for r in runs),
                )
            )
    return lines


def commands(results):
    out = []
    for name, cmds in results["commands"].items():
        if isinstance(cmds, str):
            out.append("# " + name)
            out.append(cmds)
        elif isinstance(cmds, dict):
            for s in cmds:
                out.append("# %s, %s" % (name, s))
                out.extend(cmds[s])
        out.append("")
    return out


# The hand-kept record of what each optimisation bought: a history, which names classes that have
# since gone (the docs check skips it), so the page links to it instead of repeating it.
PERFORMANCE_LOG = [
    "## What each change bought",
    "",
    "Kept by hand in [performance-log.md](performance-log.md), newest first: each entry names its "
    "command, and its figures are from runs of it on this machine just before and just after the "
    "change. It is a history, so it names classes and options as they were then.",
    "",
]


TARGETS_HEAD = ("| Figure | Target | Ratio | |", "|---|---|---:|---|")


def table(intro, head, rows):
    """A paragraph, then a table of `head` (its two lines) and `rows`; nothing without rows."""
    return [intro, "", *head, *rows, ""] if rows else []


def main():
    results_path, out_md = sys.argv[1], sys.argv[2]
    with open(results_path) as f:
        results = json.load(f)
    os.makedirs(os.path.dirname(os.path.abspath(out_md)), exist_ok=True)
    png_name = os.path.splitext(os.path.basename(out_md))[0] + ".png"
    has_chart = chart(results, os.path.join(os.path.dirname(out_md), png_name))
    m = results["machine"]
    reused = results.get("reused", {})
    st = reused.get("e2e", {}).get("settings") or results["settings"]
    st_server = reused.get("server", {}).get("settings") or results["settings"]
    st_jmh = reused.get("jmh", {}).get("settings") or results["settings"]
    st_tls = reused.get("tls", {}).get("settings") or results["settings"]
    loads = [results["load_start"]] + results["load_samples"] + [results["load_end"]]
    loads += results.get("earlier_loads", [])
    peak = max(load[0] for load in loads)
    noisy = peak > 0.5 * m["nproc"]
    jmh = jmh_rows(results)
    otel = otel_rows(results)
    lines = [
        "# Benchmarks: Tern beside grpc-java 1.79",
        "",
        "Generated by `%s` on %s (finished %s). Re-run it to refresh this page; "
        "`bin/bench-compare --quick` is a one-to-two-minute smoke run, `--help` lists the "
        "duration, repeat and JMH flags."
        % (
            " ".join(["bin/bench-compare"] + results["argv"]),
            results["started"],
            results["finished"],
        ),
    ]
    names = {
        "e2e": "end-to-end",
        "streaming": "streaming",
        "large": "large-message",
        "server": "server-only",
        "fanin": "many-connections",
        "client": "client-only",
        "startup": "start-up",
        "alloc": "allocation",
        "conns": "connections",
        "echo": "raw echo",
        "tls": "TLS",
        "flow": "one-way streaming and large-unary",
        "jmh": "JMH",
    }
    for part, origin in reused.items():
        lines.append(
            "The %s figures were kept from the earlier run `%s` started %s (this run re-ran "
            "only the other parts, with `--reuse`)."
            % (names[part], " ".join(["bin/bench-compare"] + origin["argv"]), origin["started"])
        )
    lines += [
        "",
        "**Ratio** is Tern / grpc-java. For QPS and req/s higher is better (ratio > 1 favours "
        "Tern); for latency, ns/op and B/op lower is better (ratio < 1 favours Tern). *Better* "
        "names the side that wins by more than %d%%; closer than that is called even, because "
        "run-to-run noise on this machine is at least that large." % round(EVEN * 100),
        "",
        "End-to-end figures are medians of %d run(s) per system of %d s each after %d s of "
        "warm-up, server-only figures medians of %d run(s) of %d s after %d s; the systems "
        "alternate run by run (ABBA...: in turn forwards, then backwards), each run in fresh "
        "JVMs, all on Netty NIO "
        "(`--transport=nio`, grpc-java's `netty_nio`; the native epoll and io_uring transports "
        "are not compared here)%s. "
        "JMH: %d fork(s), %d warm-up and %d measured 1 s iterations, `-prof gc`; the TLS "
        "part %s fork(s)."
        % (
            st["repeats"],
            st["duration"],
            st["warmup"],
            st_server["repeats"],
            st_server["duration"],
            st_server.get("server_warmup", st_server["warmup"]),
            ""
            if st.get("quick")
            else "; the large-message and connections parts run each system at least 3 times, "
            "and a large-message row that names its warm-up had that one instead",
            st_jmh["jmh_forks"],
            st_jmh["jmh_warmups"],
            st_jmh["jmh_iterations"],
            st_tls.get("tls_forks", st_tls["jmh_forks"]),
        ),
        "",
    ]
    foreign = [
        r.get("foreign_cpu")
        for part in ("e2e", "streaming", "large")
        for runs in (results.get(part) or {}).values()
        for system_runs in runs.values()
        for r in system_runs
    ] + [r.get("foreign_cpu") for runs in (results["server"] or {}).values() for r in runs]
    measured = [f for f in foreign if f is not None]
    if measured:
        contended = sum(1 for f in measured if f > 0.25)
        lines += [
            "> **Other work on the machine.** %s, and the CPU "
            "that processes other than its own client and server used while it was measured is "
            "listed with the run below: at most %d%% of a core in %d measured runs%s. The 1-minute "
            "load average (peak %.1f on %d cores) counts the run's own JVMs."
            % (
                "This smoke run (`--quick`) did not wait for a quiet machine"
                if st.get("quick")
                else "Each run waited for a quiet machine",
                round(100 * max(measured)),
                len(measured),
                ", %d of them contended (above 25%%) and marked" % contended if contended else "",
                peak,
                m["nproc"],
            ),
            "",
        ]
    elif noisy:
        lines += [
            "> **Load.** The 1-minute load average reached %.1f on %d cores during this run "
            "(start %.1f, end %.1f). A run's own client and server JVMs keep it above the core "
            "count, so this alone does not show that other work shared the machine; but runs of "
            "the same configuration spread by 20%% or more here, so compare the per-run figures "
            "below before trusting any single ratio."
            % (peak, m["nproc"], results["load_start"][0], results["load_end"][0]),
            "",
        ]
    lines += [
        "## Results",
        "",
        "| Figure | Unit | Tern | grpc-java | Ratio | Better |",
        "|---|---|---:|---:|---:|---|",
    ]
    lines += e2e_rows(results) + streaming_rows(results) + large_rows(results)
    lines += server_rows(results) + alloc_rows(results) + conns_rows(results)
    lines += tls_rows(results) + flow_rows(results) + jmh
    lines.append("")
    e2e_head, e2e_peers = e2e_peer_rows(results)
    lines += table(
        "End-to-end, every system with a client of its own: its qps client against its own "
        "server (the same load as the results table's end-to-end rows; medians). *Vert.x gRPC "
        "5.0.7* runs its callbacks on its event loops and has no executor to choose, so its "
        "*default* and *direct* rows run the same programs. *Tern / it* is Tern's QPS over each "
        "system's, beside issue 52's target against Vert.x: ahead on every row (beyond the "
        "page's %d%% noise band; within it, even)." % round(EVEN * 100),
        e2e_head,
        e2e_peers,
    )
    server_head, server_peers = server_peer_rows(results)
    lines += table(
        "Server-only, every server loaded the same way (pinned to CPU 0, the same h2load "
        "command on CPU 1, 4 connections x 100 streams of empty unary calls; medians), grpc-go's "
        "and tonic's servers (issue 34's native peers) and Vert.x gRPC 5.0.7's (issue 52; how "
        "each is built and pinned is under *How to read the parts*) beside the JVM systems. "
        "nghttpd answers with a static file of the same 5 bytes and does no gRPC: it is the "
        "machine's HTTP/2 ceiling for this load, not a peer. *Tern / it* is Tern's req/s over "
        "each server's, beside issue 34's target for it: at least 3x grpc-java, ahead of grpc-go "
        "(beyond the page's %d%% noise band; within it, even), and issue 52's, ahead of Vert.x; "
        "tonic's row shows the distance to it. *Tern, defaults* is the same qps server as a user "
        "writes it (`QpsServer --defaults`: the server's default executor instead of the "
        "benchmark's own ForkJoinPool, and two ordinary interceptors); issue 52's target is at "
        "least 0.8 of the tuned row, Tern / it at most 1.25. The rows over TLS (h2load with ALPN "
        "h2; OpenSSL through netty-tcnative, or the JDK's TLS in the *JDK* rows) are shares of "
        "nghttpd over TLS, and Tern / it is Tern over TLS with the same provider over each; "
        "issue 52's targets: at least 2.5x grpc-java with each provider and at least 0.8 of "
        "nghttpd." % round(EVEN * 100),
        server_head,
        server_peers,
    )
    client_head, clients = client_rows(results)
    lines += table(
        "Client-only (issue 52's fifth target): the clients against nghttpd's static gRPC answer "
        "(pinned to CPU 0; the client on CPU 1; 4 connections, or channels, x 100 calls in "
        "flight; medians), each client's calls/s as a share of h2load's against the same server, "
        "the machine's HTTP/2 client ceiling for this load. A call counts only if it ended with "
        "status OK. grpc-java's client is `GrpcJavaBalancedClient` on one address, set up as "
        "grpc-java's `AsyncClient` is (which always calls `UnaryCall`; nghttpd needs a method "
        "name with an extension to answer `application/grpc`). Target: Tern at least %s of "
        "h2load." % "{:g}".format(CLIENT_TARGET),
        client_head,
        clients,
    )
    startup_head, startup = startup_rows(results)
    lines += table(
        "Start-up (issue 52's seventh target): the time from launching a system's server to its "
        "first answered call (h2load polling the port every 5 ms, then calling), and from "
        "launching a first-call client (its public API's channel and generated blocking stub, "
        "one empty unary call to a Tern server already running) to its answer; medians of "
        "`--startup-runs` launches, unpinned. *With AppCDS*: the same launches with "
        "`-XX:SharedArchiveFile` of an archive the system's own training launch wrote with "
        "`-XX:ArchiveClassesAtExit` (both through `JAVA_TOOL_OPTIONS`, so Vert.x's launcher "
        "passes them on). This JDK has no CRaC.",
        startup_head,
        startup,
    )
    fanin_head, fanin = fanin_rows(results)
    lines += table(
        "Server-only with many connections of one stream each (issue 52's third target: the "
        "shape of a large fleet of clients): the same servers and the same request as the "
        "server-only table, h2load keeping the given number of connections open with one call "
        "at a time on each (`--fanin-connections`), pinned the same way; the server's resident "
        "memory is read at the end of the measured window. Target: Tern at least %s of "
        "nghttpd." % "{:g}".format(FANIN_TARGET),
        fanin_head,
        fanin,
    )
    lines += echo_section(results)
    lines += bandwidth_section(results)
    lines += table(
        "Issue 34's targets for Tern, from this run's figures above (the server-only targets "
        "are in the server-only table):",
        TARGETS_HEAD,
        issue34_targets(results),
    )
    lines += table(
        "Issue 18's targets for the connections part (ratios Tern / grpc-java from the table "
        "above; recorded, not tuned for):",
        TARGETS_HEAD,
        conns_targets(results),
    )
    if otel:
        lines += [
            "OpenTelemetry's cost (JMH `CallBenchmark` with `-p otel=true` against the same "
            "benchmark's `otel=false` rows above): each system against itself, its own module "
            "recording metrics and spans on server and channel, Tern's `tern-opentelemetry` and "
            "grpc-java's `grpc-opentelemetry`. The rows marked *OpenTelemetry on* above compare "
            "the two systems with it on.",
            "",
            "| Figure | Unit | Tern off | Tern on | Tern added | grpc-java off | grpc-java on "
            "| grpc-java added |",
            "|---|---|---:|---:|---:|---:|---:|---:|",
        ]
        lines += otel + [""]
    if has_chart:
        lines += ["## Chart", "", "![QPS and latency, Tern vs grpc-java](%s)" % png_name, ""]
    lines += ["## Every run", ""] + raw_runs(results) + [""]
    if results.get("errors"):
        lines += [
            "## Failures",
            "",
            "Measurements that failed (left out of the medians above):",
            "",
        ]
        for what, messages in results["errors"].items():
            # nghttp's timestamps aside, repeated failures are usually one failure.
            distinct = dict.fromkeys(
                re.sub(r"\[\s*[\d.]+\]\s*", "", " ".join(m.split())) for m in messages
            )
            for message in distinct:
                # One JMH run (its log has the rest), or a program that was not there at all.
                # The client-only part's check of nghttpd's answer stops the part as a whole.
                whole = what.startswith(("flow ", "tls ")) or what == "client-only"
                if whole or message.startswith(MISSING):
                    lines.append("- %s: %s" % (what, message[:600]))
                    continue
                lines.append(
                    "- %s (%d of %d runs): %s"
                    % (what, failures(results, what), repeats_of(results, what), message[:600])
                )
        lines.append("")
    lines += (
        [
            "## Machine",
            "",
            "- CPU: %s, `nproc` = %d" % (m["cpu"], m["nproc"]),
            "- Memory: %s" % memory(m["memory"]),
            "- Kernel: %s" % m["kernel"],
            "- JDK: %s" % " / ".join(m["java"]),
            "- h2load: %s" % m["h2load"],
        ]
        + (["- nghttpd: %s" % m["nghttpd"]] if "nghttpd" in m else [])
        + [
            "- Load average (1/5/15 min) at start %s, between parts %s, at end %s"
            % (results["load_start"], results["load_samples"], results["load_end"]),
            "",
            "## Commands",
            "",
            "`$TERN_CP` is `tern-benchmarks/target/classes:tern-benchmarks/target/lib/*` (built "
            "by `mvn -B -q -pl tern-benchmarks -am package -DskipTests`), `$GRPC_JAVA_CP` is the "
            "output of `tern-benchmarks/scripts/grpc-java-classpath.sh` (io.grpc:grpc-benchmarks "
            "1.79.0 and its own dependencies only: no grpc-census or OpenCensus implementation, "
            "which would make grpc-java record stats on every call). `$PROBE_CP` is "
            "`tern-benchmarks/target/classes` (for `HeapUsedProbe` on grpc-java's class path). "
            "`$PEERS_DIR` is the folder `tern-benchmarks/scripts/build-peers.sh` prints "
            "(`~/.cache/tern-tools/bench-peers/bin`), holding the native peers and Vert.x's "
            "`vertx-bench` it built. "
            "`$PORT` is a loopback port "
            "the script got by binding port 0, `$WORK` the work directory "
            "(`tern-benchmarks/target/bench`). Servers start fresh for every run and are killed "
            "after it.",
            "",
            "```sh",
        ]
        + commands(results)
        + [
            "```",
            "",
            "Round robin over three servers, a separate script whose figures are not on this page: "
            "`tern-benchmarks/scripts/rr-compare.sh [--warmup=10] [--duration=10] [--repeats=3]` "
            "starts three of Tern's qps servers on 127.0.0.2, 127.0.0.3 and 127.0.0.4 (ports chosen"
            " by the system) once, then runs Tern's `QpsClient --target=ipv4:... "
            "--lb_policy=round_robin` and `GrpcJavaBalancedClient` (grpc-java 1.79 channels given "
            "the same three addresses by a static name resolver, `round_robin`, the same closed "
            "loops and measuring code) alternately against them, so only the client side differs. A"
            " run counts only if every server answered calls; it prints the QPS, p50 and p99 "
            "medians per system and Tern/grpc-java.",
            "",
            "## grpc-java code on Tern: the bridge (issue 38)",
            "",
            "Not on this page: `bin/bench-compare --bridge` runs issue 38's comparison alone "
            "and prints its tables (the last run's figures are in "
            "[grpc-java-bridge.md](grpc-java-bridge.md#performance)). One qps client and server "
            "written against grpc-java's "
            "`io.grpc` API only (`ProviderQpsClient` and `ProviderQpsServer` in tern-benchmarks; "
            "grpc-java's own `AsyncClient` and `AsyncServer` build their channels and server with"
            " `NettyChannelBuilder` and `NettyServerBuilder` directly, past the provider API, so "
            "they cannot be moved onto the bridge) run as the same program on two class paths: "
            "grpc-java 1.79 with grpc-netty-shaded, and the same class path with `tern-grpc-java`"
            " in place of grpc-netty-shaded (the bridge). Each program's first line names the "
            "channel or server class the provider gave. Tern's own `QpsClient` and `QpsServer` "
            "run beside them at the same settings, on epoll as the bridge's default transport is."
            " Unary calls with 4 channels x 10 and x 100 outstanding, and ping-pong on one bidi "
            "stream (1 x 1), empty messages, default executors; the three systems take turns and "
            "each run waits for a quiet machine, as the page's runs do. Heap per call: each "
            "client and server counts the bytes its JVM's threads allocate over its measured "
            "window (the JVM's per-thread counters) over the calls in it, client and server apart"
            " (Tern's own tools when given `QpsClient --heap_per_call` and `QpsServer "
            "--warmup_duration --duration`). The run prints bridge / grpc-java QPS and heap per "
            "call (client + server) beside issue 38's targets (at least 1.5x, at most 0.7x), and "
            "bridge / Tern QPS and heap per call (target: within 15% on both), and writes them "
            "to `tern-"
            "benchmarks/target/bench/bridge.md` and "
            "`tern-benchmarks/target/bench/bridge.json`. The default settings (35 s "
            "warm-up, 10 s measured, 3 repeats: 27 runs of about 50 s) take about 25 minutes on a"
            " quiet machine; `--quick` is a smoke run of about 90 s.",
            "",
        ]
    )
    lines += [
        "## How to read the parts",
        "",
        "- **End-to-end**: each system's own qps client against its own qps server (Tern's "
        "`QpsClient`/`QpsServer`, grpc-java's `AsyncClient`/`AsyncServer`), unary calls with "
        "empty payloads, 4 channels with 10 or 100 calls outstanding on each, with the default "
        "executor and with `--directexecutor` on both client and server. Client and server share "
        "the 2 cores, so a system that burns less CPU on one side leaves more for the other.",
        "- **Server-only**: the server pinned to CPU 0 with `taskset`, `h2load` pinned to CPU 1 "
        "posting the 5-byte gRPC frame of an empty `SimpleRequest` to "
        "`/grpc.testing.BenchmarkService/UnaryCall` over 4 connections x 100 concurrent streams. "
        "A run counts only if every request finished with a 2xx and the responses carried at "
        "least 5 DATA bytes each (a gRPC error is a 200 with trailers only and no DATA, so 2xx "
        "alone would not show success). h2load sends `content-length: 5` with the body."
        + (
            " `nghttpd` (nghttp2's C server: plaintext, one worker thread) is loaded and checked "
            "the same way; it answers every request with a static file holding the same 5 bytes, "
            "so it does HTTP/2 and no gRPC: the ceiling of this machine and load generator, "
            "against which each server's req/s is given as a ratio."
            if "nghttpd" in (results["server"] or {})
            else ""
        ),
        CLIENT_ONLY_NOTE,
        "- **Warm-up**: on this machine each JVM's C1/C2 compiler threads take about a third of "
        "a core for the first 25-40 s of load (per-thread CPU from `/proc`), so a shorter "
        "warm-up measures compilation as much as serving. The per-run figures below give the "
        "compiler threads' CPU during each measured window (as a share of one core); near 0 "
        "means the window saw the steady state.",
        "- **JMH**: `CallBenchmark` (a blocking unary call with 1 KiB each way, and one 1 KiB "
        "ping-pong on an open bidi stream; in-process and Netty over loopback; direct executor "
        "or not) for both systems in the same JVM. B/op is "
        "`gc.alloc.rate.norm` from `-prof gc`: bytes allocated per operation by client and "
        "server together. ± is JMH's 99.9% confidence interval half-width over the measured "
        "iterations; where it is larger than the difference, the ratio means little.",
    ]
    if results.get("tls"):
        lines.append(
            "- **TLS**: `TlsBenchmark` (JMH, ops/s): a new channel with one 1 KiB call (one "
            "handshake; one at a time and from four threads at once), and 1 KiB calls on one TLS "
            "connection, on the JDK's TLS and on OpenSSL. Each system's key exchange is its "
            "default: on OpenSSL Tern's Netty 4.2 offers the hybrid post-quantum X25519MLKEM768 "
            "first, grpc-java's shaded Netty X25519, so Tern's handshakes do more computation. "
            "The rows *both on X25519* rerun the OpenSSL handshakes with both systems offering "
            "X25519 only (`-p groups=x25519`): the same key exchange on both sides."
        )
    if results.get("flow"):
        st_flow = reused.get("flow", {}).get("settings") or results["settings"]
        lines += [
            "- **One-way streaming and large unary calls** (JMH `OneWayStreamBenchmark` and "
            "`LargeUnaryBenchmark`, %d fork(s), %d warm-up and %d measured 1 s iterations, `-prof "
            "gc`): each system's own server and channel in one JVM over Netty on loopback, on each "
            "system's default Netty transport (native epoll on Linux, for both; the qps parts above"
            " use NIO), the same byte-array service on both. *One-way*: one call per iteration on "
            "which messages flow one way only: client to server on a client-streaming call, server "
            "to client on a bidi call whose client asks for each batch of %s messages in one 8-byte"
            " message. The sender sends only while its call `isReady()` and otherwise waits for the"
            " call's on-ready handler (flow control, not local buffering, paces it); an operation "
            "is one message counted by the receiving handler, each batch ending only when the "
            "receiver has counted all of it; at the end of the iteration the client half-closes and"
            " the call must end normally with every message counted. Default settings of both "
            "systems otherwise (1 MiB flow-control windows, default executors). *Large unary*: a "
            "blocking unary call whose server echoes the request, 1 MiB and 16 MiB each way, server"
            " and channel of both systems accepting messages up to 17 MiB (both default to 4 MiB, "
            "and a 16 MiB message then fails on both with `RESOURCE_EXHAUSTED`); MiB/s counts the "
            "request and the response. *Heap per payload byte* is `gc.alloc.rate.norm` (client and "
            "server together) over the 2 x size bytes a call delivers: the echo itself needs one "
            "array per delivered message, 1.00; the rest is copies and bookkeeping on the heap "
            "(copies between pooled direct buffers do not show). Both systems' byte-array "
            "marshallers read a message into one exact-size array and grpc-java's hands out "
            "`Drainable` streams, as protobuf's marshallers do, so neither system pays for a "
            "marshaller's copies."
            % (
                st_flow["jmh_forks"],
                st_flow["jmh_warmups"],
                st_flow["jmh_iterations"],
                "{:,}".format(8192),
            ),
        ]
    if otel:
        lines += [
            "- **OpenTelemetry** (`otel=true`, a second JMH run of `%s` with the same settings): "
            "metrics and tracing on both server and channel, each system through its own module "
            "(`dev.tern.opentelemetry.GrpcOpenTelemetry`; grpc-java's "
            "`io.grpc.opentelemetry.GrpcOpenTelemetry`, tracing turned on with "
            "`InternalGrpcOpenTelemetry.enableTracing`), both into the same kind of SDK: the "
            "nine default metrics aggregated cumulatively by an in-memory reader that is never "
            "collected during the run, every call traced (always-on sampler, W3C `traceparent`) "
            "and its ended spans handed one by one to an exporter that drops them. So the figures "
            "are the cost of recording, not of exporting. The benchmark's methods are marked as "
            "generated ones are, so `grpc.method` names them on both."
            % st_jmh.get("jmh_otel_filter", "CallBenchmark.unaryCall1024"),
        ]
    conns = results.get("conns") or {}
    if conns.get("idle") or conns.get("new"):
        lines.append(
            "- **Connections**: each system's own qps server (default collector and heap, "
            "pinned to CPU 0, which makes the JVM pick the Serial collector for both; for the "
            "idle figures run by `HeapUsedProbe`) and `ConnectionsClient` on CPU 1, which opens "
            "every connection as a channel of its own on the system's own channel builder "
            "(Tern's or grpc-java 1.79's, all on one shared NIO event loop group) and makes one "
            "empty unary call on it, the client ends bound to %s in turn. Idle: after %d warming "
            "connections (made and closed) the server's live heap (heap in use after two "
            "`System.gc()` calls, asked through the probe's port) and RSS (`VmRSS`) are read, "
            "then again %d s after the client reports all its connections up; per connection is "
            "the growth over the number held (the server's established sockets on its port are "
            "counted too). New: as many unmeasured connections and then the timed ones, one "
            "after another, each timed from building the channel to the end of its first call "
            "and closed before the next (closing counts in the rate, not in the latency). The "
            "settled rows do the same after %s warm-up connections: after as many as are timed, "
            "both JVMs are still compiling the connection path (the JIT compiler threads took a "
            "third of the machine's CPU in a profile of that phase), so the first rows measure "
            "the JIT's progress as much as connection set-up. Tern's "
            "channel builder has no option for a local address, so Tern's channels get theirs "
            "from a socket channel class that binds before connecting (`channelType`); "
            "grpc-java's use its builder's `localSocketPicker`."
            % (
                conns["sources"],
                conns["server_warmup"],
                conns["settle_s"],
                "{:,}".format(conns.get("settled_warmup") or 0),
            )
        )
    lines += [
        "- **Native peers** (the server-only part, issue 34), both run exactly as the Java servers "
        "are (taskset CPU 0, the same h2load command) and both answer `UnaryCall` as the qps "
        "servers do, with a payload of `response_size` zero bytes. *grpc-go*: grpc-go 1.85.0's own "
        "benchmark service (`benchmark.StartServer` of `google.golang.org/grpc/benchmark`, type "
        "`protobuf`, with the 128 KiB read and write buffers grpc-go's own benchmark server and "
        "qps worker give it; grpc-go's defaults otherwise), started on 127.0.0.1 by a small "
        "program of ours, `tern-benchmarks/peers/grpc-go` (its `go.mod` requires "
        "`google.golang.org/grpc v1.85.0`, its `go.sum` pins every module); Go's scheduler takes "
        "its thread count (GOMAXPROCS) from the CPUs the process may use, so one on CPU 0. "
        "*tonic*: a server of ours on tonic 0.14.9 (`tern-benchmarks/peers/tonic`: tonic, "
        "tonic-prost, prost 0.14.6, tokio 1.54.1 and their build tools pinned exactly in "
        "`Cargo.toml`, every other crate by `Cargo.lock`), its code generated at build time by "
        "tonic-prost-build from tern-interop's `benchmark_service.proto` with the protoc the "
        "`protoc-bin-vendored` crate ships; tokio's multi-threaded runtime with its default worker "
        "count (also one per usable CPU; `--worker_threads=N` sets it), tonic's default server "
        "settings, TCP_NODELAY as tonic's own `serve` sets it. "
        "`tern-benchmarks/scripts/build-peers.sh` builds both (`go build -trimpath` through the Go "
        "module proxy, `cargo build --release --locked` from crates.io) into "
        "`~/.cache/tern-tools/bench-peers` (`TERN_TOOLS_DIR` moves it), again only when a source, "
        "a pin or the compiler changed; `bin/bench-compare` runs it first. A peer that cannot be "
        "built is left out with a line saying why, and its row reads *missing*.",
        "- **Vert.x gRPC 5.0.7** (issue 52; the server-only and end-to-end parts): a server and "
        "a qps client of ours, `tern-benchmarks/peers/vertx` (its own Maven project, apart from "
        "Tern's class path because Vert.x 5 brings Netty 4.2.9: `vertx-grpc-server` and "
        "`vertx-grpc-client` 5.0.7 under the `vertx-stack-depchain` 5.0.7 BOM, protobuf-java "
        "4.36.2 and its messages generated from tern-interop's `messages.proto`, every version "
        "pinned in its `pom.xml`). The server is written as Vert.x's documentation shows: "
        "`GrpcServer.server(vertx)` with one `callHandler` per method (`UnaryCall` and "
        "`StreamingCall`, answering with `response_size` zero bytes as the qps servers do), "
        "mounted as the request handler of a Vert.x `HttpServer` (plaintext HTTP/2 with prior "
        "knowledge), on one event loop (`VertxOptions.setEventLoopPoolSize(1)`: it is pinned to "
        "one CPU, and Vert.x runs each handler on the event loop of its connection), NIO as the "
        "other JVM rows, Vert.x's defaults otherwise. The client (`GrpcClient`, Vert.x's default "
        "event loops, two per core) takes the qps clients' flags and prints their summary: one "
        "`GrpcClient` (one HTTP/2 connection) per channel on an event loop of its own, each "
        "keeping its calls in flight in closed loops, latencies in an HdrHistogram. "
        "`tern-benchmarks/scripts/build-peers.sh` builds it with `mvn package` (dependencies "
        "from Maven Central into the local Maven repository, never installed) into "
        "`~/.cache/tern-tools/bench-peers` and writes the launcher `vertx-bench server|client "
        "FLAGS`, again only when its sources, pom, `java` or `mvn` changed.",
        "- **Raw echo limit** (issue 34): `raw-echo` (`tern-benchmarks/peers/echo/raw-echo.c`, "
        "`gcc -O2`, built by the same script) over blocking loopback sockets with TCP_NODELAY, one "
        "client thread and one server thread, no protocol: the server writes back whatever it "
        "reads. Ping-pong: the client sends a message and reads it back, %d s unmeasured and then "
        "the page's duration timed, 1 KiB, and 1 byte for the 0 B row (a round trip needs at least "
        "a byte; an empty gRPC message is still a 5-byte frame in HTTP/2 frames), unpinned as the "
        "streaming part runs. New connections: connect, a 1-byte round trip, close, one after "
        "another (as many unmeasured first as timed), server on CPU 0 and client on CPU 1 with the "
        "client ends spread over the same 10 addresses, timed as `ConnectionsClient` times (from "
        "making the socket to the end of the round trip; the rate counts the closing too). Each "
        "wake-up-bound row is divided by the limit of its own shape from the same run; the "
        "ping-pong rows marked *direct* are the fastest configuration of `docs/blocking.md` "
        "(`--directexecutor` on the qps server and client: every callback runs where its bytes "
        "arrived) and share the default rows' limit." % RAW_ECHO.warmup,
        "- grpc-java's `AsyncServer` listens on all interfaces of the given port (its own "
        "behaviour); the clients and h2load only ever connect to 127.0.0.1.",
        "- Unless `--directexecutor`, both qps servers and clients run application callbacks on "
        "a `ForkJoinPool` with one thread per core in FIFO mode: grpc-java's tools install that "
        "executor, and Tern's do the same so the two compare like for like.",
        "",
    ]
    lines += PERFORMANCE_LOG
    with open(out_md, "w") as f:
        f.write("\n".join(lines))
    print(
        "wrote %s%s" % (out_md, " and " + png_name if has_chart else " (no chart: no matplotlib)")
    )


if __name__ == "__main__":
    main()
