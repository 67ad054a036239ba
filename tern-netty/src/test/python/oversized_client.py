"""grpcio's client sending requests over a server's 4 MiB message limit, for the Java test.

Usage: oversized_client.py HOST:PORT METHOD

Sends two unary requests to METHOD (a full path, "/package.Service/Method"): 5 MiB of bytes as
they are, then 8 MiB of zeros gzip-compressed (about 8 KiB on the wire). Prints one line for each,
"<label>: <status code name>: <details>", so the test sees what a grpcio user would.
"""

import sys

import grpc


def call(channel, method, label, request, compression):
    unary = channel.unary_unary(method)
    try:
        unary(request, timeout=30, compression=compression)
        print(f"{label}: OK: ")
    except grpc.RpcError as e:
        print(f"{label}: {e.code().name}: {e.details()}")


def main():
    address, method = sys.argv[1], sys.argv[2]
    with grpc.insecure_channel(address) as channel:
        call(channel, method, "oversized", b"a" * (5 * 1024 * 1024), None)
        call(channel, method, "gzip bomb", bytes(8 * 1024 * 1024), grpc.Compression.Gzip)


if __name__ == "__main__":
    main()
