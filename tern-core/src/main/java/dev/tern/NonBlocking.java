package dev.tern;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares that a service implementation, or one of its methods, never blocks: its callbacks then
 * run on the transport's thread (a Netty connection's event loop; the calling thread in-process)
 * with no hand-off to the server's executor, while the server's other methods keep their executor.
 * On the class, it covers every method of the service; on a method that implements a gRPC method
 * (an overriding method of a generated {@code *ImplBase} or {@code BlockingService}), that method
 * alone.
 *
 * <p>Read by {@link ServerBuilder#addService(BindableService)} from the class of the object added;
 * {@link ServerBuilder#nonBlocking(String)} declares the same by name (for a {@link
 * ServerServiceDefinition} added directly, or a service whose code you cannot annotate). The
 * interceptors of such a method run where its callbacks run. A blocking stub (or a future's {@code
 * get}, or {@code awaitTermination}) called from such a method throws {@link IllegalStateException}
 * instead of stalling the transport thread; docs/blocking.md ("Methods that never block") has the
 * rest, and how tests detect any other blocking call.
 *
 * <p>Inherited by subclasses of an annotated class (so that proxies of it keep it); a Java method's
 * annotation is never inherited.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface NonBlocking {}
