/**
 * Tern's own tools, never published: the command-line flags of Tern's programs ({@code
 * dev.tern.testtools.cli}) and the harnesses that run external tools in tests ({@code
 * dev.tern.testtools}). A named module so that what it takes from tern-core's runtime (the JSON
 * parser) is checked against tern-core's qualified exports.
 */
module dev.tern.testtools {
  requires dev.tern.core;
  // PrometheusServer asks the server's HTTP API.
  requires java.net.http;
  // Assumptions.abort and Assertions.fail, for the harnesses' tests only (see the pom).
  requires static org.junit.jupiter.api;
  // @GuardedBy, checked by Error Prone at build time; CLASS retention, not needed at run time.
  requires static com.google.errorprone.annotations;

  exports dev.tern.testtools;
  exports dev.tern.testtools.cli;
}
