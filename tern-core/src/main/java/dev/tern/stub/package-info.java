/**
 * Stubs: the {@link dev.tern.stub.StreamObserver}-based programming model that generated code and
 * most applications use on top of {@link dev.tern.ClientCall} and {@link dev.tern.ServerCall}.
 *
 * <p>{@link dev.tern.stub.ClientCalls} runs blocking, future and asynchronous calls; {@link
 * dev.tern.stub.ServerCalls} turns service methods into {@link dev.tern.ServerCallHandler}s; {@link
 * dev.tern.stub.AbstractStub} and its three subclasses are the bases of generated stubs.
 */
package dev.tern.stub;
