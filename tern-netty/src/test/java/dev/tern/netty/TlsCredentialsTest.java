package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.TlsChannelCredentials;
import dev.tern.TlsServerCredentials;
import dev.tern.TlsServerCredentials.ClientAuth;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Set;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS credentials' builders: every option, every key format, and a clear error naming the file
 * for every bad input (instead of a stack from deep inside Netty at the first handshake).
 */
class TlsCredentialsTest {
  static TestCertificates ec;
  static TestCertificates rsa;
  static TestCertificates other;

  @TempDir Path dir;

  @BeforeAll
  static void generate() throws Exception {
    ec = TestCertificates.generate("tern-ec", "EC");
    rsa = TestCertificates.generate("tern-rsa", "RSA");
    other = TestCertificates.generate("tern-other", "EC");
  }

  private File file(String name, String content) throws IOException {
    return PemWriter.write(dir, name, content).toFile();
  }

  private File ecChain() throws Exception {
    return file("ec.pem", PemWriter.certificates(ec.certificate));
  }

  private File rsaChain() throws Exception {
    return file("rsa.pem", PemWriter.certificates(rsa.certificate));
  }

  @Test
  void acceptsEveryKeyFormat() throws Exception {
    assertKeyWorks(rsaChain(), file("pkcs1.key", PemWriter.pkcs1(rsa.key)), null);
    assertKeyWorks(rsaChain(), file("rsa8.key", PemWriter.pkcs8(rsa.key)), null);
    assertKeyWorks(ecChain(), file("sec1.key", PemWriter.sec1(ec.key)), null);
    assertKeyWorks(ecChain(), file("ec8.key", PemWriter.pkcs8(ec.key)), null);
    assertKeyWorks(
        ecChain(), file("enc.key", PemWriter.encryptedPkcs8(ec.key, "s3cret")), "s3cret");
    assertKeyWorks(
        rsaChain(), file("rsaenc.key", PemWriter.encryptedPkcs8(rsa.key, "s3cret")), "s3cret");
  }

  /** Server and client credentials take the pair, and Netty builds contexts from them. */
  private static void assertKeyWorks(File chain, File key, String password) throws Exception {
    TlsServerCredentials server =
        TlsServerCredentials.newBuilder().keyManager(chain, key, password).build();
    assertThat(NettySslContexts.forServer(server).isServer()).isTrue();
    TlsChannelCredentials client =
        TlsChannelCredentials.newBuilder().keyManager(chain, key, password).build();
    assertThat(NettySslContexts.forClient(client).isClient()).isTrue();
    assertThat(client.features()).contains(TlsChannelCredentials.Feature.MTLS);
  }

  @Test
  void streamsAreReadLikeFiles() throws Exception {
    TlsServerCredentials creds =
        TlsServerCredentials.create(
            stream(PemWriter.certificates(ec.certificate)), stream(PemWriter.pkcs8(ec.key)));
    assertThat(new String(creds.getCertificateChain(), StandardCharsets.US_ASCII))
        .contains("BEGIN CERTIFICATE");
    assertThatThrownBy(
            () -> TlsServerCredentials.create(stream("junk"), stream(PemWriter.pkcs8(ec.key))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("the certificate chain stream: no PEM certificate");
    TlsChannelCredentials trusting =
        TlsChannelCredentials.newBuilder()
            .trustManager(stream(PemWriter.certificates(ec.certificate, rsa.certificate)))
            .build();
    assertThat(trusting.getRootCertificates()).isNotNull();
    assertThat(NettySslContexts.forClient(trusting).isClient()).isTrue();
  }

  private static InputStream stream(String content) {
    return new ByteArrayInputStream(content.getBytes(StandardCharsets.US_ASCII));
  }

  @Test
  void badFilesAreNamedWithWhatIsWrong() throws Exception {
    File chain = ecChain();
    File key = file("ec.key", PemWriter.pkcs8(ec.key));
    String full = PemWriter.pkcs8(ec.key);

    File truncated = file("truncated.key", full.substring(0, full.length() / 2));
    assertBadKey(chain, truncated, null, "has no -----END PRIVATE KEY----- line");

    File noKey = file("nokey.key", PemWriter.certificates(ec.certificate));
    assertBadKey(chain, noKey, null, "no PEM private key found");

    File garbled = file("garbled.key", PemWriter.pem("PRIVATE KEY", new byte[] {0x30, 0x03, 1}));
    assertBadKey(chain, garbled, null, "malformed PRIVATE KEY");

    File legacy =
        file(
            "legacy.key",
            "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\n"
                + "AAAA\n-----END RSA PRIVATE KEY-----\n");
    assertBadKey(chain, legacy, null, "legacy OpenSSL way");

    File encrypted = file("enc.key", PemWriter.encryptedPkcs8(ec.key, "right"));
    assertBadKey(chain, encrypted, null, "is encrypted; give its password");
    assertBadKey(chain, encrypted, "wrong", "could not decrypt the private key (wrong password?)");

    File otherKey = file("other.key", PemWriter.pkcs8(other.key));
    assertBadKey(chain, otherKey, null, "does not match the certificate CN=tern-ec");
    File rsaKey = file("rsa.key", PemWriter.pkcs1(rsa.key));
    assertBadKey(chain, rsaKey, null, "the private key (RSA) does not match");

    File notPem = file("notpem.pem", "hello");
    assertThatThrownBy(() -> TlsServerCredentials.create(notPem, key))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "certificate chain file "
                + notPem
                + ": no PEM certificate (-----BEGIN CERTIFICATE-----)"
                + " found");
    File badCert = file("badcert.pem", PemWriter.pem("CERTIFICATE", new byte[] {1, 2, 3}));
    assertThatThrownBy(() -> TlsServerCredentials.create(badCert, key))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "certificate chain file " + badCert + ": certificate 1 is not a valid X.509");

    File missing = dir.resolve("missing.pem").toFile();
    assertThatThrownBy(() -> TlsServerCredentials.create(missing, key))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("cannot read certChain file " + missing);
    assertThatThrownBy(() -> TlsChannelCredentials.newBuilder().trustManager(notPem))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("root certificates file " + notPem + ": no PEM certificate");
  }

  private static void assertBadKey(File chain, File key, String password, String problem) {
    assertThatThrownBy(() -> TlsServerCredentials.newBuilder().keyManager(chain, key, password))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("private key file " + key)
        .hasMessageContaining(problem);
    assertThatThrownBy(() -> TlsChannelCredentials.newBuilder().keyManager(chain, key, password))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("private key file " + key);
  }

  @Test
  void managersAreChecked() throws Exception {
    KeyManager[] keyManagers = keyManagers();
    TrustManager[] trustManagers = trustManagers();
    TlsServerCredentials server =
        TlsServerCredentials.newBuilder()
            .keyManager(keyManagers)
            .trustManager(trustManagers)
            .clientAuth(ClientAuth.OPTIONAL)
            .build();
    assertThat(server.getKeyManagers()).containsExactly(keyManagers);
    assertThat(server.getClientAuth()).isEqualTo(ClientAuth.OPTIONAL);
    assertThat(server.features())
        .containsExactlyInAnyOrder(
            TlsServerCredentials.Feature.MTLS, TlsServerCredentials.Feature.CUSTOM_MANAGERS);
    assertThat(server.unsupportedFeatures(Set.of(TlsServerCredentials.Feature.MTLS)))
        .containsExactly(TlsServerCredentials.Feature.CUSTOM_MANAGERS);
    assertThat(server.toString())
        .isEqualTo(
            "TlsServerCredentials[key: key managers, clientAuth: OPTIONAL, trust: trust managers]");
    assertThat(NettySslContexts.forServer(server).isServer()).isTrue();

    TlsChannelCredentials client =
        TlsChannelCredentials.newBuilder()
            .keyManager(keyManagers)
            .trustManager(trustManagers)
            .build();
    assertThat(NettySslContexts.forClient(client).isClient()).isTrue();
    assertThat(client.unsupportedFeatures(Set.of()))
        .containsExactlyInAnyOrder(
            TlsChannelCredentials.Feature.MTLS, TlsChannelCredentials.Feature.CUSTOM_MANAGERS);

    assertThatThrownBy(() -> TlsServerCredentials.newBuilder().keyManager())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("keyManagers must include a X509KeyManager");
    assertThatThrownBy(() -> TlsChannelCredentials.newBuilder().keyManager(keyManagers[0], null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("keyManagers[1] is null");
    assertThatThrownBy(
            () ->
                TlsChannelCredentials.newBuilder()
                    .trustManager(new TrustManager[] {new TrustManager() {}}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("trustManagers must include a X509TrustManager");
    assertThatThrownBy(() -> TlsServerCredentials.newBuilder().clientAuth(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("clientAuth");
    assertThatThrownBy(() -> TlsServerCredentials.newBuilder().trustManager(trustManagers).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("call keyManager(...)");
  }

  @Test
  void laterKeyAndTrustCallsReplaceEarlierOnes() throws Exception {
    File chain = ecChain();
    File key = file("ec.key", PemWriter.pkcs8(ec.key));
    TlsChannelCredentials client =
        TlsChannelCredentials.newBuilder()
            .keyManager(keyManagers())
            .keyManager(chain, key)
            .trustManager(trustManagers())
            .trustManager(chain)
            .build();
    assertThat(client.getKeyManagers()).isNull();
    assertThat(client.getPrivateKey()).isNotNull();
    assertThat(client.getTrustManagers()).isNull();
    assertThat(client.toString()).isEqualTo("TlsChannelCredentials[key: PEM, trust: PEM roots]");
    TlsChannelCredentials plain = TlsChannelCredentials.create();
    assertThat(plain.features()).isEmpty();
    assertThat(plain.toString())
        .isEqualTo("TlsChannelCredentials[key: none, trust: JDK default CAs]");
    assertThat(Files.readString(key.toPath())).doesNotContain("none"); // key never in toString
  }

  private static KeyManager[] keyManagers() throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry(
        "k", ec.key, "pw".toCharArray(), new java.security.cert.Certificate[] {ec.certificate});
    KeyManagerFactory factory =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    factory.init(store, "pw".toCharArray());
    return factory.getKeyManagers();
  }

  private static TrustManager[] trustManagers() throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setCertificateEntry("ca", ec.certificate);
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    return factory.getTrustManagers();
  }
}
