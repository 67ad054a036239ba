"""Runs the gRPC interop matrix: every (client, server, security) cell, one result line per case.

Securities: plaintext and tls (HTTP/2), and h3 (TLS over QUIC, HTTP/3), the last only for pairs
whose client and server both speak HTTP/3: the builtin HTTP/3 peers (aioquic, connect-go; they
speak nothing else) and the given peers named by --http3-peers. An h3 cell runs the cases both of
its peers express (HTTP3_CASES), all at once (--test_case=a,b,...), and passes --http3=true to both.

Invoked through run-matrix.sh; see README.md in this folder for the options. Needs only the Python
standard library (the peers bring their own environments).

For each cell the driver picks a free loopback port (bind port 0, read it, close: the peers' CLIs
cannot bind port 0 themselves), starts the server with --port=N --use_tls=..., waits until the port
accepts TCP connections, runs the client once with --test_case=all (once with the list of cases
for grpc-java's, which has no "all"; once per case for grpc-go's), and stops the server's whole
process group. The cases are the ones Tern's interop
client lists (bin/interop-client --list_test_cases=true), whichever clients run: a client that
prints no result for one of them fails that case. It prints
"<RESULT> <client> <server> <security> <case>[: reason]" per case and, last, exactly
"N passed, M failed" (", K skipped" appended when K > 0). Exit status 1 if anything failed.

Threading: single-threaded; subprocesses are the only concurrency, and each one is waited for.
"""

from __future__ import annotations

import argparse
import fnmatch
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tools" / "pylib"))  # the drivers' shared modules
from process_groups import stop_process_group  # noqa: E402 (importable only after the line above)

LOG_DIR = HERE.parent / "target" / "interop-matrix"
HOST = "127.0.0.1"
TLS_HOST_OVERRIDE = "foo.test.google.fr"  # the name in grpc-java's test server certificate

# The case names come from Tern's interop client (InteropCases.ALL in tern-interop), the one list
# of cases for every client; the launcher builds tern-interop first if its sources changed.
CASE_LIST_COMMAND = (str(ROOT / "bin" / "interop-client"), "--list_test_cases=true")
CASE_LIST_TIMEOUT_S = 900.0  # a first run builds tern-interop with Maven
CASE_NAME = re.compile(r"^[a-z][a-z0-9_]*$")

BUILTIN_CLIENTS = {
    "python": ("all", str(HERE / "python-client.sh")),
    # grpc-java's TestServiceClient takes one case a run; grpc-java-cases.sh runs a list in one JVM.
    "grpc-java": ("list", str(HERE / "grpc-java-cases.sh")),
    "grpc-go": ("per-case", f"{shlex.quote(str(HERE / 'grpc-go-peer.sh'))} client"),
}
BUILTIN_SERVERS = {
    "python": str(HERE / "python-server.sh"),
    "grpc-java": str(HERE / "grpc-java-server.sh"),
    "grpc-go": f"{shlex.quote(str(HERE / 'grpc-go-peer.sh'))} server",
}
BUILTIN_PAIRS = (("python", "python"), ("grpc-java", "python"), ("python", "grpc-java"))

# The HTTP/3 peers that share nothing with Tern (tools/install-http3-tools.sh installs them); they
# speak only HTTP/3. Their clients take --test_case=a,b,... and print PASS|FAIL lines.
HTTP3_PEER = HERE / "http3-peer.sh"
BUILTIN_HTTP3_CLIENTS = {
    "aioquic": ("all", f"{shlex.quote(str(HTTP3_PEER))} aioquic client"),
    "connect-go": ("all", f"{shlex.quote(str(HTTP3_PEER))} connect-go client"),
}
BUILTIN_HTTP3_SERVERS = {
    "aioquic": f"{shlex.quote(str(HTTP3_PEER))} aioquic server",
    "connect-go": f"{shlex.quote(str(HTTP3_PEER))} connect-go server",
}
_H3_COMMON = (
    "empty_unary",
    "large_unary",
    "custom_metadata",
    "status_code_and_message",
    "special_status_message",
    "unimplemented_method",
    "unimplemented_service",
    "client_streaming",
    "server_streaming",
)
_GO_COMMON = (
    *_H3_COMMON,
    "ping_pong",
    "empty_stream",
    "timeout_on_sleeping_server",
    "cancel_after_begin",
    "cancel_after_first_response",
    "very_large_request",
)
# (as a client, as a server): the cases each builtin HTTP/3 peer expresses (docs/http3.md, "The
# independent peers"); a peer not named here (Tern's programs) expresses every case.
HTTP3_CASES = {
    "aioquic": (
        (
            *_H3_COMMON,
            "timeout_on_sleeping_server",
            "cancel_after_begin",
            "cancel_after_first_response",
            "client_compressed_unary",
            "server_compressed_unary",
        ),
        _H3_COMMON,
    ),
    "connect-go": (
        (
            *_GO_COMMON,
            "client_compressed_unary",
            "server_compressed_unary",
            "server_compressed_streaming",
        ),
        (
            *_GO_COMMON,
            "client_compressed_unary",
            "client_compressed_streaming",
            "server_compressed_unary",
        ),
    ),
}
SECURITIES = ("plaintext", "tls", "h3")

RESULT_LINE = re.compile(r"^(PASS|FAIL|SKIP) (\S+?)(?:: (.*))?$")
SERVER_START_TIMEOUT_S = 180.0  # first use may create a virtualenv or resolve Maven artifacts
ALL_CLIENT_TIMEOUT_S = 600.0
CASE_CLIENT_TIMEOUT_S = 180.0
UDP_PROBE_WAIT_S = 0.2  # ICMP port unreachable comes back within the send on loopback


@dataclass
class Limitation:
    client: str
    server: str
    security: str
    case: str
    reason: str

    def matches(self, client: str, server: str, security: str, case: str) -> bool:
        return all(
            fnmatch.fnmatchcase(value, pattern)
            for value, pattern in (
                (client, self.client),
                (server, self.server),
                (security, self.security),
                (case, self.case),
            )
        )


@dataclass
class Tally:
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    failures: list[str] = field(default_factory=list)

    def report(
        self,
        result: str,
        client: str,
        server: str,
        security: str,
        case: str,
        reason: Optional[str] = None,
    ) -> None:
        line = f"{result} {client} {server} {security} {case}" + (f": {reason}" if reason else "")
        print(line, flush=True)
        if result == "PASS":
            self.passed += 1
        elif result == "SKIP":
            self.skipped += 1
        else:
            self.failed += 1
            self.failures.append(line)


def load_limitations(path: Optional[Path]) -> list[Limitation]:
    if path is None or not path.exists():
        return []
    limitations = []
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head, sep, reason = line.partition("|")
        parts = head.split()
        if not sep or len(parts) != 4 or not reason.strip():
            raise SystemExit(f"{path}:{number}: want 'CLIENT SERVER SECURITY CASE | reason'")
        limitations.append(Limitation(*parts, reason.strip()))
    return limitations


def interop_cases() -> tuple[str, ...]:
    """The case names as Tern's interop client lists them (the order of --test_case=all)."""
    try:
        listed = subprocess.run(
            CASE_LIST_COMMAND,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            timeout=CASE_LIST_TIMEOUT_S,
            check=True,
        )
    except (OSError, subprocess.SubprocessError) as error:
        raise SystemExit(
            f"cannot list the interop cases with {shlex.join(CASE_LIST_COMMAND)}: {error}"
        ) from error
    names = tuple(listed.stdout.decode("utf-8", "replace").split())
    odd = [name for name in names if not CASE_NAME.match(name)]
    if not names or odd:
        raise SystemExit(
            f"{shlex.join(CASE_LIST_COMMAND)} printed no case list"
            + (f" (unexpected: {', '.join(odd[:5])})" if odd else "")
        )
    return names


def free_port() -> int:
    """A port free for TCP and UDP alike (an h3 server listens on UDP, Tern's on both)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind((HOST, 0))
            port = probe.getsockname()[1]
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                    udp.bind((HOST, port))
            except OSError:
                continue  # taken on UDP; ask for another
            return port


def udp_listening(port: int) -> bool:
    """Whether something is bound to the loopback UDP port: a datagram to a closed port comes back
    as ICMP port unreachable (ConnectionRefusedError on the connected socket); a QUIC server drops
    a one-byte datagram without answering, so silence for UDP_PROBE_WAIT_S means bound."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect((HOST, port))
        probe.settimeout(UDP_PROBE_WAIT_S)
        try:
            probe.send(b"\0")
            probe.recv(1)
        except ConnectionRefusedError:
            return False
        except socket.timeout:  # TimeoutError from Python 3.10; a class of its own on 3.9
            return True
        return True  # an answer: bound too


def stop_group(process: subprocess.Popen) -> None:
    """Ends a process this driver started, and its children (it leads its own session)."""
    stop_process_group(process, term_wait_s=15, kill_wait_s=15)


class Server:
    """A server process for one cell; a context manager so it is stopped on every path."""

    def __init__(self, command: list[str], security: str, log: Path) -> None:
        self.port = free_port()
        self._log = log
        self._udp = security == "h3"
        with log.open("wb") as out:
            self._process = subprocess.Popen(
                [*command, f"--port={self.port}", *security_flags(security)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_ready(self) -> Optional[str]:
        """Returns None once the port accepts connections, else why it never did."""
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                return (
                    f"server exited with {self._process.returncode} before listening; "
                    f"see {self._log}"
                )
            try:
                if self._udp:
                    if udp_listening(self.port):
                        return None
                else:
                    with socket.create_connection((HOST, self.port), timeout=1):
                        return None
            except OSError:
                pass
            time.sleep(0.1)  # polling a port that is not open yet; nothing to wait on instead
        protocol = "UDP" if self._udp else "TCP"
        return (
            f"server did not listen on {protocol} {HOST}:{self.port} within "
            f"{SERVER_START_TIMEOUT_S:.0f}s"
        )

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        stop_group(self._process)


def run_client(command: list[str], log: Path, timeout: float) -> tuple[Optional[int], str]:
    """Runs a client to completion (or kills it at the timeout); returns (exit status, output)."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=timeout)
        status: Optional[int] = process.returncode
    except subprocess.TimeoutExpired:
        stop_group(process)
        output, _ = process.communicate()
        status = None
    finally:
        stop_group(process)
    text = output.decode("utf-8", "replace")
    with log.open("a") as out:
        out.write(f"$ {shlex.join(command)}\n{text}\n(exit {status})\n")
    return status, text


def failure_reason(output: str, status: Optional[int], timeout: float) -> str:
    if status is None:
        return f"client killed after {timeout:.0f}s"
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if "Exception" in line or "Error" in line:
            return line[:400]
    return (lines[-1][:400] if lines else "no output") + f" (exit {status})"


def security_flags(security: str) -> list[str]:
    """The flags both peers of a cell get for its security."""
    if security == "h3":
        return ["--use_tls=true", "--http3=true"]
    return [f"--use_tls={str(security == 'tls').lower()}"]


def client_flags(port: int, security: str) -> list[str]:
    flags = [f"--server_host={HOST}", f"--server_port={port}", *security_flags(security)]
    if security != "plaintext":
        flags += ["--use_test_ca=true", f"--server_host_override={TLS_HOST_OVERRIDE}"]
    return flags


def run_cell(
    client: str,
    client_mode: str,
    client_cmd: list[str],
    server: str,
    server_cmd: list[str],
    security: str,
    cases: tuple[str, ...],
    every_case: bool,
    limitations: list[Limitation],
    tally: Tally,
) -> None:
    stem = f"{client}__{server}__{security}"
    client_log = LOG_DIR / f"{stem}.client.log"
    client_log.write_text("")

    def known(case: str) -> Optional[Limitation]:
        matching = (lim for lim in limitations if lim.matches(client, server, security, case))
        return next(matching, None)

    with Server(server_cmd, security, LOG_DIR / f"{stem}.server.log") as running:
        problem = running.wait_ready()
        if problem:
            for case in cases:
                tally.report("FAIL", client, server, security, case, problem)
            return
        flags = client_flags(running.port, security)

        # An h3 client takes a list of cases (HTTP/3 peers express only some); a "list" client
        # takes only a list, without the cases it is known not to pass.
        listed = client_mode == "list"
        if listed or (client_mode == "all" and (every_case or security == "h3")):
            if listed:
                chosen = ",".join(c for c in cases if not known(c))
            else:
                chosen = "all" if every_case else ",".join(cases)
            status, output = None, ""
            if chosen:
                status, output = run_client(
                    [*client_cmd, *flags, f"--test_case={chosen}"], client_log, ALL_CLIENT_TIMEOUT_S
                )
            results = {}
            for line in output.splitlines():
                match = RESULT_LINE.match(line.strip())
                if match:
                    results[match.group(2)] = (match.group(1), match.group(3))
            for case in (*cases, *[c for c in results if c not in cases]):
                result, reason = results.get(case, (None, None))
                limitation = known(case)
                if limitation and listed:
                    tally.report("SKIP", client, server, security, case, limitation.reason)
                elif limitation:
                    seen = f"{result}: {reason}" if reason else (result or "no result")
                    tally.report(
                        "SKIP",
                        client,
                        server,
                        security,
                        case,
                        f"{limitation.reason} [this run: {seen}]",
                    )
                elif result is None:
                    tally.report(
                        "FAIL",
                        client,
                        server,
                        security,
                        case,
                        "client printed no result for this case; "
                        + failure_reason(output, status, ALL_CLIENT_TIMEOUT_S),
                    )
                else:
                    tally.report(result, client, server, security, case, reason)
            return

        for case in cases:
            limitation = known(case)
            if limitation:
                tally.report("SKIP", client, server, security, case, limitation.reason)
                continue
            status, output = run_client(
                [*client_cmd, *flags, f"--test_case={case}"], client_log, CASE_CLIENT_TIMEOUT_S
            )
            printed = [RESULT_LINE.match(line.strip()) for line in output.splitlines()]
            own = next((m for m in printed if m and m.group(2) == case), None)
            if own and own.group(1) == "SKIP":
                tally.report("SKIP", client, server, security, case, own.group(3))
            elif status == 0 and (own is None or own.group(1) == "PASS"):
                tally.report("PASS", client, server, security, case)
            else:
                reason = (
                    own.group(3)
                    if own and own.group(3)
                    else failure_reason(output, status, CASE_CLIENT_TIMEOUT_S)
                )
                tally.report("FAIL", client, server, security, case, reason)


def named_command(spec: str, option: str) -> tuple[str, list[str]]:
    name, sep, command = spec.partition("=")
    if not sep or not re.fullmatch(r"[A-Za-z0-9._-]+", name) or not command.strip():
        raise SystemExit(f"{option} wants NAME=COMMAND, got {spec!r}")
    return name, shlex.split(command)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Run the gRPC interop matrix.")
    parser.add_argument(
        "--client",
        action="append",
        default=[],
        metavar="NAME=COMMAND",
        help="a client supporting --test_case=all that prints PASS/FAIL/SKIP lines",
    )
    parser.add_argument(
        "--per-case-client",
        action="append",
        default=[],
        metavar="NAME=COMMAND",
        help="a client run once per case, judged by its exit status",
    )
    parser.add_argument("--server", action="append", default=[], metavar="NAME=COMMAND")
    parser.add_argument("--pairs", help="CLIENT:SERVER,... (default: see README.md)")
    parser.add_argument(
        "--security",
        default="plaintext,tls,h3",
        help="any of plaintext, tls, h3 (h3 cells: pairs that both speak HTTP/3)",
    )
    parser.add_argument(
        "--http3-peers",
        default="",
        metavar="NAME,...",
        help="given clients/servers that also speak HTTP/3 (take --http3=true; Tern's do)",
    )
    parser.add_argument("--cases", default="all", help="all or a comma-separated list")
    parser.add_argument(
        "--limitations",
        type=Path,
        default=HERE / "known-limitations.txt",
        help="known foreign-peer limitations file ('none' for no file)",
    )
    args = parser.parse_args(argv)

    builtin_clients = {**BUILTIN_CLIENTS, **BUILTIN_HTTP3_CLIENTS}
    builtin_servers = {**BUILTIN_SERVERS, **BUILTIN_HTTP3_SERVERS}
    clients = {name: (mode, shlex.split(cmd)) for name, (mode, cmd) in builtin_clients.items()}
    servers = {name: shlex.split(cmd) for name, cmd in builtin_servers.items()}
    added_clients = [named_command(s, "--client") for s in args.client]
    added_per_case = [named_command(s, "--per-case-client") for s in args.per_case_client]
    added_servers = [named_command(s, "--server") for s in args.server]
    for name, command in added_clients:
        clients[name] = ("all", command)
    for name, command in added_per_case:
        clients[name] = ("per-case", command)
    for name, command in added_servers:
        servers[name] = command

    if args.pairs:
        pairs = [tuple(p.split(":", 1)) for p in args.pairs.split(",") if p]
    else:
        new_clients = [n for n, _ in added_clients + added_per_case]
        new_servers = [n for n, _ in added_servers]
        if new_clients or new_servers:
            # New implementations against everything; the foreign peers only against them.
            pairs = [(c, s) for c in new_clients for s in servers]
            pairs += [(c, s) for c in clients if c not in new_clients for s in new_servers]
        else:
            pairs = list(BUILTIN_PAIRS)
    for client, server in pairs:
        if client not in clients or server not in servers:
            raise SystemExit(
                f"unknown pair {client}:{server}; clients {sorted(clients)}, "
                f"servers {sorted(servers)}"
            )

    securities = [s for s in args.security.split(",") if s]
    if not securities or any(s not in SECURITIES for s in securities):
        raise SystemExit(f"--security wants any of {', '.join(SECURITIES)}, got {args.security!r}")
    given = {n for n, _ in added_clients + added_per_case + added_servers}
    http3_given = {n for n in args.http3_peers.split(",") if n}
    if http3_given - given:
        raise SystemExit(
            f"--http3-peers names {', '.join(sorted(http3_given - given))}, "
            "which no --client, --per-case-client or --server gives"
        )
    # The builtin HTTP/3 peers speak only HTTP/3 (unless a given peer took the name).
    http3_only = (set(BUILTIN_HTTP3_CLIENTS) | set(BUILTIN_HTTP3_SERVERS)) - given

    def speaks(name: str, security: str) -> bool:
        if security == "h3":
            return name in http3_only or name in http3_given
        return name not in http3_only

    cells = [
        (client, server, security)
        for client, server in pairs
        for security in securities
        if speaks(client, security) and speaks(server, security)
    ]
    if not cells:
        raise SystemExit(
            f"no pair speaks {', '.join(securities)} at both ends "
            "(h3 needs two HTTP/3 peers: aioquic, connect-go or --http3-peers)"
        )
    known_cases = interop_cases()
    cases = known_cases if args.cases == "all" else tuple(c for c in args.cases.split(",") if c)
    unknown = [c for c in cases if c not in known_cases]
    if unknown:
        raise SystemExit(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(known_cases)}")

    def cell_cases(client: str, server: str, security: str) -> tuple[str, ...]:
        """The chosen cases the cell's peers express (HTTP/3 peers express only some)."""
        if security != "h3":
            return cases
        as_client = HTTP3_CASES[client][0] if client in http3_only else None
        as_server = HTTP3_CASES[server][1] if server in http3_only else None
        return tuple(
            c
            for c in cases
            if (as_client is None or c in as_client) and (as_server is None or c in as_server)
        )

    limitations = [] if str(args.limitations) == "none" else load_limitations(args.limitations)

    # SIGTERM/SIGHUP unwind like Ctrl-C, so every running server is stopped by the with-blocks.
    def interrupted(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGHUP, interrupted)

    LOG_DIR.mkdir(parents=True, exist_ok=True)
    tally = Tally()
    started = time.monotonic()
    try:
        for client, server, security in cells:
            mode, client_cmd = clients[client]
            chosen = cell_cases(client, server, security)
            if not chosen:
                continue  # none of the chosen cases is one both peers express
            run_cell(
                client,
                mode,
                client_cmd,
                server,
                servers[server],
                security,
                chosen,
                chosen == known_cases,
                limitations,
                tally,
            )
    except KeyboardInterrupt:
        print("interrupted; servers stopped", file=sys.stderr)
        return 130
    print(f"(logs in {LOG_DIR}; {time.monotonic() - started:.0f}s)", file=sys.stderr)
    summary = f"{tally.passed} passed, {tally.failed} failed"
    if tally.skipped:
        summary += f", {tally.skipped} skipped"
    print(summary, flush=True)
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
