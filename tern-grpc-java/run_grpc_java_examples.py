#!/usr/bin/env python3
"""Runs grpc-java's own examples on grpc-java and on Tern, and prints the table of
docs/grpc-java-bridge.md#grpc-javas-examples (issue 38).

The examples are grpc-java's `examples/` tree at v1.79.0, which this project does not copy: pass
its path (from `git clone --depth 1 -b v1.79.0 https://github.com/grpc/grpc-java`). The tree is
copied twice into a scratch directory: one copy is built as it is, on grpc-netty-shaded; in the
other, the only change is its pom's grpc-netty-shaded dependency, swapped for tern-grpc-java
(installed into the local Maven repository first, as a user would). Both are built with their own
pom. Then each example's server and client run on one copy and then the other (the examples listen
on their fixed ports: 50051, 8980 and the like, so they run one at a time), and their outputs are
compared once the log lines' timestamps are removed.

    tern-grpc-java/run_grpc_java_examples.py --examples=/path/to/grpc-java/examples [--only=NAME]

Needs Maven with network access to Maven Central (the examples' plugins and protoc), a JDK 17+.
Exits 1 if an example's result differs from what the table in the docs expects.
"""

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

PACKAGE = "io.grpc.examples."
TERN_DEPENDENCY = """
    <dependency>
      <groupId>dev.tern</groupId>
      <artifactId>tern-grpc-java</artifactId>
      <version>{version}</version>
      <scope>runtime</scope>
    </dependency>"""
NETTY_SHADED = re.compile(
    r"\s*<dependency>\s*<groupId>io\.grpc</groupId>\s*"
    r"<artifactId>grpc-netty-shaded</artifactId>\s*<scope>runtime</scope>\s*</dependency>"
)
# java.util.logging's first line of a record: "Nov 25, 2026 2:19:37 PM class method".
LOG_HEADER = re.compile(r"^[A-Z][a-z]{2} \d{1,2}, \d{4} \d{1,2}:\d{2}:\d{2} [AP]M .*$")
# A status as Status.toString() prints it: what follows its code is compared no further.
STATUS = re.compile(r"Status\{code=[A-Z_]+")
# The one-line formats some examples set: "2026-11-25 14:31:24 INFO ..." or "14:37:17 INFO ...".
TIME_PREFIX = re.compile(r"^(\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}:\d{2} ")


@dataclass
class Example:
    """One row: servers to start (class, args, port to wait for), a client, and how to judge it.

    `same`: the client's output (timestamps removed) must be the same on both stacks. Otherwise
    the client must exit 0 and print `expect` on both (output that depends on timing or random
    numbers). `client_first`: the client starts before the server (wait-for-ready).
    """

    name: str
    client: str
    client_args: list = field(default_factory=list)
    servers: list = field(default_factory=list)
    same: bool = True
    expect: str = ""
    client_first: bool = False


HELLO = ("helloworld.HelloWorldServer", [], 50051)
EXAMPLES = [
    Example("helloworld", "helloworld.HelloWorldClient", servers=[HELLO]),
    Example(
        "routeguide",
        "routeguide.RouteGuideClient",
        servers=[("routeguide.RouteGuideServer", [], 8980)],
        same=False,
        expect=r"Finished trip with \d+ points",
    ),
    Example(
        "header", "header.CustomHeaderClient", servers=[("header.CustomHeaderServer", [], 50051)]
    ),
    Example(
        "deadline", "deadline.DeadlineClient", servers=[("deadline.DeadlineServer", [], 50051)]
    ),
    Example("errordetails", "errordetails.ErrorDetailsExample"),
    Example("errorhandling", "errorhandling.ErrorHandlingClient"),
    Example("errorhandling (details)", "errorhandling.DetailErrorSample"),
    Example(
        "retrying",
        "retrying.RetryingHelloWorldClient",
        servers=[("retrying.RetryingHelloWorldServer", [], 50051)],
        same=False,
        expect=r"Total RPCs sent: \d+",
    ),
    Example(
        "hedging",
        "hedging.HedgingHelloWorldClient",
        servers=[("hedging.HedgingHelloWorldServer", [], 50051)],
        same=False,
        expect=r"Total RPCs sent: \d+",
    ),
    Example(
        "keepalive",
        "keepalive.KeepAliveClient",
        servers=[("keepalive.KeepAliveServer", [], 50051)],
    ),
    Example(
        "health service",
        "healthservice.HealthServiceClient",
        servers=[("healthservice.HealthServiceServer", [], 50051)],
    ),
    Example(
        "load balancing (custom name resolver)",
        "loadbalance.LoadBalanceClient",
        servers=[("loadbalance.LoadBalanceServer", [], 50051)],
        same=False,
        expect=r"Greeting: Hello request\d+ from server<5005[1-4]>",
    ),
    Example(
        "custom load balancer",
        "customloadbalance.CustomLoadBalanceClient",
        servers=[("loadbalance.LoadBalanceServer", [], 50051)],
        same=False,
        expect=r"Greeting: Hello request\d+ from server<5005[1-4]>",
    ),
    Example(
        "name resolution",
        "nameresolve.NameResolveClient",
        servers=[("nameresolve.NameResolveServer", [], 50051)],
        same=False,
        expect=r"Greeting: Hello request\d+ from server<5005[1-4]>",
    ),
    Example(
        "cancellation",
        "cancellation.CancellationClient",
        servers=[("cancellation.CancellationServer", [], 50051)],
    ),
    Example(
        "manual flow control",
        "manualflowcontrol.ManualFlowControlClient",
        servers=[("manualflowcontrol.ManualFlowControlServer", [], 50051)],
        same=False,
        expect=r"All Done",
    ),
    Example(
        "manual flow control (blocking bidi)",
        "manualflowcontrol.BidiBlockingClient",
        servers=[("manualflowcontrol.ManualFlowControlServer", [], 50051)],
        same=False,
        expect=r"The echo requests and results were",
    ),
    Example(
        "JSON marshaller",
        "advanced.HelloJsonClient",
        servers=[("advanced.HelloJsonServer", [], 50051)],
    ),
    Example(
        "compression",
        "experimental.CompressingHelloWorldClient",
        servers=[("experimental.CompressingHelloWorldServerAllMethods", [], 50051)],
    ),
    Example(
        "pre-serialized messages",
        "preserialized.PreSerializedClient",
        servers=[("preserialized.PreSerializedServer", [], 50051)],
    ),
    Example(
        "multiplexing",
        "multiplex.SharingClient",
        servers=[("multiplex.MultiplexingServer", [], 50051)],
        same=False,
        expect=r"Greeting",
    ),
    Example(
        "wait for ready",
        "waitforready.WaitForReadyClient",
        servers=[HELLO],
        client_first=True,
    ),
    Example(
        "proxy",
        "routeguide.RouteGuideClient",
        client_args=["localhost:8981"],
        servers=[
            ("routeguide.RouteGuideServer", [], 8980),
            ("grpcproxy.GrpcProxy", [], 8981),
        ],
        same=False,
        expect=r"Finished trip with \d+ points",
    ),
]


def normalized(output):
    """The output without log timestamps, Tern's own log records (a server's start and stop,
    which grpc-java does not log), numbers of milliseconds, or blank lines."""
    lines = []
    skip_message = False
    in_status = False
    for line in output.splitlines():
        if LOG_HEADER.match(line):
            skip_message = " dev.tern." in line
            in_status = False
            continue
        if skip_message:
            skip_message = False
            continue
        if in_status:
            continue  # the rest of a status description that spans lines (a cause's trace)
        status = STATUS.search(line)
        if status:
            # Each stack words its descriptions its own way (grpc-java adds its diagnostics);
            # the code is what the example shows.
            lines.append(TIME_PREFIX.sub("", line[: status.end()]) + "...}")
            in_status = "}" not in line[status.end() :]
            continue
        if TIME_PREFIX.match(line) and " dev.tern." in line:
            continue  # Tern's own record, in an example's one-line log format
        if line.strip():
            line = TIME_PREFIX.sub("", line.rstrip())
            lines.append(re.sub(r"\b\d+ ?ms\b", "N ms", line))
    return lines


def port_open(port):
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_for_port(port, process, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if port_open(port):
            return
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode} before port {port}")
        time.sleep(0.1)
    raise RuntimeError(f"nothing listened on port {port} within {seconds} s")


def stop(process):
    """Stops a server by its process group (the JVM and anything it started)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


class Client:
    """A client process whose output a thread collects as it comes."""

    def __init__(self, command):
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.lines = []
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()

    def output(self):
        self.reader.join(timeout=10)
        with self.changed:
            return "".join(self.lines)

    def wait_for(self, pattern, seconds):
        """Waits until a line matches `pattern`; RuntimeError after `seconds` or at exit."""
        deadline = time.monotonic() + seconds
        with self.changed:
            while not any(re.search(pattern, line) for line in self.lines):
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None:
                    raise RuntimeError(f"the client printed no line matching {pattern!r}")
                self.changed.wait(min(left, 0.5))

    def wait(self, seconds):
        """The exit code, or None if it still runs after `seconds`."""
        try:
            return self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return None

    def stop(self):
        stop(self.process)


def run(example, classpath, work):
    """Runs one example on one copy; returns (ok, output, note)."""
    java = ["java", "-cp", classpath]
    servers = []
    client = None
    try:
        for _, _, port in example.servers:
            if port_open(port):
                return False, "", f"port {port} is taken: stop what listens there"
        if example.client_first:
            client = Client(java + [PACKAGE + example.client] + example.client_args)
            # The client's first call fails at its 5 s deadline with no server; the second waits
            # for one: the server starts once the first has failed.
            client.wait_for(r"RPC failed", 60)
        for main, args, port in example.servers:
            log = open(os.path.join(work, main + ".log"), "w")
            process = subprocess.Popen(
                java + [PACKAGE + main] + args,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            servers.append(process)
            wait_for_port(port, process)
        if client is None:
            client = Client(java + [PACKAGE + example.client] + example.client_args)
        returncode = client.wait(120)
        output = client.output()
        if returncode is None:
            return False, output, "the client did not end within 120 s"
        if returncode != 0:
            return False, output, f"the client exited with {returncode}"
        if example.expect and not re.search(example.expect, output):
            return False, output, f"no line matches {example.expect!r}"
        return True, output, ""
    except RuntimeError as e:
        return False, client.output() if client else "", str(e)
    finally:
        if client is not None:
            client.stop()
        for process in servers:
            stop(process)


def build(directory, log):
    with open(log, "w") as out:
        subprocess.run(
            ["mvn", "-B", "-q", "package", "-DskipTests"],
            cwd=directory,
            stdout=out,
            stderr=subprocess.STDOUT,
            check=True,
        )
        cp_file = os.path.join(directory, "cp.txt")
        subprocess.run(
            ["mvn", "-B", "-q", "dependency:build-classpath", f"-Dmdep.outputFile={cp_file}"],
            cwd=directory,
            stdout=out,
            stderr=subprocess.STDOUT,
            check=True,
        )
    with open(cp_file) as f:
        return os.path.join(directory, "target", "classes") + os.pathsep + f.read().strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", required=True, help="grpc-java's examples/ at v1.79.0")
    parser.add_argument("--only", action="append", help="run only this example (repeatable)")
    parser.add_argument(
        "--no-install", action="store_true", help="tern-grpc-java is installed already"
    )
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    options = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    evaluated = subprocess.run(
        ["mvn", "-B", "-q", "help:evaluate", "-Dexpression=project.version", "-DforceStdout"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    version = re.sub(r"\x1b\[[0-9;]*m", "", evaluated).strip()
    if not options.no_install:
        print(f"installing tern-grpc-java {version} into the local Maven repository", flush=True)
        subprocess.run(
            ["mvn", "-B", "-q", "-pl", "tern-grpc-java", "-am", "install", "-DskipTests"],
            cwd=root,
            check=True,
        )
    work = tempfile.mkdtemp(prefix="grpc-java-examples-")
    try:
        copies = {}
        for stack in ("grpc-java", "tern"):
            directory = os.path.join(work, stack)
            shutil.copytree(options.examples, directory)
            if stack == "tern":
                pom = os.path.join(directory, "pom.xml")
                with open(pom) as f:
                    text = f.read()
                if not NETTY_SHADED.search(text):
                    sys.exit("the examples' pom has no grpc-netty-shaded runtime dependency")
                with open(pom, "w") as f:
                    f.write(NETTY_SHADED.sub(TERN_DEPENDENCY.format(version=version), text, 1))
            print(f"building the examples on {stack}", flush=True)
            log = os.path.join(work, f"build-{stack}.log")
            try:
                copies[stack] = build(directory, log)
            except subprocess.CalledProcessError:
                options.keep = True
                sys.exit(f"the build on {stack} failed: see {log}")
        failed = 0
        print("\n| example | grpc-java | Tern | output |")
        print("| --- | --- | --- | --- |")
        for example in EXAMPLES:
            if options.only and example.name not in options.only:
                continue
            results = {}
            for stack, classpath in copies.items():
                results[stack] = run(example, classpath, os.path.join(work, stack))
            (java_ok, java_out, java_note), (tern_ok, tern_out, tern_note) = (
                results["grpc-java"],
                results["tern"],
            )
            if example.same:
                same = normalized(java_out) == normalized(tern_out)
                compared = "the same" if same else "differs"
            else:
                same = True
                compared = f"both print `{example.expect}`" if java_ok and tern_ok else "-"
            ok = java_ok and tern_ok and same
            failed += 0 if ok else 1
            java_cell = "ok" if java_ok else f"failed: {java_note}"
            tern_cell = "ok" if tern_ok else f"failed: {tern_note}"
            print(f"| {example.name} | {java_cell} | {tern_cell} | {compared} |", flush=True)
            if not ok:
                for stack, (_, out, _) in results.items():
                    path = os.path.join(work, f"{example.name.replace(' ', '_')}-{stack}.out")
                    with open(path, "w") as f:
                        f.write(out)
                    print(f"  {stack}'s output: {path}", flush=True)
                options.keep = True
        print(f"\n{failed} example(s) not the same on both stacks")
        return 1 if failed else 0
    finally:
        if options.keep:
            print(f"scratch directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
