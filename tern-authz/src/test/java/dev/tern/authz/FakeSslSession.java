package dev.tern.authz;

import java.security.Principal;
import java.security.cert.Certificate;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSessionContext;

/**
 * A TLS session for engine tests: a peer certificate or none, session values, and a count of how
 * often the peer's certificates were asked for. Everything else is a constant.
 */
final class FakeSslSession implements SSLSession {
  private final Certificate peerCertificate;
  private final Map<String, Object> values = new ConcurrentHashMap<>();
  final AtomicInteger peerCertificateReads = new AtomicInteger();

  /** A session whose peer presented {@code peerCertificate}, or none if null. */
  FakeSslSession(Certificate peerCertificate) {
    this.peerCertificate = peerCertificate;
  }

  @Override
  public Certificate[] getPeerCertificates() throws SSLPeerUnverifiedException {
    peerCertificateReads.incrementAndGet();
    if (peerCertificate == null) {
      throw new SSLPeerUnverifiedException("peer not authenticated");
    }
    return new Certificate[] {peerCertificate};
  }

  @Override
  public void putValue(String name, Object value) {
    values.put(name, value);
  }

  @Override
  public Object getValue(String name) {
    return values.get(name);
  }

  @Override
  public void removeValue(String name) {
    values.remove(name);
  }

  @Override
  public String[] getValueNames() {
    return values.keySet().toArray(new String[0]);
  }

  @Override
  public byte[] getId() {
    return new byte[] {1};
  }

  @Override
  public SSLSessionContext getSessionContext() {
    return null;
  }

  @Override
  public long getCreationTime() {
    return 0;
  }

  @Override
  public long getLastAccessedTime() {
    return 0;
  }

  @Override
  public void invalidate() {}

  @Override
  public boolean isValid() {
    return true;
  }

  @Override
  public Certificate[] getLocalCertificates() {
    return null;
  }

  @Override
  public Principal getPeerPrincipal() throws SSLPeerUnverifiedException {
    throw new SSLPeerUnverifiedException("not used");
  }

  @Override
  public Principal getLocalPrincipal() {
    return null;
  }

  @Override
  public String getCipherSuite() {
    return "TLS_AES_128_GCM_SHA256";
  }

  @Override
  public String getProtocol() {
    return "TLSv1.3";
  }

  @Override
  public String getPeerHost() {
    return "127.0.0.1";
  }

  @Override
  public int getPeerPort() {
    return 0;
  }

  @Override
  public int getPacketBufferSize() {
    return 16709;
  }

  @Override
  public int getApplicationBufferSize() {
    return 16384;
  }
}
