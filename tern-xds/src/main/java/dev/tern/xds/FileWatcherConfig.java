package dev.tern.xds;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * The config of a {@code file_watcher} certificate provider instance (A29): the files it reads and
 * how often it reads them again. A {@code tls} entry of a bootstrap's {@code channel_creds} has the
 * same config (A65), where every file may be absent: no client certificate, the platform's roots.
 * Immutable.
 *
 * @param certificateFile {@code certificate_file} (PEM chain, leaf first), or null
 * @param privateKeyFile {@code private_key_file} (PEM key of the leaf), null exactly when {@code
 *     certificateFile} is
 * @param caCertificateFile {@code ca_certificate_file} (PEM roots), or null
 * @param spiffeTrustBundleMapFile {@code spiffe_trust_bundle_map_file} (a SPIFFE bundle map, A87),
 *     or null; when set, peers are checked against it instead of {@code ca_certificate_file}. Null
 *     when {@link XdsFeatures#spiffeBundleMap} is off, whatever the config says
 * @param refreshInterval {@code refresh_interval}, 10 minutes when absent
 */
public record FileWatcherConfig(
    String certificateFile,
    String privateKeyFile,
    String caCertificateFile,
    String spiffeTrustBundleMapFile,
    Duration refreshInterval) {
  /** The plugin name. */
  public static final String PLUGIN_NAME = "file_watcher";

  /** The {@code refresh_interval} when the config has none (A29). */
  public static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofMinutes(10);

  public FileWatcherConfig {
    Objects.requireNonNull(refreshInterval, "refreshInterval");
    if ((certificateFile == null) != (privateKeyFile == null)) {
      throw new IllegalArgumentException(
          "certificate_file and private_key_file must be given together or not at all");
    }
    if (refreshInterval.isNegative() || refreshInterval.isZero()) {
      throw new IllegalArgumentException("refresh_interval must be positive");
    }
  }

  /**
   * Reads the plugin's {@code config} object (parsed JSON), which must name some file.
   *
   * @throws IllegalArgumentException naming the field that is wrong
   */
  static FileWatcherConfig parse(Map<String, Object> config) {
    FileWatcherConfig parsed = parseChannelCreds(config);
    if (parsed.certificateFile() == null
        && parsed.caCertificateFile() == null
        && parsed.spiffeTrustBundleMapFile() == null) {
      throw new IllegalArgumentException(
          "needs certificate_file and private_key_file, or ca_certificate_file or"
              + " spiffe_trust_bundle_map_file, or both");
    }
    return parsed;
  }

  /**
   * Reads the {@code config} of a {@code tls} channel credentials entry (A65): the plugin's fields,
   * none of them required.
   *
   * @throws IllegalArgumentException naming the field that is wrong
   */
  static FileWatcherConfig parseChannelCreds(Map<String, Object> config) {
    String cert = optionalString(config, "certificate_file");
    String key = optionalString(config, "private_key_file");
    String ca = optionalString(config, "ca_certificate_file");
    String bundleMap = optionalString(config, "spiffe_trust_bundle_map_file");
    String interval = optionalString(config, "refresh_interval");
    return new FileWatcherConfig(
        cert,
        key,
        ca,
        XdsFeatures.current().spiffeBundleMap() ? bundleMap : null,
        interval == null ? DEFAULT_REFRESH_INTERVAL : duration(interval));
  }

  private static String optionalString(Map<String, Object> config, String field) {
    Object value = config.get(field);
    if (value == null) {
      return null;
    }
    if (!(value instanceof String s) || s.isEmpty()) {
      throw new IllegalArgumentException(field + " must be a non-empty string");
    }
    return s;
  }

  /** A JSON {@code google.protobuf.Duration}: seconds with up to 9 decimals, then {@code s}. */
  private static Duration duration(String text) {
    if (!text.matches("\\d{1,12}(\\.\\d{1,9})?s")) {
      throw new IllegalArgumentException(
          "refresh_interval must be a duration such as \"600s\", was \"" + text + "\"");
    }
    String number = text.substring(0, text.length() - 1);
    int dot = number.indexOf('.');
    long seconds = Long.parseLong(dot < 0 ? number : number.substring(0, dot));
    long nanos = 0;
    if (dot >= 0) {
      String fraction = (number.substring(dot + 1) + "000000000").substring(0, 9);
      nanos = Long.parseLong(fraction);
    }
    return Duration.ofSeconds(seconds, nanos);
  }
}
