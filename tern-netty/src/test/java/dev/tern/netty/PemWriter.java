package dev.tern.netty;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.PBEParameterSpec;

/** Writes test keys and certificates as PEM, in each key format the credentials accept. */
final class PemWriter {
  private PemWriter() {}

  static String pem(String label, byte[] der) {
    String body =
        Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n";
  }

  static String certificates(X509Certificate... certificates) throws GeneralSecurityException {
    StringBuilder out = new StringBuilder();
    for (X509Certificate certificate : certificates) {
      out.append(pem("CERTIFICATE", certificate.getEncoded()));
    }
    return out.toString();
  }

  static String pkcs8(PrivateKey key) {
    return pem("PRIVATE KEY", key.getEncoded());
  }

  /** PKCS#1: the RSAPrivateKey inside the PKCS#8 encoding. */
  static String pkcs1(PrivateKey rsa) {
    return pem("RSA PRIVATE KEY", innerKey(rsa.getEncoded()));
  }

  /** SEC1: the ECPrivateKey inside the PKCS#8 encoding, with the curve added as [0]. */
  static String sec1(PrivateKey ec) {
    byte[] pkcs8 = ec.getEncoded();
    List<byte[]> info = children(pkcs8, 0);
    byte[] curve = children(info.get(1), 0).get(1);
    List<byte[]> fields = children(innerKey(pkcs8), 0);
    List<byte[]> out = new ArrayList<>();
    out.add(fields.get(0));
    out.add(fields.get(1));
    out.add(tlv(0xA0, curve));
    for (int i = 2; i < fields.size(); i++) {
      if ((fields.get(i)[0] & 0xff) != 0xA0) {
        out.add(fields.get(i));
      }
    }
    return pem("EC PRIVATE KEY", tlv(0x30, out.toArray(new byte[0][])));
  }

  /**
   * PKCS#8 encrypted with PBES2 (PBKDF2-HMAC-SHA256, AES-256-CBC), as openssl pkcs8 -topk8 does.
   */
  static String encryptedPkcs8(PrivateKey key, String password) throws GeneralSecurityException {
    String algorithm = "PBEWithHmacSHA256AndAES_256";
    byte[] salt = new byte[16];
    byte[] iv = new byte[16];
    SecureRandom random = new SecureRandom();
    random.nextBytes(salt);
    random.nextBytes(iv);
    Cipher cipher = Cipher.getInstance(algorithm);
    cipher.init(
        Cipher.ENCRYPT_MODE,
        SecretKeyFactory.getInstance(algorithm)
            .generateSecret(new PBEKeySpec(password.toCharArray())),
        new PBEParameterSpec(salt, 10_000, new IvParameterSpec(iv)));
    byte[] encrypted = cipher.doFinal(key.getEncoded());
    try {
      // The cipher's parameters are PBES2-params, but named after the cipher, which has no OID.
      AlgorithmParameters parameters = AlgorithmParameters.getInstance("PBES2");
      parameters.init(cipher.getParameters().getEncoded());
      return pem(
          "ENCRYPTED PRIVATE KEY", new EncryptedPrivateKeyInfo(parameters, encrypted).getEncoded());
    } catch (IOException e) {
      throw new GeneralSecurityException(e);
    }
  }

  static Path write(Path dir, String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content, StandardCharsets.US_ASCII);
  }

  /** The contents of the OCTET STRING in a PKCS#8 PrivateKeyInfo. */
  private static byte[] innerKey(byte[] pkcs8) {
    byte[] octets = children(pkcs8, 0).get(2);
    return contents(octets);
  }

  /** The TLVs inside the SEQUENCE (or context tag) starting at {@code at}. */
  private static List<byte[]> children(byte[] der, int at) {
    byte[] inner = contents(slice(der, at));
    List<byte[]> out = new ArrayList<>();
    int position = 0;
    while (position < inner.length) {
      byte[] child = slice(inner, position);
      out.add(child);
      position += child.length;
    }
    return out;
  }

  /** The whole TLV at {@code at}. */
  private static byte[] slice(byte[] der, int at) {
    int[] header = header(der, at);
    byte[] out = new byte[header[0] + header[1]];
    System.arraycopy(der, at, out, 0, out.length);
    return out;
  }

  private static byte[] contents(byte[] tlv) {
    int[] header = header(tlv, 0);
    byte[] out = new byte[header[1]];
    System.arraycopy(tlv, header[0], out, 0, out.length);
    return out;
  }

  /** {header length, content length} of the TLV at {@code at}. */
  private static int[] header(byte[] der, int at) {
    int length = der[at + 1] & 0xff;
    if (length < 0x80) {
      return new int[] {2, length};
    }
    int bytes = length & 0x7f;
    int value = 0;
    for (int i = 0; i < bytes; i++) {
      value = (value << 8) | (der[at + 2 + i] & 0xff);
    }
    return new int[] {2 + bytes, value};
  }

  private static byte[] tlv(int tag, byte[]... parts) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      body.writeBytes(part);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int length = body.size();
    if (length < 0x80) {
      out.write(length);
    } else if (length < 0x100) {
      out.write(0x81);
      out.write(length);
    } else {
      out.write(0x82);
      out.write(length >> 8);
      out.write(length);
    }
    out.writeBytes(body.toByteArray());
    return out.toByteArray();
  }
}
