package dev.tern.xds.internal.orca;

import com.github.xds.data.orca.v3.OrcaLoadReport;

/**
 * Hears a backend's load reports. Per-call reports come on the thread that ends the call, from many
 * calls at once; out-of-band ones in the channel's synchronization context: implementations must be
 * thread-safe and must not block.
 */
@FunctionalInterface
public interface OrcaReportListener {
  void onLoadReport(OrcaLoadReport report);
}
