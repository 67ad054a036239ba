/**
 * The client side of the bridge: grpc-java's {@code ManagedChannelProvider} returning a {@code
 * io.grpc.ManagedChannelBuilder} over Tern's, and the channel and call adapters that run each
 * {@code io.grpc} call as a Tern call. Not API.
 */
package dev.tern.grpcjava.internal.client;
