"""grpc.testing interop client on grpcio (gRPC C-core), a foreign peer for Tern.

Usage: interop_client.py --server_host=H --server_port=N --test_case=NAME|all
       [--use_tls=true|false] [--use_test_ca=true|false] [--server_host_override=NAME]
       [--soak_iterations=N] [--certs_dir=D]
       interop_client.py --list_test_cases=true    (the cases it implements, one a line)

Prints one line per case: "PASS <case>", "FAIL <case>: <reason>" or "SKIP <case>: <reason>"
(the last only where grpcio's client API cannot express what the case needs). Exits 1 if any case
failed, 2 on bad arguments. Every RPC carries a deadline, so a silent server fails a case instead
of hanging it.
"""

from __future__ import annotations

import argparse
import queue
import sys
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import grpc

from interop_protos import (
    NO_DECOMPRESSION,
    SERVICE,
    UNIMPLEMENTED_SERVICE,
    Empty,
    M,
    decoder,
    default_certs_dir,
    method_path,
    parse_bool,
    read_cert,
    serializer,
)

RPC_TIMEOUT_S = 30.0
ECHO_INITIAL = "x-grpc-test-echo-initial"
ECHO_TRAILING = "x-grpc-test-echo-trailing-bin"
INITIAL_VALUE = "test_initial_metadata_value"
TRAILING_VALUE = b"\xab\xab\xab"
SPECIAL_MESSAGE = "\t\ntest with whitespace\r\nand Unicode BMP \u263a and non-BMP \U0001f608\t\n"


class CaseFailed(Exception):
    pass


class CaseSkipped(Exception):
    pass


def check(condition: bool, reason: str) -> None:
    if not condition:
        raise CaseFailed(reason)


def zeros(size: int) -> M.Payload:
    return M.Payload(type=M.COMPRESSABLE, body=bytes(size))


def check_payload(payload: M.Payload, size: int, what: str = "response") -> None:
    check(payload.type == M.COMPRESSABLE, f"{what} payload type {payload.type}, want COMPRESSABLE")
    check(len(payload.body) == size, f"{what} payload has {len(payload.body)} bytes, want {size}")
    check(payload.body == bytes(size), f"{what} payload is not all zero bytes")


def expect_status(call: Callable[[], Any], code: grpc.StatusCode, what: str) -> grpc.RpcError:
    try:
        call()
    except grpc.RpcError as error:
        check(
            error.code() == code,
            f"{what}: got {error.code().name} ({error.details()!r}), want {code.name}",
        )
        return error
    raise CaseFailed(f"{what}: call succeeded, want {code.name}")


class Feed:
    """A request iterator the case feeds one message at a time (grpcio pulls it on its own thread).

    Thread-safety: put()/close() from the case's thread, iteration from grpcio's request thread;
    the queue does the hand-over.
    """

    _END = object()

    def __init__(self) -> None:
        self._queue: queue.Queue = queue.Queue()

    def put(self, message: Any) -> None:
        self._queue.put(message)

    def close(self) -> None:
        self._queue.put(self._END)

    def __iter__(self) -> Iterator[Any]:
        while True:
            item = self._queue.get()
            if item is self._END:
                return
            yield item


class Stub:
    """TestService methods as grpcio multicallables that report each response's compression."""

    def __init__(self, channel: grpc.Channel) -> None:
        simple = decoder(M.SimpleResponse)
        output = decoder(M.StreamingOutputCallResponse)
        empty = decoder(Empty)
        self.empty_call = channel.unary_unary(
            method_path(SERVICE, "EmptyCall", False, False), serializer, empty
        )
        self.unary_call = channel.unary_unary(
            method_path(SERVICE, "UnaryCall", False, False), serializer, simple
        )
        self.streaming_output_call = channel.unary_stream(
            method_path(SERVICE, "StreamingOutputCall", False, True), serializer, output
        )
        self.streaming_input_call = channel.stream_unary(
            method_path(SERVICE, "StreamingInputCall", True, False),
            serializer,
            decoder(M.StreamingInputCallResponse),
        )
        self.full_duplex_call = channel.stream_stream(
            method_path(SERVICE, "FullDuplexCall", True, True), serializer, output
        )
        self.unimplemented_call = channel.unary_unary(
            method_path(SERVICE, "UnimplementedCall", False, False), serializer, empty
        )
        self.unimplemented_service_call = channel.unary_unary(
            method_path(UNIMPLEMENTED_SERVICE, "UnimplementedCall", False, False),
            serializer,
            empty,
        )


def large_request() -> M.SimpleRequest:
    return M.SimpleRequest(
        response_type=M.COMPRESSABLE, response_size=314159, payload=zeros(271828)
    )


def output_request(response_size: int, payload_size: int) -> M.StreamingOutputCallRequest:
    return M.StreamingOutputCallRequest(
        response_type=M.COMPRESSABLE,
        response_parameters=[M.ResponseParameters(size=response_size)],
        payload=zeros(payload_size),
    )


_IMPLEMENTED: list[str] = []


def case(method: Callable[..., None]) -> Callable[..., None]:
    """Marks a Cases method as the interop case of the same name (in definition order)."""
    _IMPLEMENTED.append(method.__name__)
    return method


class Cases:
    """The interop cases (the @case methods); each raises CaseFailed/CaseSkipped or returns."""

    def __init__(self, make_channel: Callable[[], grpc.Channel], soak_iterations: int) -> None:
        self._make_channel = make_channel
        self._channel = make_channel()
        self.stub = Stub(self._channel)
        self._soak_iterations = soak_iterations

    def close(self) -> None:
        self._channel.close()

    @case
    def empty_unary(self) -> None:
        response = self.stub.empty_call(Empty(), timeout=RPC_TIMEOUT_S)
        check(response.message == Empty(), "response is not an empty Empty")

    @case
    def large_unary(self, stub: Optional[Stub] = None) -> None:
        response = (stub or self.stub).unary_call(large_request(), timeout=RPC_TIMEOUT_S)
        check_payload(response.message.payload, 314159)

    @case
    def client_compressed_unary(self) -> None:
        request = large_request()
        request.expect_compressed.value = True
        expect_status(
            lambda: self.stub.unary_call(request, timeout=RPC_TIMEOUT_S),
            grpc.StatusCode.INVALID_ARGUMENT,
            "probe (expect_compressed=true sent uncompressed)",
        )
        response = self.stub.unary_call(
            request, timeout=RPC_TIMEOUT_S, compression=grpc.Compression.Gzip
        )
        check_payload(response.message.payload, 314159, "compressed request's response")
        request.expect_compressed.value = False
        response = self.stub.unary_call(request, timeout=RPC_TIMEOUT_S)
        check_payload(response.message.payload, 314159, "uncompressed request's response")

    @case
    def server_compressed_unary(self) -> None:
        for compressed in (True, False):
            request = large_request()
            request.response_compressed.value = compressed
            response = self.stub.unary_call(request, timeout=RPC_TIMEOUT_S)
            check_payload(response.message.payload, 314159)
            check(
                response.compressed == compressed,
                f"response_compressed={compressed} but the response arrived "
                f"{'compressed' if response.compressed else 'uncompressed'}",
            )

    @case
    def client_streaming(self) -> None:
        requests = [M.StreamingInputCallRequest(payload=zeros(n)) for n in (27182, 8, 1828, 45904)]
        response = self.stub.streaming_input_call(iter(requests), timeout=RPC_TIMEOUT_S)
        got = response.message.aggregated_payload_size
        check(got == 74922, f"aggregated_payload_size {got}, want 74922")

    @case
    def client_compressed_streaming(self) -> None:
        raise CaseSkipped(
            "grpcio's client API compresses a whole call or none of it; it cannot clear the "
            "compressed flag of one message in a compressed stream (the case needs 27182 bytes "
            "compressed, then 45904 bytes uncompressed on the same stream)"
        )

    @case
    def server_streaming(self) -> None:
        sizes = (31415, 9, 2653, 58979)
        request = M.StreamingOutputCallRequest(
            response_type=M.COMPRESSABLE,
            response_parameters=[M.ResponseParameters(size=n) for n in sizes],
        )
        responses = list(self.stub.streaming_output_call(request, timeout=RPC_TIMEOUT_S))
        check(len(responses) == len(sizes), f"{len(responses)} responses, want {len(sizes)}")
        for index, (response, size) in enumerate(zip(responses, sizes)):
            check_payload(response.message.payload, size, f"response {index}")

    @case
    def server_compressed_streaming(self) -> None:
        request = M.StreamingOutputCallRequest(
            response_type=M.COMPRESSABLE,
            response_parameters=[
                M.ResponseParameters(size=31415, compressed=M.BoolValue(value=True)),
                M.ResponseParameters(size=92653, compressed=M.BoolValue(value=False)),
            ],
        )
        responses = list(self.stub.streaming_output_call(request, timeout=RPC_TIMEOUT_S))
        check(len(responses) == 2, f"{len(responses)} responses, want 2")
        check_payload(responses[0].message.payload, 31415, "response 0")
        check_payload(responses[1].message.payload, 92653, "response 1")
        check(responses[0].compressed, "response 0 asked compressed=true but arrived uncompressed")
        check(not responses[1].compressed, "response 1 asked compressed=false but was compressed")

    @case
    def ping_pong(self) -> None:
        feed = Feed()
        call = self.stub.full_duplex_call(iter(feed), timeout=RPC_TIMEOUT_S)
        try:
            rounds = ((31415, 27182), (9, 8), (2653, 1828), (58979, 45904))
            for response_size, payload_size in rounds:
                feed.put(output_request(response_size, payload_size))
                response = next(call)
                check_payload(response.message.payload, response_size)
            feed.close()
            extra = list(call)
            check(not extra, f"{len(extra)} responses after the last round, want none")
            check(call.code() == grpc.StatusCode.OK, f"call ended {call.code().name}, want OK")
        finally:
            feed.close()
            call.cancel()

    @case
    def empty_stream(self) -> None:
        call = self.stub.full_duplex_call(iter(()), timeout=RPC_TIMEOUT_S)
        responses = list(call)
        check(not responses, f"{len(responses)} responses, want none")
        check(call.code() == grpc.StatusCode.OK, f"call ended {call.code().name}, want OK")

    @case
    def custom_metadata(self) -> None:
        metadata = ((ECHO_INITIAL, INITIAL_VALUE), (ECHO_TRAILING, TRAILING_VALUE))

        def check_echo(call, what: str) -> None:
            initial = [v for k, v in call.initial_metadata() or () if k == ECHO_INITIAL]
            trailing = [v for k, v in call.trailing_metadata() or () if k == ECHO_TRAILING]
            check(initial == [INITIAL_VALUE], f"{what}: echoed initial metadata {initial}")
            check(trailing == [TRAILING_VALUE], f"{what}: echoed trailing metadata {trailing}")

        response, call = self.stub.unary_call.with_call(
            large_request(), metadata=metadata, timeout=RPC_TIMEOUT_S
        )
        check_payload(response.message.payload, 314159, "unary response")
        check_echo(call, "UnaryCall")

        stream = self.stub.full_duplex_call(
            iter([output_request(314159, 271828)]), metadata=metadata, timeout=RPC_TIMEOUT_S
        )
        responses = list(stream)
        check(len(responses) == 1, f"FullDuplexCall: {len(responses)} responses, want 1")
        check_payload(responses[0].message.payload, 314159, "streaming response")
        check_echo(stream, "FullDuplexCall")

    def _status_round_trip(self, message: str, with_stream: bool) -> None:
        status = M.EchoStatus(code=2, message=message)

        def check_error(error: grpc.RpcError, what: str) -> None:
            check(
                error.details() == message,
                f"{what}: status message {error.details()!r}, want {message!r}",
            )

        unary = M.SimpleRequest(response_status=status)
        error = expect_status(
            lambda: self.stub.unary_call(unary, timeout=RPC_TIMEOUT_S),
            grpc.StatusCode.UNKNOWN,
            "UnaryCall",
        )
        check_error(error, "UnaryCall")
        if with_stream:
            stream = M.StreamingOutputCallRequest(response_status=status)
            error = expect_status(
                lambda: list(self.stub.full_duplex_call(iter([stream]), timeout=RPC_TIMEOUT_S)),
                grpc.StatusCode.UNKNOWN,
                "FullDuplexCall",
            )
            check_error(error, "FullDuplexCall")

    @case
    def status_code_and_message(self) -> None:
        self._status_round_trip("test status message", with_stream=True)

    @case
    def special_status_message(self) -> None:
        self._status_round_trip(SPECIAL_MESSAGE, with_stream=False)

    @case
    def unimplemented_method(self) -> None:
        expect_status(
            lambda: self.stub.unimplemented_call(Empty(), timeout=RPC_TIMEOUT_S),
            grpc.StatusCode.UNIMPLEMENTED,
            "TestService/UnimplementedCall",
        )

    @case
    def unimplemented_service(self) -> None:
        expect_status(
            lambda: self.stub.unimplemented_service_call(Empty(), timeout=RPC_TIMEOUT_S),
            grpc.StatusCode.UNIMPLEMENTED,
            "UnimplementedService/UnimplementedCall",
        )

    @case
    def cancel_after_begin(self) -> None:
        feed = Feed()
        future = self.stub.streaming_input_call.future(iter(feed), timeout=RPC_TIMEOUT_S)
        try:
            future.cancel()
            expect_status(future.result, grpc.StatusCode.CANCELLED, "after cancel")
        except grpc.FutureCancelledError:
            check(future.cancelled(), "result() said cancelled but the future is not")
        finally:
            feed.close()
        check(future.code() == grpc.StatusCode.CANCELLED, f"call ended {future.code().name}")

    @case
    def cancel_after_first_response(self) -> None:
        feed = Feed()
        call = self.stub.full_duplex_call(iter(feed), timeout=RPC_TIMEOUT_S)
        try:
            feed.put(output_request(31415, 27182))
            response = next(call)
            check_payload(response.message.payload, 31415)
            call.cancel()
            expect_status(lambda: next(call), grpc.StatusCode.CANCELLED, "after cancel")
        finally:
            feed.close()
        check(call.code() == grpc.StatusCode.CANCELLED, f"call ended {call.code().name}")

    @case
    def timeout_on_sleeping_server(self) -> None:
        feed = Feed()
        call = self.stub.full_duplex_call(iter(feed), timeout=0.001)
        try:
            request = M.StreamingOutputCallRequest(payload=zeros(27182))
            feed.put(request)
            expect_status(lambda: list(call), grpc.StatusCode.DEADLINE_EXCEEDED, "1 ms deadline")
        finally:
            feed.close()

    @case
    def very_large_request(self) -> None:
        # The largest request that fits the default 4 MiB limit: body plus field framing is
        # 4194288 + 12 bytes (two tags, two 4-byte lengths, response_size) = 4194300.
        request = M.SimpleRequest(
            response_type=M.COMPRESSABLE, response_size=10, payload=zeros(4194288)
        )
        check(request.ByteSize() <= 4 * 1024 * 1024, f"request is {request.ByteSize()} bytes")
        response = self.stub.unary_call(request, timeout=RPC_TIMEOUT_S)
        check_payload(response.message.payload, 10)

    @case
    def rpc_soak(self) -> None:
        for iteration in range(self._soak_iterations):
            try:
                self.large_unary()
            except (CaseFailed, grpc.RpcError) as error:
                raise CaseFailed(f"iteration {iteration}: {describe(error)}") from error

    @case
    def channel_soak(self) -> None:
        for iteration in range(self._soak_iterations):
            channel = self._make_channel()
            try:
                self.large_unary(Stub(channel))
            except (CaseFailed, grpc.RpcError) as error:
                raise CaseFailed(f"iteration {iteration}: {describe(error)}") from error
            finally:
                channel.close()


# The cases this client implements, in the order --test_case=all runs them. Which cases the interop
# matrix runs is Tern's interop client's list (InteropCases.ALL), not this one.
ALL_CASES = tuple(_IMPLEMENTED)


def describe(error: BaseException) -> str:
    if isinstance(error, grpc.RpcError) and hasattr(error, "code"):
        return f"RPC failed with {error.code().name}: {error.details()!r}"
    return str(error) or type(error).__name__


def channel_factory(args: argparse.Namespace) -> Callable[[], grpc.Channel]:
    target = f"{args.server_host}:{args.server_port}"
    options = [NO_DECOMPRESSION]
    if not args.use_tls:
        return lambda: grpc.insecure_channel(target, options=options)
    roots = read_cert(args.certs_dir or default_certs_dir(), "ca.pem") if args.use_test_ca else None
    credentials = grpc.ssl_channel_credentials(root_certificates=roots)
    if args.server_host_override:
        options.append(("grpc.ssl_target_name_override", args.server_host_override))
    return lambda: grpc.secure_channel(target, credentials, options=options)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server_host", default="127.0.0.1")
    parser.add_argument("--server_port", type=int)
    parser.add_argument("--test_case", default="all")
    parser.add_argument("--use_tls", type=parse_bool, default=False)
    parser.add_argument("--use_test_ca", type=parse_bool, default=False)
    parser.add_argument("--server_host_override", default="")
    parser.add_argument("--soak_iterations", type=int, default=10)
    parser.add_argument("--certs_dir", type=Path)
    parser.add_argument("--list_test_cases", type=parse_bool, default=False)
    args = parser.parse_args(argv)
    if args.list_test_cases:
        print("\n".join(ALL_CASES))
        return 0
    if args.server_port is None:
        parser.error("--server_port is required")
    if not 0 < args.server_port < 65536:
        parser.error(f"--server_port must be between 1 and 65535, got {args.server_port}")
    if args.soak_iterations < 1:
        parser.error(f"--soak_iterations must be at least 1, got {args.soak_iterations}")
    names = ALL_CASES if args.test_case == "all" else tuple(args.test_case.split(","))
    unknown = [name for name in names if name not in ALL_CASES]
    if unknown:
        parser.error(
            f"unknown --test_case {', '.join(unknown)}; known: all, {', '.join(ALL_CASES)}"
        )

    cases = Cases(channel_factory(args), args.soak_iterations)
    failed = 0
    try:
        for name in names:
            try:
                getattr(cases, name)()
                print(f"PASS {name}", flush=True)
            except CaseSkipped as skip:
                print(f"SKIP {name}: {skip}", flush=True)
            except (CaseFailed, grpc.RpcError) as error:
                failed += 1
                print(f"FAIL {name}: {describe(error)}", flush=True)
            except Exception as error:  # a bug in a case must not hide the other cases
                failed += 1
                print(f"FAIL {name}: {type(error).__name__}: {error}", flush=True)
    finally:
        cases.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
