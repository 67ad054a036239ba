package dev.tern.xds.internal.orca;

import com.github.xds.data.orca.v3.OrcaLoadReport;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.tern.ClientStreamTracer;
import dev.tern.Metadata;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Reads the load report a backend puts in a call's trailer {@code endpoint-load-metrics-bin} (gRFC
 * A51) and gives it to a listener. A balancer returns one factory per endpoint with its picks; a
 * trailer that does not parse is logged (FINE) and ignored, a call without it reports nothing.
 * Immutable; thread-safe.
 */
public final class OrcaPerCallTracer extends ClientStreamTracer {
  /** A51's trailer. */
  public static final Metadata.Key<byte[]> TRAILER =
      Metadata.Key.of("endpoint-load-metrics-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private static final Logger logger = Logger.getLogger(OrcaPerCallTracer.class.getName());

  private final OrcaReportListener listener;

  private OrcaPerCallTracer(OrcaReportListener listener) {
    this.listener = listener;
  }

  /** A factory whose tracers report to {@code listener}; the same tracer serves every call. */
  public static ClientStreamTracer.Factory factory(OrcaReportListener listener) {
    OrcaPerCallTracer tracer = new OrcaPerCallTracer(listener);
    return new ClientStreamTracer.Factory() {
      @Override
      public ClientStreamTracer newClientStreamTracer(StreamInfo info, Metadata headers) {
        return tracer;
      }
    };
  }

  @Override
  public void inboundTrailers(Metadata trailers) {
    byte[] bytes = trailers.get(TRAILER);
    if (bytes == null) {
      return;
    }
    OrcaLoadReport report;
    try {
      report = OrcaLoadReport.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      logger.log(Level.FINE, "ignoring a malformed endpoint-load-metrics-bin trailer", e);
      return;
    }
    listener.onLoadReport(report);
  }
}
