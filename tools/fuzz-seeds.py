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


def response_headers_seeds():
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
            "dev.tern.netty.internal.client",
            "GrpcResponseHeadersFuzzTest",
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


def rfc_hex(text):
    return bytes.fromhex(text.replace(" ", ""))


# RFC 7541 Appendix C: request blocks without (C.3) and with (C.4) Huffman, response blocks with
# Huffman and a 256-byte table (C.6).
C3 = [
    "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
    "8286 84be 5808 6e6f 2d63 6163 6865",
    "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
]
C4 = [
    "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
    "8286 84be 5886 a8eb 1064 9cbf",
    "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
]
C6 = [
    "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e"
    " 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
    "4883 640e ffc1 c0bf",
    "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7"
    " 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0"
    " 03ed 4ee5 b106 3d50 07",
]
GRPC_REQUEST = (
    b"\x83\x86"
    + b"\x44"
    + hpack_string(b"/grpc.testing.BenchmarkService/UnaryCall")
    + b"\x41"
    + hpack_string(b"localhost:50051")
    + hpack_literal(b"te", b"trailers", indexed=True)
    + b"\x5f"
    + hpack_string(b"application/grpc")  # content-type (31), indexed
    + b"\x0f\x2b"
    + hpack_string(b"grpc-java-netty/1.79.0")  # user-agent, not indexed
    + hpack_literal(b"grpc-timeout", b"1S")
    + b"\x10"
    + hpack_string(b"authorization")
    + hpack_string(b"Bearer x")  # never indexed
)


def http2_package_seeds():
    package = "dev.tern.netty.internal.http2"

    def hpack_seed(name, max_size, table_size, blocks):
        f = Fdp()
        f.int(max_size, 1, 16 * 1024)
        f.int(table_size, 0, 4096)
        f.int(len(blocks), 1, 4)
        for block in blocks[:-1]:
            f.int(len(block), 0, 256)
        f.bytes(b"".join(blocks))
        write(
            "tern-netty",
            package,
            "HpackDecoderFuzzTest",
            "decodesWithinTheLimitsOrFailsWithAReason",
            name,
            f.build(),
        )

    hpack_seed("rfc-c3-requests", 8192, 4096, [rfc_hex(b) for b in C3])
    hpack_seed("rfc-c4-requests-huffman", 8192, 4096, [rfc_hex(b) for b in C4])
    hpack_seed("rfc-c6-responses-huffman-evicting", 8192, 256, [rfc_hex(b) for b in C6])
    hpack_seed("grpc-request-twice", 8192, 4096, [GRPC_REQUEST, b"\x83\x86\xbf\xbe"])
    hpack_seed("size-update-then-request", 8192, 4096, [b"\x20\x3f\xe1\x1f" + GRPC_REQUEST])
    hpack_seed("over-the-limit", 100, 4096, [GRPC_REQUEST])

    def huffman_seed(name, encode_first, data):
        f = Fdp()
        f.bool(encode_first)
        f.bytes(data)
        write(
            "tern-netty",
            package,
            "HuffmanDecoderFuzzTest",
            "decodesOnlyValidEncodingsAndInvertsEncoding",
            name,
            f.build(),
        )

    huffman_seed("www-example-com", False, rfc_hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff"))
    huffman_seed(
        "set-cookie-value",
        False,
        rfc_hex(
            "94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1"
            " ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07"
        ),
    )
    huffman_seed("eos", False, rfc_hex("ffff fffc"))
    huffman_seed("encode-content-type", True, b"application/grpc")

    def h2frame(frame_type, flags, stream_id, payload):
        return (
            struct.pack(">I", len(payload))[1:]
            + bytes([frame_type, flags])
            + struct.pack(">I", stream_id)
            + payload
        )

    def frame_seed(name, chunks, frames):
        f = Fdp()
        f.int(len(chunks), 1, 8)
        for c in chunks:
            f.int(c, 1, 64)
        f.bytes(b"".join(frames))
        write(
            "tern-netty",
            package,
            "Http2FrameReaderFuzzTest",
            "readsTheSameInAnyChunksAndReleasesEverything",
            name,
            f.build(),
        )

    message = b"\x00\x00\x00\x00\x05hello"
    frame_seed(
        "connection-start",
        [7, 13],
        [
            h2frame(4, 0, 0, struct.pack(">HIHIHI", 2, 0, 3, 100, 4, 1 << 20)),
            h2frame(8, 0, 0, struct.pack(">I", 983041)),
            h2frame(4, 1, 0, b""),
            h2frame(1, 4, 1, rfc_hex(C4[0])),
            h2frame(0, 1, 1, message),
        ],
    )
    frame_seed(
        "padded-and-priority",
        [1],
        [
            h2frame(1, 0x2D, 3, b"\x02" + struct.pack(">IB", 0x80000001, 15) + b"\x82\x86\0\0"),
            h2frame(0, 0x09, 3, b"\x03" + message + b"\0\0\0"),
            h2frame(2, 0, 5, struct.pack(">IB", 3, 200)),
        ],
    )
    frame_seed(
        "continuation",
        [64],
        [
            h2frame(1, 1, 1, rfc_hex(C3[0])[:5]),
            h2frame(9, 0, 1, rfc_hex(C3[0])[5:10]),
            h2frame(9, 4, 1, rfc_hex(C3[0])[10:]),
        ],
    )
    frame_seed(
        "control-frames",
        [3, 30],
        [
            h2frame(6, 0, 0, struct.pack(">Q", 0x0102030405060708)),
            h2frame(6, 1, 0, struct.pack(">Q", 1)),
            h2frame(3, 0, 1, struct.pack(">I", 8)),
            h2frame(0xFA, 0, 0, b"unknown"),
            h2frame(8, 0, 1, struct.pack(">I", 0)),
            h2frame(7, 0, 0, struct.pack(">II", 1, 0) + b"bye"),
        ],
    )

    def connection_seed(name, server, chunks, frames):
        f = Fdp()
        f.bool(server)
        f.int(len(chunks), 1, 8)
        for c in chunks:
            f.int(c, 1, 64)
        f.bytes(b"".join(frames))
        write(
            "tern-netty",
            package,
            "Http2ConnectionFuzzTest",
            "answersAnyBytesWithValidFramesAndReleasesEverything",
            name,
            f.build(),
        )

    settings = h2frame(4, 0, 0, struct.pack(">HIHI", 3, 100, 4, 1 << 20))
    connection_seed(
        "server-unary-call",
        True,
        [9, 40],
        [
            settings,
            h2frame(4, 1, 0, b""),
            h2frame(1, 4, 1, GRPC_REQUEST),
            h2frame(0, 1, 1, message),
            h2frame(8, 0, 0, struct.pack(">I", 4096)),
            h2frame(8, 0, 1, struct.pack(">I", 4096)),
            h2frame(6, 0, 0, struct.pack(">Q", 7)),
        ],
    )
    connection_seed(
        "server-reset-and-refused",
        True,
        [64],
        [settings]
        + [h2frame(1, 4, n, GRPC_REQUEST) for n in (1, 3, 5, 7, 9)]
        + [h2frame(3, 0, 1, struct.pack(">I", 8)), h2frame(0, 0, 1, message)],
    )
    connection_seed(
        "client-response-and-goaway",
        False,
        [5, 17],
        [
            h2frame(4, 0, 0, b""),
            h2frame(4, 1, 0, b""),
            h2frame(1, 4, 1, b"\x88"),
            h2frame(0, 0, 1, message),
            h2frame(1, 5, 1, b"\x40\x8b" + b"grpc-status" + b"\x01" + b"0"),
            h2frame(7, 0, 0, struct.pack(">II", 1, 0)),
        ],
    )


ZSTD_MAGIC = struct.pack("<I", 0xFD2FB528)


def zstd_block(kind, last, size, content):
    """A zstd block (RFC 8878 3.1.1.2): kind 0 raw, 1 RLE (content one byte), 2 compressed."""
    header = (size << 3) | (kind << 1) | (1 if last else 0)
    return header.to_bytes(3, "little") + content


def zstd_seeds():
    def seed(name, round_trip, level, chunk, payload):
        f = Fdp()
        f.bool(round_trip)
        f.int(level, -5, 5)
        f.int(chunk, 1, 1 << 16)
        f.bytes(payload)
        write(
            "tern-zstd",
            "dev.tern.zstd",
            "ZstdCodecFuzzTest",
            "decodesWhatItEncodedAndRefusesAnythingElseWithAnIoException",
            name,
            f.build(),
        )

    text = b"".join(b"message %d: the quick brown fox\n" % i for i in range(200))
    seed("round-trip-text", True, 3, 4096, text)
    seed("round-trip-fast-level", True, 1, 7, text[:500])
    # Single segment (descriptor 0x20, a 1-byte content size), one raw block.
    hello = b"hello, zstd"
    seed(
        "raw-block-frame",
        False,
        0,
        3,
        ZSTD_MAGIC + bytes([0x20, len(hello)]) + zstd_block(0, True, len(hello), hello),
    )
    # A 1 MiB window (exponent 10) and no content size: RLE blocks of 128 KiB, ten of them,
    # expanding a few dozen bytes past the reader's 1 MiB limit.
    blocks = b"".join(zstd_block(1, i == 9, 128 * 1024, b"\0") for i in range(10))
    seed("rle-bomb", False, 0, 65535, ZSTD_MAGIC + bytes([0x00, 10 << 3]) + blocks)
    # A window of 2 GiB (exponent 21): refused before the decoder opens.
    seed("huge-window", False, 0, 1024, ZSTD_MAGIC + bytes([0x00, 21 << 3]) + b"\0" * 8)
    seed("gzip-not-zstd", False, 0, 1024, gzip.compress(b"hello", mtime=0))
    seed("truncated-header", False, 0, 1024, ZSTD_MAGIC + bytes([0x20]))


def http3_seeds():
    """tern-http3's Http3FrameReaderFuzzTest: a request stream and a control stream."""

    def h3frame(frame_type, payload):
        return bytes([frame_type, len(payload)]) + payload  # types and lengths under 64

    def seed(name, control, chunk, limit, frames):
        f = Fdp()
        f.bool(control)
        f.int(chunk, 1, 64)
        f.int(limit, 1, 4096)
        f.bytes(b"".join(frames))
        write(
            "tern-http3",
            "dev.tern.http3.internal.frame",
            "Http3FrameReaderFuzzTest",
            "readsTheSameWholeOrInChunksAndReleasesEverything",
            name,
            f.build(),
        )

    # :method POST, :scheme https, :path /a.B/C, content-type application/grpc (by name
    # reference, literal value), te trailers (literal name), as QPACK with no dynamic table.
    request_headers = (
        b"\x00\x00\xd4\xd7\x51\x06/a.B/C\x5f\x1d\x10application/grpc\x22te\x08trailers"
    )
    message = b"\x00\x00\x00\x00\x05hello"
    seed(
        "grpc-request",
        False,
        3,
        1024,
        [h3frame(1, request_headers), h3frame(0x21, b"grease"), h3frame(0, message)],
    )
    seed(
        "control-settings-goaway",
        True,
        1,
        1024,
        [h3frame(4, b"\x01\x00\x06\x44\x00\x07\x00"), h3frame(7, b"\x04")],
    )


if __name__ == "__main__":
    deframer_seeds()
    base64_seeds()
    grpc_message_seeds()
    grpc_timeout_seeds()
    response_headers_seeds()
    metadata_seeds()
    http2_package_seeds()
    zstd_seeds()
    http3_seeds()
