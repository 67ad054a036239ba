/**
 * gRPC server reflection ({@code grpc.reflection.v1} and {@code grpc.reflection.v1alpha}): {@link
 * dev.tern.services.reflection.ProtoReflectionService}. The generated message and stub classes are
 * in the {@code v1} and {@code v1alpha} subpackages.
 */
package dev.tern.services.reflection;
