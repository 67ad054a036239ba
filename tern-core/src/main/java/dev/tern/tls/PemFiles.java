package dev.tern.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Reads PEM certificate chains and private keys: PKCS#8 ({@code PRIVATE KEY}), password-protected
 * PKCS#8 ({@code ENCRYPTED PRIVATE KEY}), PKCS#1 RSA ({@code RSA PRIVATE KEY}) and SEC1 EC ({@code
 * EC PRIVATE KEY}) keys, using only the JDK. Every failure is an {@link IllegalArgumentException}
 * that starts with the source's name (a file's path, or "the certificate chain stream") and says
 * what is wrong.
 *
 * <p>Stateless; thread-safe.
 */
public final class PemFiles {
  private static final String RSA_ENCRYPTION = "1.2.840.113549.1.1.1";
  private static final String RSASSA_PSS = "1.2.840.113549.1.1.10";
  private static final String EC_PUBLIC_KEY = "1.2.840.10045.2.1";
  private static final String PBES2 = "1.2.840.113549.1.5.13";
  private static final Map<String, String> KEY_ALGORITHMS =
      Map.of(
          RSA_ENCRYPTION,
          "RSA",
          RSASSA_PSS,
          "RSASSA-PSS",
          EC_PUBLIC_KEY,
          "EC",
          "1.3.101.112",
          "Ed25519",
          "1.3.101.113",
          "Ed448");

  /** AlgorithmIdentifier { rsaEncryption, NULL }. */
  private static final byte[] RSA_ALGORITHM_ID = {
    0x30,
    0x0d,
    0x06,
    0x09,
    0x2a,
    (byte) 0x86,
    0x48,
    (byte) 0x86,
    (byte) 0xf7,
    0x0d,
    0x01,
    0x01,
    0x01,
    0x05,
    0x00
  };

  /** The OID ecPublicKey (1.2.840.10045.2.1), encoded. */
  private static final byte[] EC_PUBLIC_KEY_OID = {
    0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01
  };

  private PemFiles() {}

  /** One {@code -----BEGIN label-----} ... {@code -----END label-----} block. */
  record Block(String label, String body) {}

  /**
   * Reads the certificates in {@code pem}, in order (leaf first for a chain).
   *
   * @param source names the input in error messages
   * @throws IllegalArgumentException if there is no certificate or one is not valid X.509
   */
  public static List<X509Certificate> certificates(byte[] pem, String source) {
    List<X509Certificate> out = new ArrayList<>();
    CertificateFactory factory;
    try {
      factory = CertificateFactory.getInstance("X.509");
    } catch (CertificateException e) {
      throw new IllegalStateException("the JDK has no X.509 certificate factory", e);
    }
    for (Block block : blocks(pem, source)) {
      if (!block.label().equals("CERTIFICATE") && !block.label().equals("TRUSTED CERTIFICATE")) {
        continue;
      }
      byte[] der = decode(block, source);
      try (InputStream in = new ByteArrayInputStream(der)) {
        out.add((X509Certificate) factory.generateCertificate(in));
      } catch (CertificateException | IOException e) {
        throw new IllegalArgumentException(
            source
                + ": certificate "
                + (out.size() + 1)
                + " is not a valid X.509 certificate ("
                + e.getMessage()
                + ")",
            e);
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          source + ": no PEM certificate (-----BEGIN CERTIFICATE-----) found");
    }
    return List.copyOf(out);
  }

  /**
   * Reads the private key in {@code pem}.
   *
   * @param password decrypts an {@code ENCRYPTED PRIVATE KEY}; ignored for unencrypted keys
   * @param source names the input in error messages
   * @throws IllegalArgumentException if there is no key, it is malformed, encrypted without a
   *     password or with another password, or of an algorithm the JDK does not have
   */
  public static PrivateKey privateKey(byte[] pem, String password, String source) {
    byte[] ecParameters = null;
    Block keyBlock = null;
    for (Block block : blocks(pem, source)) {
      switch (block.label()) {
        case "EC PARAMETERS" -> ecParameters = decode(block, source);
        case "PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY" -> {
          if (keyBlock != null) {
            throw new IllegalArgumentException(source + ": more than one private key");
          }
          keyBlock = block;
        }
        default -> {}
      }
    }
    if (keyBlock == null) {
      throw new IllegalArgumentException(
          source
              + ": no PEM private key found (expected PRIVATE KEY, ENCRYPTED PRIVATE KEY, RSA"
              + " PRIVATE KEY or EC PRIVATE KEY)");
    }
    if (keyBlock.body().contains("Proc-Type:")) {
      throw new IllegalArgumentException(
          source
              + ": the "
              + keyBlock.label()
              + " is encrypted the legacy OpenSSL way (Proc-Type header), which is not supported;"
              + " convert it to encrypted PKCS#8 (openssl pkcs8 -topk8)");
    }
    byte[] der = decode(keyBlock, source);
    try {
      byte[] pkcs8 =
          switch (keyBlock.label()) {
            case "PRIVATE KEY" -> der;
            case "ENCRYPTED PRIVATE KEY" -> decrypt(der, password, source);
            case "RSA PRIVATE KEY" -> Der.privateKeyInfo(RSA_ALGORITHM_ID, checkSequence(der));
            default -> ecToPkcs8(der, ecParameters, source);
          };
      return fromPkcs8(pkcs8, keyBlock.label(), source);
    } catch (IllegalArgumentException e) {
      if (e.getMessage() != null && e.getMessage().startsWith(source)) {
        throw e;
      }
      throw new IllegalArgumentException(
          source + ": malformed " + keyBlock.label() + " (" + e.getMessage() + ")", e);
    }
  }

  /**
   * Checks that {@code key} belongs to the leaf certificate of a chain, by signing with the one and
   * verifying with the other (or comparing RSA moduli).
   *
   * @throws IllegalArgumentException if it does not
   */
  public static void checkKeyMatches(PrivateKey key, X509Certificate leaf, String source) {
    PublicKey publicKey = leaf.getPublicKey();
    if (!key.getAlgorithm().equals(publicKey.getAlgorithm())) {
      throw new IllegalArgumentException(
          source
              + ": the private key ("
              + key.getAlgorithm()
              + ") does not match the certificate's public key ("
              + publicKey.getAlgorithm()
              + ")");
    }
    boolean matches;
    if (key instanceof RSAPrivateCrtKey rsa && publicKey instanceof RSAPublicKey rsaPublic) {
      matches = rsa.getModulus().equals(rsaPublic.getModulus());
    } else {
      String algorithm =
          switch (key.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "Ed448", "EdDSA" -> key.getAlgorithm();
            default -> null;
          };
      if (algorithm == null) {
        return; // no cheap check for this algorithm; the TLS handshake will tell
      }
      try {
        byte[] challenge = new byte[32];
        new SecureRandom().nextBytes(challenge);
        Signature signer = Signature.getInstance(algorithm);
        signer.initSign(key);
        signer.update(challenge);
        byte[] signature = signer.sign();
        Signature verifier = Signature.getInstance(algorithm);
        verifier.initVerify(publicKey);
        verifier.update(challenge);
        matches = verifier.verify(signature);
      } catch (GeneralSecurityException e) {
        matches = false;
      }
    }
    if (!matches) {
      throw new IllegalArgumentException(
          source
              + ": the private key does not match the certificate "
              + leaf.getSubjectX500Principal().getName());
    }
  }

  private static byte[] checkSequence(byte[] der) {
    Der.Value outer = new Der(der).next(Der.SEQUENCE, "a SEQUENCE");
    if (outer.contentEnd() != der.length) {
      throw new IllegalArgumentException("bytes after the key");
    }
    return der;
  }

  private static byte[] ecToPkcs8(byte[] sec1, byte[] ecParameters, String source) {
    // ECPrivateKey ::= SEQUENCE { version 1, privateKey OCTET STRING, [0] parameters, [1] public }
    Der key = checkSequenceReader(sec1);
    key.next(Der.INTEGER, "the version");
    key.next(Der.OCTET_STRING, "the private key");
    byte[] curve = null;
    while (key.hasMore()) {
      Der.Value field = key.next();
      if (field.tag() == Der.CONTEXT_0) {
        curve = field.contents().next(Der.OID, "a named curve").encoded();
      }
    }
    if (curve == null && ecParameters != null) {
      curve = new Der(ecParameters).next(Der.OID, "a named curve in EC PARAMETERS").encoded();
    }
    if (curve == null) {
      throw new IllegalArgumentException(source + ": the EC PRIVATE KEY does not name its curve");
    }
    return Der.privateKeyInfo(Der.wrap(Der.SEQUENCE, EC_PUBLIC_KEY_OID, curve), sec1);
  }

  private static Der checkSequenceReader(byte[] der) {
    return new Der(checkSequence(der)).next().contents();
  }

  private static PrivateKey fromPkcs8(byte[] pkcs8, String label, String source) {
    // PrivateKeyInfo ::= SEQUENCE { version, AlgorithmIdentifier { OID, params }, OCTET STRING }
    Der info = checkSequenceReader(pkcs8);
    info.next(Der.INTEGER, "the version");
    String oid =
        oidToString(info.next(Der.SEQUENCE, "the algorithm").contents().next(Der.OID, "an OID"));
    String algorithm = KEY_ALGORITHMS.get(oid);
    if (algorithm == null) {
      throw new IllegalArgumentException(
          source + ": the " + label + " uses an unsupported key algorithm (OID " + oid + ")");
    }
    try {
      return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          source
              + ": the "
              + label
              + " is not a valid "
              + algorithm
              + " key ("
              + e.getMessage()
              + ")",
          e);
    }
  }

  private static byte[] decrypt(byte[] der, String password, String source) {
    if (password == null) {
      throw new IllegalArgumentException(
          source + ": the private key is encrypted; give its password");
    }
    EncryptedPrivateKeyInfo info;
    try {
      info = new EncryptedPrivateKeyInfo(der);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          source + ": malformed ENCRYPTED PRIVATE KEY (" + e.getMessage() + ")", e);
    }
    String cipherName = info.getAlgName();
    AlgorithmParameters parameters = info.getAlgParameters();
    if ((cipherName.equals(PBES2) || cipherName.equals("PBES2")) && parameters != null) {
      cipherName = parameters.toString(); // e.g. PBEWithHmacSHA256AndAES_256
    }
    PBEKeySpec spec = new PBEKeySpec(password.toCharArray());
    try {
      SecretKeyFactory factory = SecretKeyFactory.getInstance(cipherName);
      Cipher cipher = Cipher.getInstance(cipherName);
      cipher.init(Cipher.DECRYPT_MODE, factory.generateSecret(spec), parameters);
      return info.getKeySpec(cipher).getEncoded();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalArgumentException(
          source + ": the private key is encrypted with " + cipherName + ", which the JDK lacks",
          e);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          source + ": could not decrypt the private key (wrong password?)", e);
    } finally {
      spec.clearPassword();
    }
  }

  private static String oidToString(Der.Value oid) {
    byte[] bytes = oid.content();
    if (bytes.length == 0) {
      throw new IllegalArgumentException("empty OID");
    }
    StringBuilder sb = new StringBuilder();
    long value = 0;
    boolean first = true;
    for (byte b : bytes) {
      value = (value << 7) | (b & 0x7f);
      if ((b & 0x80) == 0) {
        if (first) {
          int top = (int) Math.min(value / 40, 2);
          sb.append(top).append('.').append(value - 40L * top);
          first = false;
        } else {
          sb.append('.').append(value);
        }
        value = 0;
      }
    }
    return sb.toString();
  }

  private static byte[] decode(Block block, String source) {
    try {
      return Base64.getMimeDecoder().decode(block.body());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          source + ": the " + block.label() + " block is not valid base64 (" + e.getMessage() + ")",
          e);
    }
  }

  /** The PEM blocks of {@code pem}, text outside them ignored. */
  static List<Block> blocks(byte[] pem, String source) {
    String text = new String(pem, StandardCharsets.US_ASCII);
    List<Block> blocks = new ArrayList<>();
    int at = 0;
    while (true) {
      int begin = text.indexOf("-----BEGIN ", at);
      if (begin < 0) {
        return blocks;
      }
      int labelEnd = text.indexOf("-----", begin + 11);
      if (labelEnd < 0) {
        throw new IllegalArgumentException(source + ": unterminated -----BEGIN line");
      }
      String label = text.substring(begin + 11, labelEnd);
      String endLine = "-----END " + label + "-----";
      int end = text.indexOf(endLine, labelEnd + 5);
      if (end < 0) {
        throw new IllegalArgumentException(
            source + ": the " + label + " block has no " + endLine + " line (truncated file?)");
      }
      blocks.add(new Block(label, text.substring(labelEnd + 5, end)));
      at = end + endLine.length();
    }
  }
}
