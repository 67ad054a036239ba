"""grpcio's health client against a server: prints one line per question, for the Java test.

Usage: health_client.py HOST:PORT SERVICE...

For each SERVICE ("" is the server) it prints what Check answers and the first status Watch sends;
then what List answers. Errors are printed as their status code, so the output of two servers can
be compared line by line.
"""

import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


def status_name(response):
    return health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)


def main():
    address, services = sys.argv[1], sys.argv[2:]
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for service in services:
            request = health_pb2.HealthCheckRequest(service=service)
            try:
                answer = status_name(stub.Check(request, timeout=10))
            except grpc.RpcError as e:
                answer = e.code().name
            print(f"check {service!r}: {answer}")
            watch = stub.Watch(request, timeout=10)
            try:
                print(f"watch {service!r}: {status_name(next(watch))}")
            finally:
                watch.cancel()
        try:
            listed = stub.List(health_pb2.HealthListRequest(), timeout=10)
            statuses = {name: status_name(r) for name, r in listed.statuses.items()}
            print("list: " + ", ".join(f"{n!r}={s}" for n, s in sorted(statuses.items())))
        except grpc.RpcError as e:
            print(f"list: {e.code().name}")


if __name__ == "__main__":
    main()
