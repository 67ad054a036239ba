package dev.tern.testtools;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestPemsTest {
  @Test
  void generate_makesAPemCertificateWithTheNameAndSans_andAPkcs8KeyThatSignsForIt()
      throws Exception {
    TestPems pems = TestPems.generate("server", "dns:server.tern.test,uri:spiffe://tern.test/s");

    X509Certificate parsed =
        (X509Certificate)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(
                    new ByteArrayInputStream(pems.certificatePem.getBytes(US_ASCII)));
    assertThat(parsed).isEqualTo(pems.certificate);
    assertThat(parsed.getSubjectX500Principal().getName()).isEqualTo("CN=server");
    assertThat(parsed.getSubjectAlternativeNames())
        .containsExactlyInAnyOrder(
            List.of(2, "server.tern.test"), List.of(6, "spiffe://tern.test/s"));
    parsed.verify(parsed.getPublicKey()); // self-signed

    String base64 =
        pems.keyPem
            .replace("-----BEGIN PRIVATE KEY-----", "")
            .replace("-----END PRIVATE KEY-----", "");
    PrivateKey key =
        KeyFactory.getInstance("EC")
            .generatePrivate(new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(base64)));
    Signature signer = Signature.getInstance("SHA256withECDSA");
    signer.initSign(key);
    signer.update(new byte[] {1, 2, 3});
    byte[] signature = signer.sign();
    Signature verifier = Signature.getInstance("SHA256withECDSA");
    verifier.initVerify(parsed);
    verifier.update(new byte[] {1, 2, 3});
    assertThat(verifier.verify(signature)).isTrue();
  }

  @Test
  void rootsConcatenates_andReplaceSwapsTheFileContent(@TempDir Path dir) throws Exception {
    TestPems a = TestPems.generate("a", "dns:a");
    TestPems b = TestPems.generate("b", "dns:b");
    Path file = Files.writeString(dir.resolve("roots.pem"), a.certificatePem);

    TestPems.replace(file, TestPems.roots(List.of(a, b)));

    assertThat(Files.readString(file)).isEqualTo(a.certificatePem + b.certificatePem);
    try (InputStream in = Files.newInputStream(file)) {
      List<Certificate> parsed =
          List.copyOf(CertificateFactory.getInstance("X.509").generateCertificates(in));
      assertThat(parsed).containsExactly(a.certificate, b.certificate);
    }
    assertThat(dir.toFile().list()).containsExactly("roots.pem");
  }
}
