"""Tests of bin/bench-compare's scripts that run no benchmark: the page bench_report.py writes from
a small results.json, the systems' commands, --systems, and --reuse of an older results.json.

Run: python3 -m unittest discover -s tern-benchmarks/scripts (standard library only; the page is
written without its chart where matplotlib is missing).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import unittest
import unittest.mock

# Beside this file: on sys.path when run as the docstring says, or as a script.
import bench_compare
import bench_systems

SCRIPTS = os.path.dirname(os.path.abspath(__file__))


def runs(**figures):
    """One system's list of runs: a single run with these figures."""
    return [dict(figures)]


def e2e_run(qps, p50):
    return {"qps": qps, "p50": p50, "p90": 2 * p50, "p99": 4 * p50, "client_payload": 0}


def jmh_row(benchmark, system, score, **params):
    params["system"] = system
    return {
        "benchmark": benchmark,
        "params": params,
        "ns_per_op": score,
        "ns_error": None,
        "bytes_per_op": 100.0,
    }


def conns_idle(heap_per_connection, rss_per_connection):
    return {
        "connections": 1000,
        "established": 1000,
        "open_seconds": 1.0,
        "heap": [0, 1000 * heap_per_connection],
        "rss": [0, 1000 * rss_per_connection],
        "heap_per_connection": heap_per_connection,
        "rss_per_connection": rss_per_connection,
    }


def conns_new(per_second):
    return {
        "connections": 100,
        "p50": 500,
        "p90": 600,
        "p99": 900,
        "max": 1000,
        "per_second": per_second,
    }


def results_fixture():
    """A results.json as bench_compare.main writes it, every part with round figures: Tern at
    twice grpc-java's throughput and half its memory, the native peers in the server-only part."""
    ping = "ping-pong 0 B 1x1"
    return {
        "version": bench_compare.RESULTS_VERSION,
        "started": "2026-12-01T00:00:00+00:00",
        "finished": "2026-12-01T01:00:00+00:00",
        "argv": ["--repeats=1"],
        "systems": ["tern", "tern-defaults", "grpc-java", "vertx", "grpc-go", "tonic", "nghttpd"],
        "labels": {s.name: s.label for s in bench_systems.SYSTEMS.values()},
        "machine": {
            "cpu": "test CPU",
            "nproc": 2,
            "memory": "2097152 kB",
            "kernel": "test",
            "java": ["17"],
            "h2load": "test",
        },
        "load_start": [0.1, 0.1, 0.1],
        "load_samples": [],
        "load_end": [0.1, 0.1, 0.1],
        "settings": {
            "duration": 10,
            "warmup": 5,
            "repeats": 1,
            "server_warmup": 5,
            "jmh_forks": 1,
            "tls_forks": 1,
            "jmh_warmups": 1,
            "jmh_iterations": 1,
            "quick": False,
        },
        "e2e": {
            "4x10 default": {
                "tern": [e2e_run(200, 100)],
                "grpc-java": [e2e_run(100, 200)],
                "vertx": [e2e_run(160, 125)],
            },
            "4x100 default": {
                "tern": [e2e_run(400, 1000)],
                "grpc-java": [e2e_run(100, 4000)],
                "vertx": [],
            },
        },
        "streaming": {
            ping + " direct": {"tern": [e2e_run(6000, 60)], "grpc-java": [e2e_run(3000, 120)]}
        },
        "large": {},
        "server": {
            "tern": runs(req_per_s=400000.0, done=1),
            "tern-defaults": runs(req_per_s=320000.0, done=1),
            "grpc-java": runs(req_per_s=100000.0, done=1),
            "vertx": runs(req_per_s=250000.0, done=1),
            "grpc-go": runs(req_per_s=200000.0, done=1),
            "tonic": runs(req_per_s=500000.0, done=1),
            "nghttpd": runs(req_per_s=1000000.0, done=1),
            "tern-tls": runs(req_per_s=300000.0, done=1),
            "grpc-java-tls": runs(req_per_s=100000.0, done=1),
            "nghttpd-tls": runs(req_per_s=500000.0, done=1),
        },
        "startup": {
            "tern": {"server": [0.5], "server_cds": [0.25], "client": [0.4], "client_cds": [0.2]},
            "grpc-java": {"server": [1.0], "server_cds": [0.5], "client": [0.6], "client_cds": []},
            "vertx": {"server": [0.75], "server_cds": [0.5], "client": [], "client_cds": []},
        },
        "fanin": {
            "1000 x 1": {
                "tern": runs(req_per_s=150000.0, server_rss=200 * 1048576),
                "grpc-java": runs(req_per_s=50000.0, server_rss=400 * 1048576),
                "nghttpd": runs(req_per_s=200000.0, server_rss=20 * 1048576),
            }
        },
        "client": {
            "4 x 100": {
                "h2load": runs(calls_per_s=500000.0),
                "tern": runs(calls_per_s=350000.0),
                "grpc-java": runs(calls_per_s=100000.0),
            }
        },
        "alloc": {
            "tern": runs(bytes_per_call=1000.0, heap_used=[0, 1]),
            "grpc-java": runs(bytes_per_call=4000.0, heap_used=[0, 1]),
        },
        "client_alloc": {},
        "conns": {
            "idle": {"tern": [conns_idle(4000, 10000)], "grpc-java": [conns_idle(10000, 20000)]},
            "new": {"tern": [conns_new(1500)], "grpc-java": [conns_new(1000)]},
            "sources": "127.0.0.2..127.0.0.11",
            "server_warmup": 100,
            "settle_s": 5,
            "settled_warmup": 0,
        },
        "echo": {
            ping: {"raw-echo": [e2e_run(10000, 50)]},
            "new connections": {"raw-echo": [conns_new(3000)]},
        },
        "tls": [
            jmh_row("TlsBenchmark.handshakeAndCall", "tern", 1300.0, provider="jdk"),
            jmh_row("TlsBenchmark.handshakeAndCall", "grpc-java", 1000.0, provider="jdk"),
        ],
        "flow": [],
        "jmh": [
            jmh_row(
                "CallBenchmark.streamingPingPong1024", s, ns, transport="inprocess", direct="true"
            )
            for s, ns in (("tern", 900.0), ("grpc-java", 1000.0))
        ],
        "commands": {"e2e 4x10 default": {"tern": ["java -cp $TERN_CP QpsServer"]}},
        "errors": {"end-to-end 4x100 default, vertx": [bench_systems.MISSING + "no vertx-bench"]},
    }


def render(results, performance_log=None):
    """The page bench_report.py writes from `results`, run as bench_compare runs it, with
    `performance_log` (text) as the performance-log.md beside the page if given."""
    with tempfile.TemporaryDirectory() as work:
        results_path = os.path.join(work, "results.json")
        out_md = os.path.join(work, "benchmarks.md")
        if performance_log is not None:
            with open(os.path.join(work, "performance-log.md"), "w") as f:
                f.write(performance_log)
        with open(results_path, "w") as f:
            json.dump(results, f)
        subprocess.run(
            [sys.executable, os.path.join(SCRIPTS, "bench_report.py"), results_path, out_md],
            check=True,
            capture_output=True,
        )
        with open(out_md) as f:
            return f.read()


def table_rows(page, first_cell):
    """The cells of every table row whose first cell is `first_cell`."""
    rows = []
    for line in page.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_cell:
            rows.append(cells)
    return rows


def table_row(page, first_cell):
    """The cells of the table row whose first cell is `first_cell`."""
    for line in page.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_cell:
            return cells
    raise AssertionError("no row %r in the page" % first_cell)


def bandwidth_row(page, first_cell):
    """The cells of the large-messages-against-the-machine table's row named `first_cell` (the
    results table may have a row of the same name)."""
    rows = [r for r in table_rows(page, first_cell) if len(r) == 9]
    if len(rows) != 1:
        raise AssertionError("not one bandwidth row %r in the page: %r" % (first_cell, rows))
    return rows[0]


class PageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.page = render(results_fixture())

    def test_results_table_has_tern_and_grpc_java_columns_only(self):
        self.assertIn("| Figure | Unit | Tern | grpc-java | Ratio | Better |\n", self.page)
        self.assertEqual(
            table_row(self.page, "end-to-end 4x10 default: QPS"),
            ["end-to-end 4x10 default: QPS", "calls/s (higher is better)", "200", "100"]
            + ["2.00", "**Tern**"],
        )

    def test_page_has_no_codec_system(self):
        for gone in ("codec", "tern-engine", "Tern (engine)", "engine /", "tern.http2.engine"):
            self.assertNotIn(gone, self.page)

    def test_page_links_the_performance_log_instead_of_copying_it(self):
        entry = "- **An old change** (`SomeClassSinceDeleted`): 1,000 -> 900 B per call."
        page = render(results_fixture(), "## What each change bought\n\n" + entry + "\n")
        self.assertNotIn(entry, page)
        self.assertIn("## What each change bought", page)
        self.assertIn("[performance-log.md](performance-log.md)", page)

    def test_server_only_table_judges_tern_against_each_server(self):
        self.assertIn(
            "| Server | req/s | / nghttpd | Tern / it | Target for Tern / it | |",
            self.page,
        )
        self.assertEqual(table_row(self.page, "Tern"), ["Tern", "400,000", "0.40", "", "", ""])
        self.assertEqual(
            table_row(self.page, "Tern, defaults (default executor, two interceptors)")[1:],
            ["320,000", "0.32", "1.25", "<= 1.25", "met"],
        )
        self.assertEqual(
            table_row(self.page, "grpc-java")[1:],
            ["100,000", "0.10", "4.00", ">= 3", "met"],
        )
        self.assertEqual(
            table_row(self.page, "grpc-go 1.85.0")[1:],
            ["200,000", "0.20", "2.00", "> 1 (ahead)", "met"],
        )
        self.assertEqual(table_row(self.page, "tonic 0.14.9")[3:5], ["0.80", "none: the distance"])
        self.assertEqual(
            table_row(self.page, "nghttpd (static file)")[3:5], ["0.40", "none: the ceiling"]
        )

    def test_server_only_table_judges_tls_rows_against_tern_and_nghttpd_over_tls(self):
        self.assertEqual(
            table_row(self.page, "Tern, TLS (OpenSSL)")[1:], ["300,000", "0.60", "", "", ""]
        )
        self.assertEqual(
            table_row(self.page, "grpc-java, TLS (OpenSSL)")[1:],
            ["100,000", "0.20", "3.00", ">= 2.5", "met"],
        )
        self.assertEqual(
            table_row(self.page, "nghttpd (static file), TLS")[1:],
            ["500,000", "1.00", "0.60", ">= 0.8", "not met"],
        )

    def test_startup_table_has_each_system_beside_its_multiple_of_tern(self):
        self.assertIn(
            ["Tern", "500 ms", "250 ms", "400 ms", "200 ms"], table_rows(self.page, "Tern")
        )
        self.assertEqual(
            [r for r in table_rows(self.page, "grpc-java") if r[1].endswith("(2.00x Tern's)")][0],
            ["grpc-java", "1,000 ms (2.00x Tern's)", "500 ms (2.00x Tern's)",
             "600 ms (1.50x Tern's)", "failed"],
        )  # fmt: skip
        vertx = [r for r in table_rows(self.page, "Vert.x gRPC 5.0.7") if "1.50x Tern's" in r[1]]
        self.assertEqual(vertx[0][3:], ["-", "-"])

    def test_many_connections_table_judges_tern_against_nghttpd(self):
        rows = table_rows(self.page, "nghttpd (static file)")
        fanin = [r for r in rows if r[1] == "1000 x 1"]
        self.assertEqual(fanin, [["nghttpd (static file)", "1000 x 1", "200,000", "20.0 MiB",
                                  "1.00", "0.75", ">= 0.7", "met"]])  # fmt: skip
        tern = [r for r in table_rows(self.page, "Tern") if r[1] == "1000 x 1"]
        self.assertEqual(tern[0][2:5], ["150,000", "200.0 MiB", "0.75"])
        grpc = [r for r in table_rows(self.page, "grpc-java") if r[1] == "1000 x 1"]
        self.assertEqual(grpc[0][5:7], ["3.00", "none"])

    def test_client_only_table_gives_each_client_as_a_share_of_h2load(self):
        self.assertEqual(
            table_row(self.page, "Tern (QpsClient)"),
            ["Tern (QpsClient)", "4 x 100", "350,000", "0.70", ">= 0.6", "met"],
        )
        self.assertEqual(
            table_row(self.page, "grpc-java (GrpcJavaBalancedClient)")[2:],
            ["100,000", "0.20", "", ""],
        )
        self.assertEqual(table_row(self.page, "h2load (the ceiling)")[2:4], ["500,000", "1.00"])
        self.assertIn("- client-only 4 x 100, tern: calls/s 350000;", self.page)

    def test_server_only_table_judges_tern_against_vertx(self):
        self.assertEqual(
            table_row(self.page, "Vert.x gRPC 5.0.7")[1:],
            ["250,000", "0.25", "1.60", "> 1 (ahead)", "met"],
        )

    def test_end_to_end_table_has_each_system_with_its_own_client(self):
        self.assertIn(
            "| Configuration | Client and server | QPS | p50 µs | p99 µs | Tern / it (QPS) "
            "| Target for Tern / it | |",
            self.page,
        )
        self.assertEqual(
            table_rows(self.page, "4x10 default"),
            [
                ["4x10 default", "Tern", "200", "100", "400", "", "", ""],
                ["4x10 default", "grpc-java", "100", "200", "800", "2.00"]
                + ["none (the results table above)", ""],
                ["4x10 default", "Vert.x gRPC 5.0.7", "160", "125", "500", "1.25"]
                + ["> 1 (ahead)", "met"],
            ],
        )
        # Its program was not there: missing, not failed, and not a figure.
        self.assertEqual(
            table_rows(self.page, "4x100 default")[2],
            ["4x100 default", "Vert.x gRPC 5.0.7", "missing", "", "", "", "", ""],
        )

    def test_no_end_to_end_peer_table_with_only_tern_and_grpc_java(self):
        results = results_fixture()
        for runs in results["e2e"].values():
            del runs["vertx"]
        self.assertNotIn("| Configuration | Client and server |", render(results))

    def test_tls_handshakes_four_at_once_have_their_own_row_and_target(self):
        results = results_fixture()
        results["tls"] += [
            jmh_row("TlsBenchmark.handshakesFourAtOnce", "tern", 2000.0, provider="openssl"),
            jmh_row("TlsBenchmark.handshakesFourAtOnce", "grpc-java", 1000.0, provider="openssl"),
        ]
        page = render(results)
        self.assertIn(
            "| JMH TLS handshake + one 1 KiB call (new connection), four at once, openssl |", page
        )
        self.assertIn(
            "| JMH TLS handshake + one call, four at once, openssl, Tern / grpc-java "
            "| >= 1.2 | 2.00 | met |\n",
            page,
        )

    def test_tls_handshakes_with_both_on_x25519_have_their_own_rows_and_targets(self):
        results = results_fixture()
        results["tls"] += [
            jmh_row("TlsBenchmark.handshakeAndCall", "tern", 900.0, provider="openssl"),
            jmh_row("TlsBenchmark.handshakeAndCall", "grpc-java", 900.0, provider="openssl"),
            jmh_row(
                "TlsBenchmark.handshakeAndCall", "tern", 1300.0, provider="openssl", groups="x25519"
            ),
            jmh_row(
                "TlsBenchmark.handshakeAndCall",
                "grpc-java",
                1000.0,
                provider="openssl",
                groups="x25519",
            ),
        ]
        page = render(results)
        self.assertIn(
            "| JMH TLS handshake + one call, openssl, Tern / grpc-java | >= 1.2 | 1.00 | not met |",
            page,
        )
        self.assertIn(
            "| JMH TLS handshake + one call, openssl, both on X25519, Tern / grpc-java | >= 1.2 "
            "| 1.30 | met |",
            page,
        )
        self.assertIn(
            "| JMH TLS handshake + one 1 KiB call (new connection), openssl, both on X25519 |",
            page,
        )

    def test_issue_34_targets_are_tern_against_grpc_java_and_the_raw_echo(self):
        per_call = "heap allocated per empty unary call, Tern / grpc-java"
        new_conns = "new connection + first call, one at a time (default executors: no fastest run)"
        fastest = "streaming ping-pong 0 B 1x1 direct (fastest configuration: direct executors)"
        for line in (
            "| server live heap per idle connection, Tern / grpc-java | <= 0.5 | 0.40 | met |",
            "| server RSS per idle connection, Tern / grpc-java | <= 0.7 | 0.50 | met |",
            "| server %s | <= 0.35 | 0.25 | met |" % per_call,
            "| client %s | <= 0.35 | n/a | not measured |" % per_call,
            "| %s, Tern / raw echo limit | >= 0.6 | 0.60 | met |" % fastest,
            "| %s, Tern / raw echo limit | >= 0.6 | 0.50 | not met |" % new_conns,
            "| JMH TLS handshake + one call, jdk, Tern / grpc-java | >= 1.2 | 1.30 | met |",
            "| JMH in-process ping-pong, direct executors, Tern / grpc-java ns/op | <= 1 | 0.90 "
            "| met |",
        ):
            self.assertIn(line + "\n", self.page)

    def test_large_messages_are_judged_against_the_loopback_bandwidth(self):
        results = results_fixture()
        results["large"] = {
            "1 MiB unary 4x1": {"tern": [e2e_run(1000, 3000)], "grpc-java": [e2e_run(500, 6000)]}
        }
        results["flow"] = [
            jmh_row("OneWayStreamBenchmark.serverToClient", s, msgs, size=size)
            for s, msgs, size in (
                ("tern", 400000.0, "1024"),
                ("grpc-java", 200000.0, "1024"),
                ("tern", 16000.0, "65536"),
                ("grpc-java", 8000.0, "65536"),
            )
        ]
        results["echo"][bench_systems.BANDWIDTH_KEY] = {
            "raw-echo": [{"bytes_per_second": mib * 1048576} for mib in (4000, 6000)]
        }
        moved = "1 MiB unary 4x1: payload moved (2 MiB a call)"
        self.assertEqual(
            bandwidth_row(render(results), moved)[1:],
            ["5,000", "2,000", "0.40", "1,000", "0.20", "2.00"]
            + [">= 0.5 of the limit, >= 1.5 x grpc-java", "not met (limit)"],
        )
        results["echo"][bench_systems.BANDWIDTH_KEY]["raw-echo"] = [
            {"bytes_per_second": 4000 * 1048576}
        ]
        page = render(results)
        self.assertEqual(
            bandwidth_row(page, moved)[1:],
            ["4,000", "2,000", "0.50", "1,000", "0.25", "2.00"]
            + [">= 0.5 of the limit, >= 1.5 x grpc-java", "met"],
        )
        streamed = "JMH one-way stream, server to client, %s messages: payload delivered"
        self.assertEqual(
            bandwidth_row(page, streamed % "64 KiB")[1:],
            ["4,000", "1,000", "0.25", "500", "0.12", "2.00", "none: recorded", ""],
        )
        self.assertEqual(bandwidth_row(page, streamed % "1 KiB")[2:4], ["391", "0.10"])
        self.assertIn(
            "- loopback one-way bandwidth, raw echo limit (1 MiB writes): MiB/s 4,000\n", page
        )
        results["echo"] = {}
        self.assertNotIn("Large messages against the machine", render(results))

    def test_no_target_table_without_its_figures(self):
        results = results_fixture()
        for part in ("conns", "alloc", "echo", "streaming", "server"):
            results[part] = {}
        results["tls"], results["jmh"] = [], []
        page = render(results)
        self.assertNotIn("Issue 34's targets", page)
        self.assertIn("| end-to-end 4x10 default: QPS |", page)


class ConnsPortTest(unittest.TestCase):
    """The connections part's port: ports held in TIME_WAIT by earlier runs are waited out."""

    def test_waits_for_a_port_to_leave_time_wait(self):
        now = [0.0]
        free_after = 12.0  # the ports leave TIME_WAIT 12 s from now
        with (
            unittest.mock.patch.object(bench_compare, "free_port", return_value=40000),
            unittest.mock.patch.object(
                bench_compare, "port_free_on_sources", side_effect=lambda p: now[0] >= free_after
            ),
        ):
            port = bench_compare.conns_port(
                sleep=lambda s: now.__setitem__(0, now[0] + s), clock=lambda: now[0]
            )
        self.assertEqual(port, 40000)
        self.assertGreaterEqual(now[0], free_after)

    def test_gives_up_with_the_addresses_and_the_wait_named(self):
        now = [0.0]
        with (
            unittest.mock.patch.object(bench_compare, "free_port", return_value=40000),
            unittest.mock.patch.object(bench_compare, "port_free_on_sources", return_value=False),
        ):
            with self.assertRaisesRegex(RuntimeError, r"127\.0\.0\.1\.\.127\.0\.0\.11 in 30 s"):
                bench_compare.conns_port(
                    sleep=lambda s: now.__setitem__(0, now[0] + s),
                    clock=lambda: now[0],
                    wait_seconds=30,
                )
        self.assertLess(now[0], 40)


class SystemsTest(unittest.TestCase):
    def test_tern_runs_with_no_http2_switch(self):
        tern = bench_systems.java_system("tern")
        for cmd in (
            tern.server_cmd(1234, False),
            tern.client_cmd(1234, 10, True, 5, 2, 0, 4, False),
        ):
            self.assertEqual(cmd[:3], ["java", "-cp", "$TERN_CP"], "no JVM flag")
            self.assertFalse(any(arg.startswith("-D") for arg in cmd), cmd)
        self.assertIn("--system=tern", tern.connections_client())

    def test_systems_are_tern_grpc_java_and_the_server_only_peers(self):
        self.assertEqual(
            list(bench_systems.SYSTEMS),
            [
                "tern",
                "tern-defaults",
                "grpc-java",
                "vertx",
                "grpc-go",
                "tonic",
                "nghttpd",
                "tern-tls",
                "tern-tls-jdk",
                "grpc-java-tls",
                "grpc-java-tls-jdk",
                "nghttpd-tls",
            ],
        )

    def test_tls_servers_use_one_provider_each_and_the_same_certificate(self):
        tern = bench_systems.SYSTEMS["tern-tls-jdk"].server_only_cmd(1234, "bench-work")
        self.assertIn("-Ddev.tern.netty.sslProvider=jdk", tern)
        self.assertIn("--tls_cert=bench-work/tls/cert.pem", tern)
        grpc = bench_systems.SYSTEMS["grpc-java-tls-jdk"].server_only_cmd(1234, "bench-work")
        self.assertEqual(grpc[:3], ["java", "-cp", "$GRPC_JAVA_JDK_CP"])
        self.assertIn("--tls", grpc)
        nghttpd = bench_systems.SYSTEMS["nghttpd-tls"].server_only_cmd(1234, "bench-work")
        self.assertNotIn("--no-tls", nghttpd)
        self.assertEqual(nghttpd[-2:], ["bench-work/tls/key.pem", "bench-work/tls/cert.pem"])
        self.assertEqual(
            bench_compare.without_tcnative("/a/grpc.jar:/b/netty-tcnative-classes-2.jar:/c/x.jar"),
            "/a/grpc.jar:/c/x.jar",
        )

    def test_h2load_speaks_tls_to_a_tls_server(self):
        args = argparse.Namespace(duration=5, server_warmup=2)
        self.assertIn(
            "https://127.0.0.1:1234" + bench_systems.UNARY_PATH,
            bench_compare.h2load_cmd(1234, "body.bin", args, True),
        )

    def test_vertx_runs_its_own_server_and_client_from_the_peers_folder(self):
        vertx = bench_systems.qps_programs("vertx")
        self.assertEqual(
            vertx.server_cmd(1234, True),
            ["$PEERS_DIR/vertx-bench", "server", "--address=127.0.0.1:1234"],
        )
        self.assertEqual(vertx.server_only_cmd(1234, "bench-work"), vertx.server_cmd(1234, False))
        client = vertx.client_cmd(1234, 10, True, 5, 2, 0, 4, False)
        self.assertEqual(client[:2], ["$PEERS_DIR/vertx-bench", "client"])
        self.assertIn("--outstanding_rpcs=10", client)
        self.assertNotIn("--directexecutor", client)
        self.assertEqual(bench_systems.taking_part(("tern", "vertx"), "e2e"), ("tern", "vertx"))
        self.assertEqual(bench_systems.taking_part(("tern", "vertx"), "conns"), ("tern",))

    def test_end_to_end_without_the_vertx_peer_records_it_missing_and_starts_nothing(self):
        # The launcher's environment, without the peers' folder (build-peers.sh did not run).
        env = {"TERN_CP": "tern-cp", "GRPC_JAVA_CP": "grpc-java-cp"}
        with unittest.mock.patch.dict(os.environ, env):
            os.environ.pop("PEERS_DIR", None)
            args = argparse.Namespace(
                systems=("vertx",), repeats=2, duration=1, warmup=1, quick=True
            )
            results = {"commands": {}, "errors": {}, "e2e": {}}
            shape = ("e2e", "end-to-end", "4x10 default", 10, False)
            bench_compare.run_qps_config(args, "/nonexistent", results, *shape)
        self.assertEqual(results["e2e"]["4x10 default"], {"vertx": []})
        [message] = results["errors"]["end-to-end 4x10 default, vertx"]
        self.assertTrue(message.startswith(bench_systems.MISSING), message)
        self.assertIn("PEERS_DIR is not set", message)

    def test_tern_engine_is_an_unknown_system_that_says_why(self):
        with self.assertRaises(ValueError) as raised:
            bench_systems.parse_systems("tern,tern-engine,grpc-java")
        self.assertIn("unknown system tern-engine", str(raised.exception))
        self.assertIn("tern is Tern on its own HTTP/2 engine", str(raised.exception))


class ReuseTest(unittest.TestCase):
    def reuse(self, previous):
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "results.json")
            with open(path, "w") as f:
                json.dump(previous, f)
            results = {"commands": {}, "errors": {}}
            bench_compare.reuse(results, path, ["e2e"])
            return results

    def test_reuses_a_result_of_this_version(self):
        previous = results_fixture()
        self.assertEqual(self.reuse(previous)["e2e"], previous["e2e"])

    def test_prefers_the_results_beside_the_page_to_the_work_directorys(self):
        with tempfile.TemporaryDirectory() as work:
            page = os.path.join(work, "benchmarks.md")
            page_json = bench_compare.page_results_path(page)
            work_json = os.path.join(work, "results.json")
            self.assertEqual(page_json, os.path.join(work, "benchmarks.json"))
            with self.assertRaises(SystemExit) as raised:
                bench_compare.reused_results_path(page_json, work_json)
            self.assertIn("without --reuse", str(raised.exception))
            open(work_json, "w").close()
            self.assertEqual(bench_compare.reused_results_path(page_json, work_json), work_json)
            open(page_json, "w").close()
            self.assertEqual(bench_compare.reused_results_path(page_json, work_json), page_json)

    def test_refuses_a_result_from_before_one_http2_stack(self):
        previous = results_fixture()
        del previous["version"]
        with self.assertRaises(SystemExit) as raised:
            self.reuse(previous)
        self.assertIn("Netty's HTTP/2 codec", str(raised.exception))


if __name__ == "__main__":
    unittest.main()
