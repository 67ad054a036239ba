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

    def messages(self):
        out, i = [], 0
        while i < len(self.data):
            flag, length = self.data[i], int.from_bytes(self.data[i + 1 : i + 5], "big")
            if flag != 0:
                raise ValueError(f"compressed flag {flag}, none asked for")
            out.append(self.data[i + 5 : i + 5 + length])
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
            elif isinstance(h3_event, DataReceived):
                response.data += h3_event.data
            if h3_event.stream_ended:
                response.finish()

    async def call(self, method, message, metadata=(), timeout=None, end_stream=True):
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
        framed = b"\x00" + len(message).to_bytes(4, "big") + message
        self.h3.send_data(stream_id, framed, end_stream=end_stream)
        self.transmit()
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
    failed = 0
    async with connect(
        args.host, args.port, configuration=configuration, create_protocol=GrpcH3
    ) as client:
        client.authority = f"{configuration.server_name}:{args.port}"
        for name in names:
            try:
                await CASES[name](client)
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
