"""grpc.testing.TestService interop server on grpcio (gRPC C-core), a foreign peer for Tern.

Usage: interop_server.py --port=N [--use_tls=true|false] [--bind_host=127.0.0.1] [--certs_dir=D]

Behaviour follows "Server behaviour" of gRPC's interop test descriptions: zero-filled payloads of
the requested size, metadata echo, response_status, per-message compression both ways (see
interop_protos for how the compressed flag of a request is observed), interval_us.
TestService/UnimplementedCall is left unimplemented and UnimplementedService is not registered, so
both answer UNIMPLEMENTED.

Threading: grpcio runs each call's handler on a worker of the thread pool; handlers share no
mutable state, so the servicer needs no locking.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from concurrent import futures
from pathlib import Path
from typing import Iterable, Iterator, Optional

import grpc

from interop_protos import (
    NO_DECOMPRESSION,
    SERVICE,
    STATUS_BY_CODE,
    Decoded,
    Empty,
    M,
    decoder,
    default_certs_dir,
    method_path,
    parse_bool,
    read_cert,
    serializer,
)

ECHO_INITIAL = "x-grpc-test-echo-initial"
ECHO_TRAILING = "x-grpc-test-echo-trailing-bin"
MAX_PAYLOAD = 64 * 1024 * 1024
# grpc-java's very_large_request client sends a 10 MiB payload (10485772-byte message), more than
# the 4 MiB default; its own interop server accepts it, so this one raises the limit the same way.
MAX_REQUEST_BYTES = 16 * 1024 * 1024


def _payload(size: int, context: grpc.ServicerContext) -> M.Payload:
    if size < 0 or size > MAX_PAYLOAD:
        context.abort(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"response size must be between 0 and {MAX_PAYLOAD}, got {size}",
        )
    return M.Payload(type=M.COMPRESSABLE, body=bytes(size))


def _check_response_type(response_type: int, context: grpc.ServicerContext) -> None:
    if response_type != M.COMPRESSABLE:
        context.abort(
            grpc.StatusCode.INVALID_ARGUMENT, f"unsupported response_type {response_type}"
        )


def _echo_metadata(context: grpc.ServicerContext) -> None:
    """Echoes the test headers; must run after set_compression (headers carry the encoding)."""
    initial = None
    trailing = None
    for key, value in context.invocation_metadata():
        if key == ECHO_INITIAL:
            initial = value
        elif key == ECHO_TRAILING:
            trailing = value
    if initial is not None:
        context.send_initial_metadata(((ECHO_INITIAL, initial),))
    if trailing is not None:
        context.set_trailing_metadata(((ECHO_TRAILING, trailing),))


def _check_compression(
    expect: Optional[M.BoolValue], request: Decoded, context: grpc.ServicerContext
) -> None:
    if expect is None:
        return
    if expect.value and not request.compressed:
        context.abort(
            grpc.StatusCode.INVALID_ARGUMENT,
            "expect_compressed is true but the request message arrived uncompressed",
        )
    if not expect.value and request.compressed:
        context.abort(
            grpc.StatusCode.INVALID_ARGUMENT,
            "expect_compressed is false but the request message arrived compressed",
        )


def _end_with_requested_status(message, context: grpc.ServicerContext) -> None:
    if not message.HasField("response_status") or message.response_status.code == 0:
        return
    code = STATUS_BY_CODE.get(message.response_status.code)
    if code is None:
        context.abort(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"response_status.code {message.response_status.code} is not a gRPC status code",
        )
    context.abort(code, message.response_status.message)


def _optional(message, field: str) -> Optional[M.BoolValue]:
    return getattr(message, field) if message.HasField(field) else None


class TestService:
    """The servicer. Stateless: each handler only touches its own call."""

    def empty_call(self, request: Decoded, context: grpc.ServicerContext) -> Empty:
        _echo_metadata(context)
        return Empty()

    def unary_call(self, request: Decoded, context: grpc.ServicerContext) -> M.SimpleResponse:
        message = request.message
        compressed = _optional(message, "response_compressed")
        if compressed is not None and compressed.value:
            context.set_compression(grpc.Compression.Gzip)
        _echo_metadata(context)
        _check_compression(_optional(message, "expect_compressed"), request, context)
        _end_with_requested_status(message, context)
        _check_response_type(message.response_type, context)
        return M.SimpleResponse(payload=_payload(message.response_size, context))

    def streaming_output_call(
        self, request: Decoded, context: grpc.ServicerContext
    ) -> Iterator[M.StreamingOutputCallResponse]:
        message = request.message
        if any(p.compressed.value for p in message.response_parameters):
            context.set_compression(grpc.Compression.Gzip)
            compressing = True
        else:
            compressing = False
        _echo_metadata(context)
        yield from self._respond(message, context, compressing)

    def streaming_input_call(
        self, requests: Iterable[Decoded], context: grpc.ServicerContext
    ) -> M.StreamingInputCallResponse:
        _echo_metadata(context)
        total = 0
        for request in requests:
            _check_compression(_optional(request.message, "expect_compressed"), request, context)
            total += len(request.message.payload.body)
        return M.StreamingInputCallResponse(aggregated_payload_size=total)

    def full_duplex_call(
        self, requests: Iterable[Decoded], context: grpc.ServicerContext
    ) -> Iterator[M.StreamingOutputCallResponse]:
        # Which later responses want compression is unknown when headers go out, so the call
        # offers gzip and each message that should stay plain is sent with the flag cleared.
        context.set_compression(grpc.Compression.Gzip)
        _echo_metadata(context)
        for request in requests:
            yield from self._respond(request.message, context, compressing=True)

    def half_duplex_call(
        self, requests: Iterable[Decoded], context: grpc.ServicerContext
    ) -> Iterator[M.StreamingOutputCallResponse]:
        context.set_compression(grpc.Compression.Gzip)
        _echo_metadata(context)
        buffered = [request.message for request in requests]
        for message in buffered:
            yield from self._respond(message, context, compressing=True)

    def _respond(
        self, message, context: grpc.ServicerContext, compressing: bool
    ) -> Iterator[M.StreamingOutputCallResponse]:
        _end_with_requested_status(message, context)
        _check_response_type(message.response_type, context)
        for params in message.response_parameters:
            if params.interval_us > 0:
                time.sleep(params.interval_us / 1_000_000)
            response = M.StreamingOutputCallResponse(payload=_payload(params.size, context))
            if compressing and not params.compressed.value:
                context.disable_next_message_compression()
            yield response


def _handlers(service: TestService) -> grpc.GenericRpcHandler:
    simple = decoder(M.SimpleRequest)
    output = decoder(M.StreamingOutputCallRequest)
    methods = {
        "EmptyCall": grpc.unary_unary_rpc_method_handler(
            service.empty_call, decoder(Empty), serializer
        ),
        "UnaryCall": grpc.unary_unary_rpc_method_handler(service.unary_call, simple, serializer),
        # grpcio cannot serve GET requests; the cacheable variant behaves like UnaryCall.
        "CacheableUnaryCall": grpc.unary_unary_rpc_method_handler(
            service.unary_call, simple, serializer
        ),
        "StreamingOutputCall": grpc.unary_stream_rpc_method_handler(
            service.streaming_output_call, output, serializer
        ),
        "StreamingInputCall": grpc.stream_unary_rpc_method_handler(
            service.streaming_input_call, decoder(M.StreamingInputCallRequest), serializer
        ),
        "FullDuplexCall": grpc.stream_stream_rpc_method_handler(
            service.full_duplex_call, output, serializer
        ),
        "HalfDuplexCall": grpc.stream_stream_rpc_method_handler(
            service.half_duplex_call, output, serializer
        ),
        # UnimplementedCall is deliberately absent: grpcio answers it with UNIMPLEMENTED.
    }
    for name, handler in methods.items():  # fails fast if a name or kind drifts from test.proto
        method_path(SERVICE, name, handler.request_streaming, handler.response_streaming)
    return grpc.method_handlers_generic_handler(SERVICE, methods)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--use_tls", type=parse_bool, default=False)
    parser.add_argument("--bind_host", default="127.0.0.1")
    parser.add_argument("--certs_dir", type=Path)
    args = parser.parse_args(argv)
    if not 0 < args.port < 65536:
        parser.error(f"--port must be between 1 and 65535, got {args.port}")

    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=32, thread_name_prefix="interop"),
        options=[NO_DECOMPRESSION, ("grpc.max_receive_message_length", MAX_REQUEST_BYTES)],
    )
    server.add_generic_rpc_handlers((_handlers(TestService()),))
    address = f"{args.bind_host}:{args.port}"
    if args.use_tls:
        certs = args.certs_dir or default_certs_dir()
        credentials = grpc.ssl_server_credentials(
            [(read_cert(certs, "server1.key"), read_cert(certs, "server1.pem"))]
        )
        bound = server.add_secure_port(address, credentials)
    else:
        bound = server.add_insecure_port(address)
    if bound == 0:
        print(f"could not bind {address}", file=sys.stderr)
        return 1
    server.start()
    print(f"python interop server listening on {address} (tls={args.use_tls})", flush=True)

    stopped = threading.Event()

    def stop(signum, frame):  # noqa: ARG001 (signal handler signature)
        stopped.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    stopped.wait()
    server.stop(grace=1).wait()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
