"""A hostile HTTP/3 client on aioquic, for tern-http3's QuicHostilePeerTest.

aioquic's connection object is driven by hand past what a well-behaved client does: it is told the
server allows more streams than the server said, and bytes are written on its QPACK encoder stream
and request streams that its own encoder would never produce. Nothing here is Tern's.

Usage: quic_attacker.py --port=N --ca=ca.pem --attack=NAME [--host=127.0.0.1]
       [--server_host_override=localhost] [--streams=N]
Attacks:
  stream_flood     requests (HEADERS, no FIN, so none ends) on --streams bidirectional streams at
                   once, past the server's initial_max_streams_bidi
  qpack_capacity   Set Dynamic Table Capacity of 1 GiB on the encoder stream (the server allows 0)
  qpack_insert     Insert With Literal Name of a 4 MiB name (an entry far past the table's capacity)
  qpack_reference  a request whose field section refers to the dynamic table (Required Insert Count
                   1) that the server never allowed
  no_acks          a server-streaming request (grpc-timeout 3 s), then no ACK ever, while a
                   PING every 250 ms keeps the connection from going idle, for --wait seconds
Prints "CLOSED code=0xN after=Ss received=B reason=..." when the server closes the connection, or
"OPEN received=B" if it is still open after --wait seconds (B: response body bytes received); the
test judges them.
"""

import argparse
import asyncio
import sys
import time

from aioquic.asyncio import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ConnectionTerminated


def prefixed_int(first_bits, prefix_bits, value):
    """An HPACK/QPACK integer (RFC 7541 section 5.1) with an N-bit prefix after first_bits."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first_bits | value])
    out = bytearray([first_bits | limit])
    value -= limit
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def quic_varint(value):
    """A QUIC variable-length integer (RFC 9000 section 16)."""
    if value < 0x40:
        return bytes([value])
    if value < 0x4000:
        return (0x4000 | value).to_bytes(2, "big")
    if value < 0x40000000:
        return (0x80000000 | value).to_bytes(4, "big")
    return (0xC000000000000000 | value).to_bytes(8, "big")


class Attacker(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.h3 = H3Connection(self._quic)
        self.closed = asyncio.get_running_loop().create_future()
        self.received = 0  # bytes of response bodies (DATA frames) received

    def quic_event_received(self, event):
        if isinstance(event, ConnectionTerminated) and not self.closed.done():
            self.closed.set_result(event)
        for h3_event in self.h3.handle_event(event):
            if isinstance(h3_event, DataReceived):
                self.received += len(h3_event.data)

    def request_headers(self, authority, method="FullDuplexCall"):
        return [
            (b":method", b"POST"),
            (b":scheme", b"https"),
            (b":authority", authority.encode()),
            (b":path", b"/grpc.testing.TestService/" + method.encode()),
            (b"content-type", b"application/grpc"),
            (b"te", b"trailers"),
        ]

    def stream_flood(self, args, authority):
        # Tell aioquic the server allows many more streams than it said: it then opens them all.
        self._quic._remote_max_streams_bidi = max(self._quic._remote_max_streams_bidi, args.streams)
        for _ in range(args.streams):
            stream_id = self._quic.get_next_available_stream_id()
            self.h3.send_headers(stream_id, self.request_headers(authority), end_stream=False)

    def encoder_stream(self, data):
        self._quic.send_stream_data(self.h3._local_encoder_stream_id, data)

    def qpack_capacity(self, args, authority):
        self.encoder_stream(prefixed_int(0x20, 5, 1 << 30))

    def qpack_insert(self, args, authority):
        name = b"a" * (4 << 20)
        self.encoder_stream(prefixed_int(0x40, 5, len(name)) + name + prefixed_int(0, 7, 1) + b"b")

    def no_acks(self, args, authority):
        # From now on aioquic acknowledges nothing: its ACK frames are dropped as they are due.
        def drop_ack(builder, space, now):
            space.ack_at = None

        self._quic._write_ack_frame = drop_ack
        stream_id = self._quic.get_next_available_stream_id()
        headers = self.request_headers(authority, "StreamingOutputCall")
        self.h3.send_headers(stream_id, headers + [(b"grpc-timeout", b"3S")])
        self.h3.send_data(stream_id, bytes(5), end_stream=True)  # one empty message

    def qpack_reference(self, args, authority):
        # Encoded Required Insert Count 2 (entry 1 of a table), Delta Base 0, then an indexed field
        # line referring to the dynamic table (RFC 9204 sections 4.5.1 and 4.5.2).
        section = bytes([0x02, 0x00, 0x80])
        stream_id = self._quic.get_next_available_stream_id()
        frame = quic_varint(0x01) + quic_varint(len(section)) + section
        self._quic.send_stream_data(stream_id, frame, end_stream=False)


async def run(args):
    configuration = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN)
    configuration.load_verify_locations(args.ca)
    configuration.server_name = args.server_host_override
    async with connect(
        args.host, args.port, configuration=configuration, create_protocol=Attacker
    ) as client:
        # The server's SETTINGS and transport parameters first, so the attack is on a live
        # connection whose limits are known.
        await client.ping()
        started = time.monotonic()
        getattr(client, args.attack)(args, f"{args.server_host_override}:{args.port}")
        client.transmit()
        if args.attack == "no_acks":
            # Alive all along, so never idle: a PING (ack-eliciting) every 250 ms, no ACK ever.
            deadline = time.monotonic() + args.wait
            while time.monotonic() < deadline and not client.closed.done():
                client._quic.send_ping(0)
                client.transmit()
                await asyncio.sleep(0.25)
        try:
            wait = 0 if args.attack == "no_acks" else args.wait
            event = await asyncio.wait_for(asyncio.shield(client.closed), wait)
        except asyncio.TimeoutError:
            print(f"OPEN received={client.received}", flush=True)
            return 0
        print(
            f"CLOSED code=0x{event.error_code:x} after={time.monotonic() - started:.3f}s"
            f" received={client.received} reason={event.reason_phrase}",
            flush=True,
        )
        return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--server_host_override", default="localhost")
    parser.add_argument(
        "--attack",
        required=True,
        choices=["stream_flood", "qpack_capacity", "qpack_insert", "qpack_reference", "no_acks"],
    )
    parser.add_argument("--streams", type=int, default=64)
    parser.add_argument("--wait", type=float, default=20)
    sys.exit(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()
