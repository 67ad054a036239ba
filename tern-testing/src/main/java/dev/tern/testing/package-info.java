/**
 * Aids for testing code built on Tern (JUnit 5): add tern-testing at test scope.
 *
 * <ul>
 *   <li>{@link dev.tern.testing.TernCleanupExtension}: shuts down the channels, servers and
 *       executors a test registers, and fails the test if any of them, or a thread it started, is
 *       left behind; also hands out unique in-process server names.
 *   <li>{@link dev.tern.testing.EchoService}: a service with one method of each shape, on strings,
 *       built on {@code ServerCall} directly, for testing transports and runtimes.
 *   <li>{@link dev.tern.testing.TestMarshallers}: byte and UTF-8 string marshallers, for tests that
 *       need no protobuf.
 *   <li>{@link dev.tern.testing.LogCapture}: keeps what one logger logs while open, so a test
 *       asserts the log instead of printing it.
 *   <li>{@link dev.tern.testing.BlockingDetector}: fails blocking JDK calls made by code declared
 *       non-blocking on a transport thread (BlockHound, which the test adds).
 * </ul>
 *
 * <p>Threads: the extension runs on JUnit's thread, before and after each test. {@code EchoService}
 * runs on the server's call executor like any service. {@code LogCapture} takes records from any
 * thread. The marshallers are immutable.
 */
package dev.tern.testing;
