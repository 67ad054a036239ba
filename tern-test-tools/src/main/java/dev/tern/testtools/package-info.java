/**
 * Harnesses for Tern's own tests that run real external programs. Not published; users' test kit is
 * tern-testing.
 *
 * <ul>
 *   <li>Finding tools: {@link dev.tern.testtools.ExternalTool} looks a tool up in the tools cache,
 *       then on the {@code PATH}; a missing tool skips the test with how to install it, and fails
 *       it under {@code CI=true}.
 *   <li>Running them: {@link dev.tern.testtools.ToolProcess} (a started tool's merged output,
 *       captured line by line); the servers built on it or on their own process: {@link
 *       dev.tern.testtools.Dnsmasq} (with the {@link dev.tern.testtools.DnsLookup} client), {@link
 *       dev.tern.testtools.OtelCollector}, {@link dev.tern.testtools.PrometheusServer}, {@link
 *       dev.tern.testtools.Toxiproxy}, {@link dev.tern.testtools.ProxyPy} (an HTTP CONNECT proxy),
 *       {@link dev.tern.testtools.XdsControlPlane} (tern-xds's test control plane, which other
 *       modules' xDS tests use too); each on 127.0.0.1 and a port the OS chose.
 *   <li>Test material: {@link dev.tern.testtools.TestPems} (a key and certificate made by {@code
 *       keytool} at test time), {@link dev.tern.testtools.ProgramRun} (the exit status and output
 *       of one in-process run of a {@code bin/} program).
 * </ul>
 *
 * <p>Threads: every harness is thread-safe: a test may read a tool's output, wait on it and close
 * it from any thread, while the harness's own reader threads capture the output. {@code
 * ExternalTool} is stateless.
 *
 * <p>Uses the JDK and, of Tern, only tern-core's JSON parser ({@code dev.tern.internal.config}) to
 * read Prometheus's and Toxiproxy's answers. The programs' flags are in {@code
 * dev.tern.testtools.cli}.
 */
package dev.tern.testtools;
