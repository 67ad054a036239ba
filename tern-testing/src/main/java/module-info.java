/**
 * The users' test kit ({@code dev.tern.testing}): a JUnit 5 extension that cleans up servers and
 * channels, a fake clock, an echo service and test marshallers, log capture. Uses tern-core's API
 * only.
 */
module dev.tern.testing {
  requires transitive dev.tern.core;
  // TernCleanupExtension is a JUnit 5 extension; LogCapture hands out java.util.logging records.
  requires transitive org.junit.jupiter.api;
  requires transitive java.logging;
  // BlockingDetector.isAvailable reads the JVM's options.
  requires java.management;
  // @GuardedBy, checked by Error Prone at build time (the pom explains why the jar comes along).
  requires static com.google.errorprone.annotations;
  // BlockingDetector drives BlockHound when the tests bring it (an automatic module).
  requires static reactor.blockhound;

  exports dev.tern.testing;
}
