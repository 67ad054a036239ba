"""A gRPC server over HTTP/3 written on aioquic, independent of Tern, for Tern's HTTP/3 client.

aioquic brings QUIC, TLS 1.3 and HTTP/3 frames with QPACK (pylsqpack); gRPC is done here by hand,
as in grpc_h3_client.py (whose protobuf helpers it uses): length-prefixed messages, response
headers, trailers in the final HEADERS frame, Trailers-Only for calls that fail before answering.
It serves the part of grpc.testing.TestService the interop cases below need:

  EmptyCall            empty_unary
  UnaryCall            large_unary, status_code_and_message, special_status_message,
                       custom_metadata (x-grpc-test-echo-initial and -trailing-bin echoed)
  StreamingOutputCall  server_streaming (one response per response_parameters entry)
  StreamingInputCall   client_streaming (the sum of the request payload sizes)
  FullDuplexCall       answered once the request has ended (half duplex): the FullDuplexCall
                       parts of custom_metadata, status_code_and_message, special_status_message
  anything else        UNIMPLEMENTED (unimplemented_method, unimplemented_service)

Usage: grpc_h3_server.py --cert=server.pem --key=server.key [--host=127.0.0.1] [--port=0]
Binds the UDP port on the host (0, the default: a free one the OS picks), prints
"LISTENING <port>", serves until killed.
"""

import argparse
import asyncio
import sys
import urllib.parse

from aioquic.asyncio import serve
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from grpc_h3_client import field_bytes, field_varint, parse_fields

SERVICE = b"/grpc.testing.TestService/"
UNIMPLEMENTED = 12


def payload(size):
    """grpc.testing.Payload with a body of {size} zero bytes (field 2)."""
    return field_bytes(2, bytes(size))


def frame(message):
    return b"\x00" + len(message).to_bytes(4, "big") + message


def unframe(data):
    """The messages of a request body (uncompressed only)."""
    messages = []
    i = 0
    while i + 5 <= len(data):
        if data[i] != 0:
            raise ValueError("compressed request messages are not supported here")
        length = int.from_bytes(data[i + 1 : i + 5], "big")
        messages.append(data[i + 5 : i + 5 + length])
        i += 5 + length
    return messages


class Call:
    def __init__(self, headers):
        self.headers = headers
        self.body = b""


class GrpcServerProtocol(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.h3 = None
        self.calls = {}

    def quic_event_received(self, event):
        if self.h3 is None:
            self.h3 = H3Connection(self._quic)
        for h3_event in self.h3.handle_event(event):
            if isinstance(h3_event, HeadersReceived) and h3_event.stream_id not in self.calls:
                self.calls[h3_event.stream_id] = Call(dict(h3_event.headers))
                if h3_event.stream_ended:
                    self.answer(h3_event.stream_id)
            elif isinstance(h3_event, DataReceived) and h3_event.stream_id in self.calls:
                self.calls[h3_event.stream_id].body += h3_event.data
                if h3_event.stream_ended:
                    self.answer(h3_event.stream_id)
            elif isinstance(h3_event, HeadersReceived) and h3_event.stream_ended:
                self.answer(h3_event.stream_id)  # request trailers end the request
        self.transmit()

    def answer(self, stream_id):
        call = self.calls.pop(stream_id)
        path = call.headers.get(b":path", b"")
        method = path[len(SERVICE) :] if path.startswith(SERVICE) else None
        try:
            requests = unframe(call.body)
            handler = {
                b"EmptyCall": self.empty_call,
                b"UnaryCall": self.unary_call,
                b"StreamingOutputCall": self.streaming_output_call,
                b"StreamingInputCall": self.streaming_input_call,
                b"FullDuplexCall": self.full_duplex_call,
            }.get(method)
            if handler is None:
                self.trailers_only(stream_id, UNIMPLEMENTED, "Method not found: " + path.decode())
                return
            handler(stream_id, call, requests)
        except ValueError as e:
            self.trailers_only(stream_id, 13, str(e))

    def respond(self, stream_id, messages, code=0, message="", headers=(), trailers=()):
        self.h3.send_headers(
            stream_id,
            [(b":status", b"200"), (b"content-type", b"application/grpc")] + list(headers),
        )
        for m in messages:
            self.h3.send_data(stream_id, frame(m), end_stream=False)
        self.h3.send_headers(stream_id, self.status_fields(code, message) + list(trailers), True)

    def trailers_only(self, stream_id, code, message):
        self.h3.send_headers(
            stream_id,
            [(b":status", b"200"), (b"content-type", b"application/grpc")]
            + self.status_fields(code, message),
            end_stream=True,
        )

    @staticmethod
    def status_fields(code, message):
        fields = [(b"grpc-status", str(code).encode())]
        if message:
            quoted = urllib.parse.quote(message.encode(), safe=" !\"#$&'()*+,-./:;<=>?@[\\]^_`{|}~")
            fields.append((b"grpc-message", quoted.encode()))
        return fields

    def empty_call(self, stream_id, call, requests):
        self.respond(stream_id, [b""])

    @staticmethod
    def echoed(call):
        """The echo metadata of custom_metadata: (response headers, trailers)."""
        headers = []
        trailers = []
        if b"x-grpc-test-echo-initial" in call.headers:
            headers.append((b"x-grpc-test-echo-initial", call.headers[b"x-grpc-test-echo-initial"]))
        if b"x-grpc-test-echo-trailing-bin" in call.headers:
            trailers.append(
                (b"x-grpc-test-echo-trailing-bin", call.headers[b"x-grpc-test-echo-trailing-bin"])
            )
        return headers, trailers

    @staticmethod
    def requested_status(request):
        """The (code, message) of a request's response_status (field 7), or None."""
        if 7 not in request:
            return None
        status = parse_fields(request[7][0])
        return status.get(1, [0])[0], status.get(2, [b""])[0].decode()

    def unary_call(self, stream_id, call, requests):
        request = parse_fields(requests[0]) if requests else {}
        headers, trailers = self.echoed(call)
        status = self.requested_status(request)
        if status is not None:
            self.respond(stream_id, [], status[0], status[1], headers, trailers)
            return
        size = request.get(2, [0])[0]
        self.respond(stream_id, [field_bytes(1, payload(size))], 0, "", headers, trailers)

    def full_duplex_call(self, stream_id, call, requests):
        headers, trailers = self.echoed(call)
        out = []
        for r in requests:
            request = parse_fields(r)
            status = self.requested_status(request)
            if status is not None:
                self.respond(stream_id, out, status[0], status[1], headers, trailers)
                return
            for parameters in request.get(2, []):
                out.append(field_bytes(1, payload(parse_fields(parameters).get(1, [0])[0])))
        self.respond(stream_id, out, 0, "", headers, trailers)

    def streaming_output_call(self, stream_id, call, requests):
        request = parse_fields(requests[0]) if requests else {}
        sizes = [parse_fields(p).get(1, [0])[0] for p in request.get(2, [])]
        self.respond(stream_id, [field_bytes(1, payload(s)) for s in sizes])

    def streaming_input_call(self, stream_id, call, requests):
        total = 0
        for r in requests:
            body = parse_fields(parse_fields(r).get(1, [b""])[0]).get(2, [b""])[0]
            total += len(body)
        self.respond(stream_id, [field_varint(1, total)])


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--port", type=int, default=0, help="UDP port (0: one the OS picks)")
    args = parser.parse_args()
    configuration = QuicConfiguration(alpn_protocols=H3_ALPN, is_client=False)
    configuration.load_cert_chain(args.cert, args.key)
    server = await serve(
        args.host, args.port, configuration=configuration, create_protocol=GrpcServerProtocol
    )
    port = server._transport.get_extra_info("sockname")[1]
    print(f"LISTENING {port}", flush=True)
    await asyncio.Future()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
