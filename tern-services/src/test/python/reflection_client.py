"""Asks a server about its schema with grpcio's reflection client (grpc_reflection's
ProtoReflectionDescriptorDatabase, which speaks grpc.reflection.v1alpha) and prints what it learnt,
one fact per line, for ReflectionToolsTest.

Usage: reflection_client.py HOST:PORT SYMBOL MESSAGE
"""

import sys

import grpc
from google.protobuf.descriptor_pool import DescriptorPool
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)


def main() -> None:
    target, symbol, message = sys.argv[1:4]
    with grpc.insecure_channel(target) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        print("services: " + ",".join(sorted(database.get_services())))
        print("file of " + symbol + ": " + database.FindFileContainingSymbol(symbol).name)
        pool = DescriptorPool(database)
        descriptor = pool.FindMessageTypeByName(message)
        print("fields of " + message + ": " + ",".join(f.name for f in descriptor.fields))
        numbers = sorted(database.FindAllExtensionNumbers(message))
        print("extension numbers of " + message + ": " + ",".join(str(n) for n in numbers))


if __name__ == "__main__":
    main()
