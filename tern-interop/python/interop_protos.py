"""Loads the grpc.testing messages for the Python interop peer, and decodes messages on the wire.

The Python stubs are generated at run time from tern-interop/src/main/proto (the single source of
the schema) into python/.gen, which git ignores. Generated code lives in the package
``grpc.testing``, which would collide with grpcio's own ``grpc`` package; the generated folder is
therefore appended to ``grpc.__path__`` so ``grpc.testing`` resolves to it without shadowing grpcio.
Only the message modules are generated (``--python_out``): grpcio's generated service stubs would
parse messages before this module can see their compression, so client and server register the
methods by hand, each path checked against test.proto's descriptors by :func:`method_path`.

Compression: grpcio never tells an application whether a received message had the compressed flag
set. Both peers therefore run with C-core's ``grpc.per_message_decompression`` channel argument
off, so a compressed message reaches Python still compressed, and :func:`decoder` recognises and
inflates it here. This sees exactly what the flag means on the wire, for gzip and deflate (the two
encodings C-core offers); only an encoding unknown to this module would go unnoticed (it would then
fail to parse and be reported as a malformed message, not silently accepted).
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import grpc

HERE = Path(__file__).resolve().parent
PROTO_ROOT = HERE.parent / "src" / "main" / "proto"
GEN_DIR = HERE / ".gen"
PROTO_FILES = ("empty.proto", "messages.proto", "test.proto", "benchmark_service.proto")

# Lets grpcio keep compressed messages compressed, so that decoder() can see the flag's effect.
NO_DECOMPRESSION = ("grpc.per_message_decompression", 0)


def _generate_if_stale() -> None:
    sources = [PROTO_ROOT / "grpc" / "testing" / name for name in PROTO_FILES]
    stamp = GEN_DIR / ".stamp"
    newest = max(p.stat().st_mtime for p in sources)
    if stamp.exists() and stamp.stat().st_mtime >= newest:
        return
    GEN_DIR.mkdir(parents=True, exist_ok=True)
    # A client and a server started together must not import half-written modules.
    with open(GEN_DIR / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (stamp.exists() and stamp.stat().st_mtime >= newest):
            _generate(sources, stamp)


def _generate(sources: list[Path], stamp: Path) -> None:
    cmd = [
        sys.executable,
        "-m",
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"--python_out={GEN_DIR}",
        *[str(p) for p in sources],
    ]
    result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"protoc failed ({' '.join(cmd)}):\n{result.stderr}")
    stamp.touch()


_generate_if_stale()
_gen_package = str(GEN_DIR / "grpc")
if _gen_package not in grpc.__path__:
    grpc.__path__.append(_gen_package)

from grpc.testing import empty_pb2, messages_pb2, test_pb2  # noqa: E402  (needs the path above)

Empty = empty_pb2.Empty
M = messages_pb2

SERVICE = "grpc.testing.TestService"
UNIMPLEMENTED_SERVICE = "grpc.testing.UnimplementedService"


def method_path(service: str, method: str, client_streaming: bool, server_streaming: bool) -> str:
    """The HTTP/2 path of a method, checked against test.proto so a typo cannot go unnoticed."""
    descriptor = test_pb2.DESCRIPTOR.services_by_name[service.rsplit(".", 1)[1]]
    found = descriptor.methods_by_name.get(method)
    if found is None or descriptor.full_name != service:
        raise LookupError(f"{service}/{method} is not in test.proto")
    if (found.client_streaming, found.server_streaming) != (client_streaming, server_streaming):
        raise LookupError(f"{service}/{method} has other streaming kinds in test.proto")
    return f"/{service}/{method}"


@dataclass(frozen=True)
class Decoded:
    """A received message and whether it arrived compressed (flag set, gzip or deflate body)."""

    message: Any
    compressed: bool


# Inflated messages larger than this are refused rather than inflated without bound.
MAX_INFLATED_BYTES = 64 * 1024 * 1024


def _inflate_all(raw: bytes, wbits: int) -> Optional[bytes]:
    """The inflated body, or None when raw is not one complete stream of that format."""
    inflater = zlib.decompressobj(wbits)
    try:
        body = inflater.decompress(raw, MAX_INFLATED_BYTES + 1)
    except zlib.error:
        return None
    if len(body) > MAX_INFLATED_BYTES:
        raise ValueError(f"message inflates to more than {MAX_INFLATED_BYTES} bytes")
    if not inflater.eof or inflater.unused_data:
        return None
    return body


def _inflate(raw: bytes) -> tuple[bytes, bool]:
    # A serialized protobuf message never starts with 0x1f (field 3, wire type 7 does not exist),
    # so the gzip magic cannot be mistaken for an uncompressed message.
    if raw[:2] == b"\x1f\x8b":
        body = _inflate_all(raw, 16 + zlib.MAX_WBITS)
        if body is None:
            raise ValueError("message starts like gzip but is not a complete gzip stream")
        return body, True
    # zlib (deflate) header: compression method 8 and a header checksum divisible by 31. Only
    # believed when the whole body inflates cleanly, so a plain message cannot pass for one.
    if len(raw) >= 2 and raw[0] & 0x0F == 8 and ((raw[0] << 8) | raw[1]) % 31 == 0:
        body = _inflate_all(raw, zlib.MAX_WBITS)
        if body is not None:
            return body, True
    return raw, False


def decoder(message_class: type) -> Callable[[bytes], Decoded]:
    """A grpcio deserializer that yields the parsed message together with its compression."""

    def decode(raw: bytes) -> Decoded:
        body, compressed = _inflate(raw)
        message = message_class()
        message.ParseFromString(body)
        return Decoded(message, compressed)

    return decode


def serializer(message: Any) -> bytes:
    return message.SerializeToString()


STATUS_BY_CODE = {status.value[0]: status for status in grpc.StatusCode}


def default_certs_dir() -> Path:
    """Where peers/fetch-test-certs.sh puts the grpc-java test CA and server key pair."""
    env = os.environ.get("TERN_INTEROP_CERTS_DIR")
    return Path(env) if env else HERE.parent / "target" / "test-certs"


def read_cert(certs_dir: Path, name: str) -> bytes:
    path = certs_dir / name
    if not path.is_file():
        raise SystemExit(
            f"missing {path}: run tern-interop/peers/fetch-test-certs.sh "
            f"(or set TERN_INTEROP_CERTS_DIR / --certs_dir)"
        )
    return path.read_bytes()


def parse_bool(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise ValueError(f"expected true or false, got {value!r}")
