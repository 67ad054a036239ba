#!/usr/bin/env python3
"""Writes the hand-made seed inputs of Tern's Jazzer fuzz tests (docs/fuzzing.md).

Each seed goes to <module>/src/test/resources/<package>/<Class>Inputs/<method>/<name>, where
Jazzer reads it (regression mode replays it in every `mvn test`). The fuzz tests read their input
through Jazzer's FuzzedDataProvider, which takes integers and booleans from the END of the input
(the last byte first, as the most significant) and byte arrays from the front; `Fdp` below builds
inputs that way, so each seed spells out the values its test consumes, in the test's order.

Run it after changing what a fuzz test consumes: `tools/fuzz-seeds.py` (rewrites every seed).
"""

import gzip
import os
import struct
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Fdp:
    """An input for FuzzedDataProvider: values appended in the order the test consumes them."""

    def __init__(self):
        self.front = b""
        self.tail = []

    def int(self, value, lo, hi):
        """consumeInt(lo, hi): as many bytes as hi - lo needs, little-endian at the end.

        Jazzer keeps a raw value that already lies in [lo, hi] as it is (checked: consumeInt(1, 4)
        reads the byte 2 as 2, consumeInt(1, 16384) the bytes 0x1fff as 8191), so the raw bytes
        are the value itself.
        """
        assert lo <= value <= hi
        span = hi - lo
        size = 0
        while size < 8 and (span >> (8 * size)) > 0:
            size += 1
        self.tail.append(value.to_bytes(size, "little"))

    def bool(self, value):
        self.tail.append(bytes([1 if value else 0]))

    def long(self, value):
        self.tail.append((value & (2**64 - 1)).to_bytes(8, "little"))

    def bytes(self, data):
        self.front += data

    def build(self):
        return self.front + b"".join(reversed(self.tail))


def write(module, package, cls, method, name, data):
    path = os.path.join(
        ROOT, module, "src/test/resources", package.replace(".", "/"), cls + "Inputs", method
    )
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, name), "wb") as f:
        f.write(data)


def frame(flags, body):
    return bytes([flags]) + struct.pack(">I", len(body)) + body


def deframer_seeds():
    def seed(name, max_size, codec, chunks, payload, requests=None, end_first=False):
        f = Fdp()
        f.int(max_size, 0, 1 << 16)
        f.int(codec, 0, 2)  # identity, gzip, deflate
        f.int(len(chunks), 0, 8)
        requests = requests or [1] * (len(chunks) + 1)
        for size, request in zip(chunks, requests):
            f.int(size, 0, 64)
            f.int(request, 0, 3)
        f.int(requests[len(chunks)], 0, 3)
        f.bool(end_first)
        f.bytes(payload)
        write(
            "tern-core",
            "dev.tern.internal.wire",
            "MessageDeframerFuzzTest",
            "deliversWhatTheFramingHoldsOrFailsWithAClearStatus",
            name,
            f.build(),
        )

    hello = b"\x0a\x05hello"
    seed("two-messages-in-pieces", 1024, 0, [3, 7, 1], frame(0, hello) + frame(0, b""))
    seed(
        "gzip-messages",
        1024,
        1,
        [10],
        frame(1, gzip.compress(b"hello world", mtime=0)) + frame(0, hello),
        requests=[2, 0],
    )
    seed("deflate-message", 1024, 2, [], frame(1, zlib.compress(b"a" * 100)))
    seed("over-the-limit", 4, 0, [], frame(0, hello))
    seed("gzip-expands-over-the-limit", 64, 1, [], frame(1, gzip.compress(b"\0" * 1000, mtime=0)))
    seed("ends-mid-frame", 1024, 0, [2], frame(0, hello)[:-2], end_first=True)


def base64_seeds():
    def seed(name, data, offset=0, slack=0):
        f = Fdp()
        f.int(offset, 0, 3)
        f.int(slack, 0, 3)
        f.bytes(data)
        write(
            "tern-core",
            "dev.tern.internal.wire",
            "Base64CodecFuzzTest",
            "roundTripsAndRejectsGarbageWithIllegalArgumentException",
            name,
            f.build(),
        )

    seed("padded", b"AAECAw==", 1, 2)
    seed("unpadded", b"AAECAw", 0, 1)
    seed("one-quantum", b"YWJj")
    seed("binary-value", bytes(range(0, 256, 7)), 2, 3)


def grpc_message_seeds():
    def seed(name, data):
        write(
            "tern-core",
            "dev.tern.internal.wire",
            "GrpcMessageCodecFuzzTest",
            "encodingRoundTripsAndDecodingNeverThrows",
            name,
            data,
        )

    seed("escaped-utf8", b"R%C3%A9sum%C3%A9: 50%25 done")
    seed("plain", b"deadline exceeded after 1.2s")
    seed("utf16-text", "日本語 ✓ 100%".encode("utf-16-be"))


def grpc_timeout_seeds():
    def seed(name, header, nanos):
        f = Fdp()
        f.long(nanos)
        f.bytes(header.encode())
        write(
            "tern-core",
            "dev.tern.internal.wire",
            "GrpcTimeoutCodecFuzzTest",
            "decodeAcceptsExactlyTheGrammarAndEncodeRoundTrips",
            name,
            f.build(),
        )

    seed("millis", "100m", 1_500_000_000)
    seed("hours-max", "99999999H", 2**63 - 1)
    seed("nanos", "1n", 0)
    seed("seconds", "30S", 123_456_789_012)


def hpack_string(s):
    assert len(s) < 127, "one-byte length prefix only"
    return bytes([len(s)]) + s


def hpack_literal(name, value, indexed=False):
    """A literal field with a new name, without indexing or (indexed=True) added to the table."""
    return (b"\x40" if indexed else b"\x00") + hpack_string(name) + hpack_string(value)


def header_decoder_seeds():
    def seed(name, server, max_size, blocks):
        f = Fdp()
        f.bool(server)
        f.int(max_size, 1, 16 * 1024)
        f.int(len(blocks), 1, 4)
        for block in blocks[:-1]:
            f.int(len(block), 0, 256)
        f.bytes(b"".join(blocks))
        write(
            "tern-netty",
            "dev.tern.netty.internal.codec",
            "GrpcHttp2HeadersDecoderFuzzTest",
            "decodesIntoMetadataOrFailsWithAnHttp2Exception",
            name,
            f.build(),
        )

    request = (
        b"\x83"  # :method POST (static table entry 3)
        + b"\x86"  # :scheme http (static table entry 6)
        + hpack_literal(b":path", b"/pkg.Service/Method")
        + hpack_literal(b":authority", b"localhost:50051")
        + hpack_literal(b"content-type", b"application/grpc", indexed=True)
        + hpack_literal(b"te", b"trailers")
        + hpack_literal(b"grpc-timeout", b"100m")
        + hpack_literal(b"x-data-bin", b"AAEC,AQI=")
        + hpack_literal(b"x-ascii", b"value")
    )
    # The second request refers to content-type in the dynamic table (index 62).
    second = b"\x83\x86" + hpack_literal(b":path", b"/a/b") + b"\xbe"
    response = (
        b"\x88"  # :status 200 (static table entry 8)
        + hpack_literal(b"content-type", b"application/grpc")
        + hpack_literal(b"grpc-status", b"0")
        + hpack_literal(b"grpc-message", b"ok%20done")
        + hpack_literal(b"x-trace-bin", b"AAECAw")
    )
    seed("request", True, 8192, [request])
    seed("request-then-indexed", True, 8192, [request, second])
    seed("response", False, 8192, [response])
    seed("over-the-limit", True, 64, [request])
    # Values RFC 9113 calls malformed (NUL, CR, LF): once accepted into the metadata.
    malformed = b"\x83\x86" + hpack_literal(b":path", b"/a/b") + hpack_literal(b"x-v", b"a\0b")
    injected = b"\x88" + hpack_literal(b"x-v", b"a\r\nx-injected: 1")
    seed("value-with-nul", True, 8192, [malformed])
    seed("value-with-cr-lf", False, 8192, [injected])


def inbound_headers_seeds():
    names = ["x-data-bin", "x-ascii", "grpc-trace-bin", "x-other"]

    def seed(name, fields):
        f = Fdp()
        f.int(4, 0, 8)  # expected header count
        f.int(len(fields), 0, 8)
        for index, value in fields:
            f.int(index, 0, 3)
            f.int(1, 0, 3)  # separator bytes before the value's view
            f.int(2, 0, 3)  # and after it
            f.int(len(value), 0, 64)
            f.bytes(value)
            if names[index].endswith("-bin"):
                f.bool(False)  # the value as given, not re-encoded as valid base64
        write(
            "tern-netty",
            "dev.tern.netty.internal.codec",
            "GrpcInboundHeadersFuzzTest",
            "keepsAsciiValuesAndDecodesBinaryOnesElementByElement",
            name,
            f.build(),
        )

    seed(
        "ascii-and-binary",
        [(1, b"value"), (0, b"AAEC,AQI=,"), (2, b"AAECAw"), (3, b"x y z")],
    )
    seed("invalid-base64", [(0, b"A"), (1, b"v")])


class MetadataOps:
    """The operations MetadataFuzzTest runs, as its FuzzedDataProvider reads them."""

    def __init__(self):
        self.keys = 0
        self.count = 0
        self.steps = []

    def new_key(self, name, binary, valid=True):
        self.steps += [("int", 0, 0, 7), ("int", len(name), 0, 12), ("bytes", name)]
        self.steps.append(("bool", binary))
        self.keys += 1 if valid else 0
        self.count += 1

    def op(self, kind, key, extra=()):
        self.steps += [("int", kind, 0, 7), ("int", key, 0, self.keys - 1)]
        self.steps += list(extra)
        self.count += 1

    def put(self, key, value):
        self.op(1, key, [("int", len(value), 0, 16), ("bytes", value)])

    def build(self):
        f = Fdp()
        f.int(self.count, 0, 32)
        for step in self.steps:
            if step[0] == "int":
                f.int(*step[1:])
            elif step[0] == "bytes":
                f.bytes(step[1])
            else:
                f.bool(step[1])
        return f.build()


def metadata_seeds():
    def seed(name, ops):
        write(
            "tern-core",
            "dev.tern",
            "MetadataFuzzTest",
            "behavesLikeAListOfEntries",
            name,
            ops.build(),
        )

    ops = MetadataOps()
    ops.new_key(b"x-user-id", False)
    ops.new_key(b"Trace-BIN", True)
    ops.put(0, b"alice")
    ops.put(1, bytes(range(6)))
    ops.put(0, b"bob")
    ops.op(2, 0)  # get
    ops.op(3, 0)  # getAll
    ops.op(4, 0)  # remove
    ops.op(7, 1, [("bool", True)])  # merge the key's entries into itself
    ops.op(7, 0, [("bool", False)])  # merge a copy of everything
    ops.op(5, 1)  # removeAll
    ops.op(6, 0)  # discardAll
    seed("put-get-remove-merge", ops)

    ops = MetadataOps()
    ops.new_key(b"bad key", False, valid=False)
    ops.new_key(b"x-bin", False, valid=False)
    ops.new_key(b"plain", True, valid=False)
    ops.new_key(b"ok", False)
    ops.put(0, b"tab\there")
    ops.put(0, b"caf\xe9")
    ops.put(0, b"fine")
    seed("invalid-names-and-values", ops)


if __name__ == "__main__":
    deframer_seeds()
    base64_seeds()
    grpc_message_seeds()
    grpc_timeout_seeds()
    header_decoder_seeds()
    inbound_headers_seeds()
    metadata_seeds()
