/**
 * grpc-java load balancers on Tern. Not API.
 *
 * <p>A bridged channel looks its policies up in {@link
 * dev.tern.grpcjava.internal.balancer.GrpcJavaBalancers#registry()}: Tern's default registry, then,
 * for names Tern has no policy of, the {@code io.grpc.LoadBalancerProvider}s the application
 * registered in grpc-java's registry. {@code GrpcJavaLoadBalancerProvider} wraps such a provider
 * (its config parser too), {@code GrpcJavaLoadBalancer} its balancer, {@code GrpcJavaHelper} Tern's
 * helper as grpc-java's, {@code GrpcJavaSubchannel} Tern's subchannels and {@code GrpcJavaPicker}
 * the balancer's pickers as Tern's.
 *
 * <p>Threads: Tern calls the balancer from the channel's synchronization context; it runs in its
 * own {@code io.grpc.SynchronizationContext}, and what it asks of the channel is handed back to
 * Tern's context in order. Pickers run on callers' threads. Each class says its own contract.
 *
 * <p>The client side's: the client package uses it; it uses {@code convert} and nothing else of the
 * bridge ({@code tools/java/package-rules.txt}).
 */
package dev.tern.grpcjava.internal.balancer;
