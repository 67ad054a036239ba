package dev.tern.xds;

/**
 * A bootstrap that cannot be used: its message names where it came from (the file, or {@code
 * GRPC_XDS_BOOTSTRAP_CONFIG}), the field ({@code xds_servers[0].server_uri}) and what is wrong.
 */
public final class XdsBootstrapException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  XdsBootstrapException(String message) {
    super(message);
  }

  XdsBootstrapException(String message, Throwable cause) {
    super(message, cause);
  }
}
