/**
 * Conversions between grpc-java's {@code io.grpc} values and Tern's: {@link
 * dev.tern.grpcjava.internal.convert.Metadatas metadata}, {@link
 * dev.tern.grpcjava.internal.convert.Statuses status}, {@link
 * dev.tern.grpcjava.internal.convert.Deadlines deadlines}, {@link
 * dev.tern.grpcjava.internal.convert.Methods method descriptors and marshallers} and {@link
 * dev.tern.grpcjava.internal.convert.Credentials credentials}. Shared by the client and the server
 * side of the bridge. Not API.
 */
package dev.tern.grpcjava.internal.convert;
