package dev.tern;

/**
 * How well a transport protects the bytes of a call, as reported by the transport in {@link
 * Grpc#TRANSPORT_ATTR_SECURITY_LEVEL} and shown to {@link CallCredentials} in their request info.
 *
 * <p>Credentials that carry secrets (bearer tokens, API keys) should refuse to apply, failing the
 * call with {@code UNAUTHENTICATED}, when the level is below {@link #PRIVACY_AND_INTEGRITY}, unless
 * the user explicitly configured them to allow it (for example for a local test server); otherwise
 * the secret would travel in clear text.
 */
public enum SecurityLevel {
  /** No protection: plaintext. */
  NONE,
  /** Tamper-evident but readable by observers. */
  INTEGRITY,
  /** Encrypted and tamper-evident, as with TLS. */
  PRIVACY_AND_INTEGRITY
}
