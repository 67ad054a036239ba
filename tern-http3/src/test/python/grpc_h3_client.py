"""A gRPC client over HTTP/3 written on aioquic, independent of Tern, for Tern's interop server.

aioquic brings QUIC, TLS 1.3 and HTTP/3 frames with QPACK (pylsqpack); gRPC itself is done here by
hand: the request headers, length-prefixed messages, trailers in the final HEADERS frame (or
Trailers-Only), grpc-status and the percent-encoded grpc-message. The messages of
grpc.testing.TestService are encoded and decoded by hand too (a few protobuf fields), so nothing
here shares code with Tern or with any gRPC library.

Usage: grpc_h3_client.py --port=N [--host=127.0.0.1] [--ca=ca.pem]
       [--server_host_override=foo.test.google.fr] [--test_case=all|name,name]
Prints "PASS name" or "FAIL name: why" per case; exits 1 if any failed.
"""

import argparse
import asyncio
import base64
import gzip
import ssl
import sys
import urllib.parse

from aioquic.asyncio import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import StreamReset

SERVICE = "/grpc.testing.TestService/"


# ---- protobuf, by hand: varints and length-delimited fields


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field_varint(number, value):
    return varint(number << 3) + varint(value)


def field_bytes(number, data):
    return varint((number << 3) | 2) + varint(len(data)) + data


def parse_fields(data):
    """The fields of a message as {number: [value, ...]} (varints as ints, the rest as bytes)."""
    fields = {}
    i = 0
    while i < len(data):
        key, i = read_varint(data, i)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value, i = read_varint(data, i)
        elif wire_type == 2:
            length, i = read_varint(data, i)
            value, i = data[i : i + length], i + length
        else:
            raise ValueError(f"wire type {wire_type} not expected")
        fields.setdefault(number, []).append(value)
    return fields


def read_varint(data, i):
    value, shift = 0, 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, i
        shift += 7


def simple_request(response_size=0, payload_size=0, status=None):
    """grpc.testing.SimpleRequest: response_size (2), payload (3), response_status (7)."""
    out = b""
    if response_size:
        out += field_varint(2, response_size)
    if payload_size:
        out += field_bytes(3, field_bytes(2, bytes(payload_size)))
    if status is not None:
        code, message = status
        out += field_bytes(7, field_varint(1, code) + field_bytes(2, message.encode()))
    return out


def response_payload_size(message):
    """The length of SimpleResponse.payload.body."""
    payload = parse_fields(message).get(1, [b""])[0]
    return len(parse_fields(payload).get(2, [b""])[0])


# ---- gRPC over HTTP/3


class Response:
    def __init__(self):
        self.blocks = []  # header blocks, in order: headers then trailers, or one (Trailers-Only)
        self.data = b""
        self.reset = None  # the error code of a RESET_STREAM
        self.data_arrived = asyncio.Event()
        self.headers_arrived = asyncio.Event()
        self.done = asyncio.get_running_loop().create_future()

    def finish(self):
        if not self.done.done():
            self.done.set_result(None)

    @property
    def headers(self):
        return dict(self.blocks[0]) if self.blocks else {}

    @property
    def trailers(self):
        return dict(self.blocks[-1]) if self.blocks else {}

    def messages(self, flags=None):
        out, i = [], 0
        while i < len(self.data):
            flag, length = self.data[i], int.from_bytes(self.data[i + 1 : i + 5], "big")
            message = self.data[i + 5 : i + 5 + length]
            if flags is not None:
                flags.append(flag)
            if flag == 1 and self.headers.get(b"grpc-encoding") == b"gzip":
                message = gzip.decompress(message)
            elif flag != 0:
                raise ValueError(f"compressed flag {flag} with {self.headers}")
            out.append(message)
            i += 5 + length
        if i != len(self.data):
            raise ValueError("response ends inside a message")
        return out

    def status(self):
        trailers = self.trailers
        code = int(trailers.get(b"grpc-status", b"-1"))
        message = urllib.parse.unquote_to_bytes(trailers.get(b"grpc-message", b"")).decode()
        return code, message


class GrpcH3(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.h3 = H3Connection(self._quic)
        self.responses = {}

    def quic_event_received(self, event):
        if isinstance(event, StreamReset) and event.stream_id in self.responses:
            response = self.responses[event.stream_id]
            response.reset = event.error_code
            response.finish()
        for h3_event in self.h3.handle_event(event):
            response = self.responses.get(h3_event.stream_id)
            if response is None:
                continue
            if isinstance(h3_event, HeadersReceived):
                response.blocks.append(h3_event.headers)
                response.headers_arrived.set()
            elif isinstance(h3_event, DataReceived):
                response.data += h3_event.data
                if h3_event.data:
                    response.data_arrived.set()
            if h3_event.stream_ended:
                response.finish()

    def open(self, method, metadata=(), timeout=None):
        """Sends a call's request headers; returns its stream id and Response."""
        stream_id = self._quic.get_next_available_stream_id()
        headers = [
            (b":method", b"POST"),
            (b":scheme", b"https"),
            (b":authority", self.authority.encode()),
            (b":path", (SERVICE + method if method[0] != "/" else method).encode()),
            (b"content-type", b"application/grpc"),
            (b"te", b"trailers"),
        ]
        if timeout:
            headers.append((b"grpc-timeout", timeout.encode()))
        headers.extend(metadata)
        response = Response()
        self.responses[stream_id] = response
        self.h3.send_headers(stream_id, headers)
        self.transmit()
        return stream_id, response

    def send(self, stream_id, messages, end_stream=True, compressed=False):
        """Sends length-prefixed messages (gzip-compressed and flagged with compressed)."""
        framed = b""
        for message in messages:
            body = gzip.compress(message) if compressed else message
            framed += bytes([1 if compressed else 0]) + len(body).to_bytes(4, "big") + body
        self.h3.send_data(stream_id, framed, end_stream=end_stream)
        self.transmit()

    def cancel(self, stream_id):
        """Resets the request stream with H3_REQUEST_CANCELLED, as a cancelled call does."""
        self._quic.reset_stream(stream_id, 0x10C)
        self._quic.stop_stream(stream_id, 0x10C)
        self.transmit()

    async def call(self, method, message, metadata=(), timeout=None, end_stream=True):
        """A call of one request message; returns its whole Response."""
        stream_id, response = self.open(method, metadata, timeout)
        self.send(stream_id, [message], end_stream)
        await asyncio.wait_for(response.done, 20)
        return response

    async def call_many(self, method, messages, metadata=(), compressed=False):
        """A call of several request messages; returns its whole Response."""
        stream_id, response = self.open(method, metadata)
        self.send(stream_id, messages, True, compressed)
        await asyncio.wait_for(response.done, 20)
        return response


# ---- the interop cases (each raises AssertionError with what differed)


def expect(condition, what):
    if not condition:
        raise AssertionError(what)


async def empty_unary(client):
    response = await client.call("EmptyCall", b"")
    expect(response.status() == (0, ""), f"status {response.status()}")
    expect(response.messages() == [b""], f"messages {response.messages()}")
    expect(response.headers.get(b":status") == b"200", f"headers {response.headers}")


async def large_unary(client):
    response = await client.call("UnaryCall", simple_request(314159, 271828))
    expect(response.status() == (0, ""), f"status {response.status()}")
    messages = response.messages()
    expect(len(messages) == 1, f"{len(messages)} messages")
    expect(response_payload_size(messages[0]) == 314159, "payload size")


async def custom_metadata(client):
    trailing = b"\xab\xab\xab"
    metadata = [
        (b"x-grpc-test-echo-initial", b"test_initial_metadata_value"),
        (b"x-grpc-test-echo-trailing-bin", base64.b64encode(trailing)),
    ]
    response = await client.call("UnaryCall", simple_request(314159, 271828), metadata)
    expect(response.status() == (0, ""), f"status {response.status()}")
    initial = response.headers.get(b"x-grpc-test-echo-initial")
    expect(initial == b"test_initial_metadata_value", f"initial metadata {initial}")
    echoed = response.trailers.get(b"x-grpc-test-echo-trailing-bin", b"")
    decoded = base64.b64decode(echoed + b"=" * (-len(echoed) % 4))
    expect(decoded == trailing, f"trailing metadata {echoed}")


async def status_code_and_message(client):
    message = "test status message"
    response = await client.call("UnaryCall", simple_request(status=(2, message)))
    expect(response.status() == (2, message), f"status {response.status()}")


async def special_status_message(client):
    message = "\t\ntest with whitespace\r\nand Unicode BMP \u263a and non-BMP \U0001f608\t\n"
    response = await client.call("UnaryCall", simple_request(status=(2, message)))
    expect(response.status() == (2, message), f"status {response.status()}")


async def unimplemented_method(client):
    response = await client.call("UnimplementedCall", b"")
    expect(response.status()[0] == 12, f"status {response.status()}")


async def unimplemented_service(client):
    response = await client.call("/grpc.testing.UnimplementedService/UnimplementedCall", b"")
    expect(response.status()[0] == 12, f"status {response.status()}")


async def timeout_on_sleeping_server(client):
    # A bidirectional call that the client leaves open: the server ends it at its deadline.
    request = field_bytes(3, field_bytes(2, bytes(27182)))  # StreamingOutputCallRequest.payload
    response = await client.call("FullDuplexCall", request, timeout="1m", end_stream=False)
    expect(response.status()[0] == 4, f"status {response.status()}, reset {response.reset}")


async def oversized_metadata(client):
    # Request metadata beyond the server's 8 KiB limit: HTTP 431 and RESOURCE_EXHAUSTED.
    metadata = [(b"x-big", b"a" * 9000)]
    response = await client.call("EmptyCall", b"", metadata)
    expect(response.headers.get(b":status") == b"431", f"headers {response.headers}")
    expect(response.status()[0] == 8, f"status {response.status()}")


async def client_compressed_unary(client):
    # expect_compressed (8): the server checks the request message arrived compressed.
    request = field_bytes(8, field_varint(1, 1)) + simple_request(314159, 271828)
    metadata = [(b"grpc-encoding", b"gzip")]
    response = await client.call_many("UnaryCall", [request], metadata, compressed=True)
    expect(response.status() == (0, ""), f"status {response.status()}")
    expect(response_payload_size(response.messages()[0]) == 314159, "payload size")


async def server_compressed_unary(client):
    # response_compressed (6): the server compresses its response with the encoding offered.
    request = field_bytes(6, field_varint(1, 1)) + simple_request(314159, 271828)
    metadata = [(b"grpc-accept-encoding", b"gzip")]
    response = await client.call("UnaryCall", request, metadata)
    expect(response.status() == (0, ""), f"status {response.status()}")
    flags = []
    messages = response.messages(flags)
    expect(flags == [1], f"message flags {flags}, encoding {response.headers}")
    expect(response_payload_size(messages[0]) == 314159, "payload size")


async def client_streaming(client):
    sizes = [27182, 8, 1828, 45904]
    requests = [field_bytes(1, field_bytes(2, bytes(n))) for n in sizes]
    response = await client.call_many("StreamingInputCall", requests)
    expect(response.status() == (0, ""), f"status {response.status()}")
    aggregated = parse_fields(response.messages()[0]).get(1, [0])[0]
    expect(aggregated == sum(sizes), f"aggregated_payload_size {aggregated}")


def streaming_output_request(sizes):
    """StreamingOutputCallRequest: one response_parameters (2) {size (1)} per size."""
    return b"".join(field_bytes(2, field_varint(1, n)) for n in sizes)


async def server_streaming(client):
    sizes = [31415, 9, 2653, 58979]
    response = await client.call("StreamingOutputCall", streaming_output_request(sizes))
    expect(response.status() == (0, ""), f"status {response.status()}")
    got = [response_payload_size(m) for m in response.messages()]
    expect(got == sizes, f"payload sizes {got}")


async def half_duplex(client):
    # FullDuplexCall with every request sent before any response is read.
    sizes = [31415, 9, 2653, 58979]
    requests = [streaming_output_request([n]) for n in sizes]
    response = await client.call_many("FullDuplexCall", requests)
    expect(response.status() == (0, ""), f"status {response.status()}")
    got = [response_payload_size(m) for m in response.messages()]
    expect(got == sizes, f"payload sizes {got}")


async def cancel_after_begin(client):
    # A client-streaming call reset before its first message (the server may see the call or not,
    # as the reset can overtake its headers); the connection serves the next call.
    stream_id, response = client.open("StreamingInputCall")
    client.cancel(stream_id)
    after = await client.call("EmptyCall", b"")
    expect(after.status() == (0, ""), f"a call after the reset: {after.status()}")


async def cancel_after_first_response(client):
    # A bidirectional call reset once its first response has arrived, so the server surely has the
    # call: the server's call is cancelled (checked by tern-http3's Http3CancelTest).
    stream_id, response = client.open("FullDuplexCall")
    client.send(stream_id, [streaming_output_request([31415])], end_stream=False)
    await asyncio.wait_for(response.data_arrived.wait(), 20)
    client.cancel(stream_id)
    after = await client.call("EmptyCall", b"")
    expect(after.status() == (0, ""), f"a call after the reset: {after.status()}")


async def cancel_after_request(client):
    # A client-streaming call reset after its whole request, once the server answered with headers
    # only (so it had read the request's FIN): QUIC lets the server ignore a RESET_STREAM after FIN,
    # yet its call is cancelled (checked by tern-http3's Http3CancelTest, whose StreamingInputCall
    # answers headers and nothing more; not among "all", which the interop servers run).
    stream_id, response = client.open("StreamingInputCall")
    client.send(stream_id, [b""], end_stream=True)
    await asyncio.wait_for(response.headers_arrived.wait(), 20)
    client.cancel(stream_id)
    after = await client.call("EmptyCall", b"")
    expect(after.status() == (0, ""), f"a call after the reset: {after.status()}")


CASES = {
    f.__name__: f
    for f in (
        empty_unary,
        large_unary,
        custom_metadata,
        status_code_and_message,
        special_status_message,
        unimplemented_method,
        unimplemented_service,
        timeout_on_sleeping_server,
        oversized_metadata,
        client_compressed_unary,
        server_compressed_unary,
        client_streaming,
        server_streaming,
        half_duplex,
        cancel_after_begin,
        cancel_after_first_response,
    )
}


async def run(args):
    configuration = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN)
    if args.ca:
        configuration.load_verify_locations(args.ca)
    else:
        configuration.verify_mode = ssl.CERT_NONE
    configuration.server_name = args.server_host_override or args.host
    names = list(CASES) if args.test_case == "all" else args.test_case.split(",")
    cases = {**CASES, "cancel_after_request": cancel_after_request}
    failed = 0
    async with connect(
        args.host, args.port, configuration=configuration, create_protocol=GrpcH3
    ) as client:
        client.authority = f"{configuration.server_name}:{args.port}"
        for name in names:
            try:
                await cases[name](client)
                print(f"PASS {name}", flush=True)
            except Exception as e:  # noqa: BLE001 - every failure is reported, then the next case
                failed += 1
                print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ca", help="PEM roots to trust (default: no certificate check)")
    parser.add_argument("--server_host_override", help="the TLS server name and :authority host")
    parser.add_argument("--test_case", default="all", help="all, or names separated by commas")
    sys.exit(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()
