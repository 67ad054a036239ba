/**
 * The server side of the bridge: grpc-java's {@code ServerProvider} returning an {@code
 * io.grpc.ServerBuilder} over Tern's, the conversion of {@code io.grpc} services to Tern ones, and
 * the server call adapter whose handlers see an {@code io.grpc.Context} with the call's deadline
 * and cancellation. Not API.
 */
package dev.tern.grpcjava.internal.server;
