package dev.tern.netty.internal.http2;

import static dev.tern.netty.internal.http2.HpackRfcExamplesTest.ascii;
import static dev.tern.netty.internal.http2.HpackRfcExamplesTest.decode;
import static dev.tern.netty.internal.http2.HpackRfcExamplesTest.encode;
import static dev.tern.netty.internal.http2.HpackRfcExamplesTest.hex;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** What the encoder indexes for gRPC, what it never indexes, and table size changes. */
class HpackEncoderTest {
  static final List<String> GRPC_REQUEST =
      List.of(
          ":method: POST",
          ":scheme: http",
          ":path: /grpc.testing.BenchmarkService/UnaryCall",
          ":authority: localhost:50051",
          "te: trailers",
          "content-type: application/grpc",
          "user-agent: grpc-java-netty/1.79.0",
          "grpc-accept-encoding: gzip",
          "grpc-timeout: 1S");

  private final HpackEncoder encoder = new HpackEncoder();
  private final HpackDecoder decoder = new HpackDecoder(8192, 4096);

  @Test
  void repeatedGrpcRequestShrinksToIndexes() throws HpackException {
    String first = encode(encoder, GRPC_REQUEST);
    String second = encode(encoder, GRPC_REQUEST);
    assertThat(decode(decoder, hex(first))).isEqualTo(GRPC_REQUEST);
    assertThat(decode(decoder, hex(second))).isEqualTo(GRPC_REQUEST);
    // Second time: 8 one-byte indexes and grpc-timeout as a literal with an indexed name.
    assertThat(second.length() / 2).isLessThan(24);
    assertThat(first.length() / 2).isGreaterThan(80);
    assertThat(encoder.dynamicTable().length())
        .as("all but :method, :scheme, grpc-timeout")
        .isEqualTo(6);
  }

  /**
   * A refusal's trailers repeat their message call after call: the second is two indexes. A long
   * message (a stack of causes) is not put in the table.
   */
  @Test
  void aRepeatedShortGrpcMessageShrinksToAnIndexALongOneStaysALiteral() throws HpackException {
    List<String> refusal =
        List.of(
            "grpc-status: 8",
            "grpc-message: Server overloaded: 12 unary calls in progress, its adaptive limit"
                + " (adaptiveConcurrencyLimit); try again later");
    String first = encode(encoder, refusal);
    String second = encode(encoder, refusal);
    assertThat(decode(decoder, hex(first))).isEqualTo(refusal);
    assertThat(decode(decoder, hex(second))).isEqualTo(refusal);
    assertThat(first.length() / 2).isGreaterThan(60);
    assertThat(second.length() / 2).as("two one-byte indexes").isEqualTo(2);

    List<String> long1 =
        List.of("grpc-message: " + "x".repeat(HpackEncoder.MAX_INDEXED_MESSAGE + 1));
    int entries = encoder.dynamicTable().length();
    String once = encode(encoder, long1);
    String twice = encode(encoder, long1);
    assertThat(decode(decoder, hex(once))).isEqualTo(long1);
    assertThat(decode(decoder, hex(twice))).isEqualTo(long1);
    assertThat(twice).isEqualTo(once);
    assertThat(encoder.dynamicTable().length()).isEqualTo(entries);
  }

  @Test
  void authorizationAndMarkedNamesAreNeverIndexed() throws HpackException {
    ByteBuf out = Unpooled.buffer();
    encoder.beginBlock(out);
    encoder.header(out, ascii("authorization"), ascii("Bearer abc"), false);
    encoder.header(out, ascii("x-token"), ascii("t0k3n"), true);
    encoder.header(out, ascii("content-type"), ascii("application/grpc"), true);
    assertThat(decode(decoder, out))
        .containsExactly(
            "authorization: Bearer abc (sensitive)",
            "x-token: t0k3n (sensitive)",
            "content-type: application/grpc (sensitive)");
    assertThat(encoder.dynamicTable()).as("nothing indexed").isNull();
    assertThat(decoder.dynamicTable()).isNull();
  }

  @Test
  void staticMatchesAreOneByte() {
    assertThat(encode(encoder, List.of(":method: POST", ":status: 200", ":scheme: https")))
        .isEqualTo("838887");
  }

  @Test
  void peerTableSizeChangesAreSignalledAtTheNextBlock() throws HpackException {
    encode(encoder, GRPC_REQUEST);
    encoder.setPeerHeaderTableSize(0);
    encoder.setPeerHeaderTableSize(100);
    assertThat(encoder.dynamicTable().length()).as("evicted by the 0").isZero();
    assertThat(encode(encoder, List.of())).isEqualTo("203f45");
    encoder.setPeerHeaderTableSize(1 << 20);
    assertThat(encode(encoder, List.of())).as("capped at 4096").isEqualTo("3fe11f");
    assertThat(encode(encoder, List.of())).as("said once").isEmpty();
  }

  @Test
  void tableStaysWithinItsSize() throws HpackException {
    for (int i = 0; i < 500; i++) {
      List<String> request =
          List.of(":path: /service/Method" + i, "content-type: application/grpc");
      assertThat(decode(decoder, hex(encode(encoder, request)))).isEqualTo(request);
      assertThat(encoder.dynamicTable().size()).isLessThanOrEqualTo(4096);
      assertThat(decoder.dynamicTable().size()).isEqualTo(encoder.dynamicTable().size());
    }
  }

  /** Property: random header lists and table size changes, encoded then decoded, come back. */
  @Test
  void randomHeaderListsRoundTrip() throws HpackException {
    Random random = new Random(34);
    for (int run = 0; run < 50; run++) {
      HpackEncoder enc = new HpackEncoder(4096, random.nextBoolean(), random.nextBoolean());
      HpackDecoder dec = new HpackDecoder(Long.MAX_VALUE, 4096);
      for (int block = 0; block < 20; block++) {
        if (random.nextInt(5) == 0) {
          enc.setPeerHeaderTableSize(random.nextInt(5000));
        }
        List<String> sent = new ArrayList<>();
        ByteBuf out = Unpooled.buffer();
        enc.beginBlock(out);
        for (int i = random.nextInt(12); i > 0; i--) {
          byte[] name = randomName(random);
          byte[] value = new byte[random.nextInt(random.nextBoolean() ? 8 : 300)];
          random.nextBytes(value);
          boolean sensitive = random.nextInt(8) == 0;
          enc.header(out, name, value, sensitive);
          sent.add(field(name, value, sensitive));
        }
        assertThat(decodeFields(dec, out)).as("run %s block %s", run, block).isEqualTo(sent);
      }
    }
  }

  @Test
  void theSameArraysAgainAreTheSameIndexesUntilAnInsertionMovesThem() throws HpackException {
    byte[] path = ascii(":path");
    byte[] method = ascii("/service/Method");
    byte[] custom = ascii("x-custom");
    byte[] other = ascii("x-other");
    byte[] value = ascii("v");
    List<String> block = List.of(":path: /service/Method");
    ByteBuf first = Unpooled.buffer();
    encoder.header(first, path, method, false); // inserted: dynamic index 62
    ByteBuf second = Unpooled.buffer();
    encoder.header(second, path, method, false); // 62, remembered
    ByteBuf third = Unpooled.buffer();
    encoder.header(third, path, method, false); // 62 from memory

    assertThat(decode(decoder, first)).isEqualTo(block);
    assertThat(ByteBufUtil.hexDump(second)).isEqualTo("be");
    assertThat(ByteBufUtil.hexDump(third)).isEqualTo("be");
    assertThat(decode(decoder, second)).isEqualTo(block);
    assertThat(decode(decoder, third)).isEqualTo(block);

    HpackEncoder indexing = new HpackEncoder(4096, false, true);
    HpackDecoder peer = new HpackDecoder(Long.MAX_VALUE, 4096);
    ByteBuf out = Unpooled.buffer();
    indexing.header(out, custom, value, false); // inserted: 62
    indexing.header(out, custom, value, false); // 62, remembered
    indexing.header(out, other, value, false); // inserted: x-custom moves to 63
    indexing.header(out, custom, value, false); // must be 63 now, not the remembered 62
    assertThat(decode(peer, out))
        .containsExactly("x-custom: v", "x-custom: v", "x-other: v", "x-custom: v");
  }

  @Test
  void anApplicationsArrayFilledAnewIsSentWithItsNewBytes() throws HpackException {
    HpackEncoder indexing = new HpackEncoder(4096, false, true);
    HpackDecoder peer = new HpackDecoder(Long.MAX_VALUE, 4096);
    byte[] name = ascii("trace-bin");
    byte[] value = {1, 2, 3};
    ByteBuf out = Unpooled.buffer();
    indexing.header(out, name, value, false); // inserted
    indexing.header(out, name, value, false); // its index
    value[0] = 9; // the application reuses its array for the next call
    indexing.header(out, name, value, false);
    assertThat(decodeFields(peer, out))
        .containsExactly(
            field(name, new byte[] {1, 2, 3}, false),
            field(name, new byte[] {1, 2, 3}, false),
            field(name, new byte[] {9, 2, 3}, false));
  }

  /**
   * More fields remembered than the memory first holds, and than it holds at most: each is still
   * its own one-byte index, as the peer decodes it.
   */
  @Test
  void manyRememberedFieldsAreEachTheirOwnIndex() throws HpackException {
    byte[] path = ascii(":path");
    List<byte[]> paths = new ArrayList<>();
    ByteBuf out = Unpooled.buffer();
    List<String> sent = new ArrayList<>();
    for (int i = 0; i < HpackEncoder.MEMO_SIZE + 4; i++) {
      paths.add(ascii("/service/Method" + i));
      encoder.header(out, path, paths.get(i), false); // inserted; nothing remembered yet
      sent.add(":path: /service/Method" + i);
    }
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < paths.size(); i++) {
        int before = out.writerIndex();
        encoder.header(out, path, paths.get(i), false);
        assertThat(out.writerIndex() - before).as("round %s field %s", round, i).isEqualTo(1);
        sent.add(":path: /service/Method" + i);
      }
    }
    assertThat(decode(decoder, out)).isEqualTo(sent);
  }

  /**
   * The table keeps a copy of an application's value, but the common gRPC strings it inserts on
   * every connection are the one shared array (an idle connection's table holds no copies of them).
   */
  @Test
  void theTableSharesTheCommonGrpcStringsAndCopiesOthers() {
    byte[] contentType = ascii("application/grpc");
    byte[] path = ascii("/service/Method");
    encoder.header(Unpooled.buffer(), ascii("content-type"), contentType, false);
    encoder.header(Unpooled.buffer(), ascii(":path"), path, false);

    HpackDynamicTable table = encoder.dynamicTable();
    assertThat(table.value(2)).isSameAs(HpackCommonStrings.intern(ascii("application/grpc")));
    assertThat(table.name(2)).isSameAs(HpackCommonStrings.intern(ascii("content-type")));
    assertThat(table.value(1)).isEqualTo(path).isNotSameAs(path);
  }

  /**
   * Property: the same arrays sent again and again, among new ones and table size changes (as a
   * channel's request fields are), decode to what was sent.
   */
  @Test
  void reusedArraysRoundTrip() throws HpackException {
    Random random = new Random(52);
    byte[][] names = new byte[HpackEncoder.MEMO_SIZE + 8][];
    byte[][] values = new byte[names.length][];
    for (int i = 0; i < names.length; i++) {
      names[i] = randomName(random);
      values[i] = new byte[random.nextInt(40)];
      random.nextBytes(values[i]);
    }
    for (int run = 0; run < 20; run++) {
      HpackEncoder enc = new HpackEncoder(4096, random.nextBoolean(), random.nextBoolean());
      HpackDecoder dec = new HpackDecoder(Long.MAX_VALUE, 4096);
      for (int block = 0; block < 40; block++) {
        if (random.nextInt(8) == 0) {
          enc.setPeerHeaderTableSize(random.nextInt(300));
        }
        List<String> sent = new ArrayList<>();
        ByteBuf out = Unpooled.buffer();
        enc.beginBlock(out);
        for (int i = random.nextInt(10); i > 0; i--) {
          int pick = random.nextInt(names.length + 1);
          byte[] name = pick < names.length ? names[pick] : randomName(random);
          byte[] value = pick < names.length ? values[pick] : ascii("new" + i);
          enc.header(out, name, value, false);
          sent.add(field(name, value, false));
        }
        assertThat(decodeFields(dec, out)).as("run %s block %s", run, block).isEqualTo(sent);
      }
    }
  }

  private static final String[] NAMES = {
    ":path", ":authority", "content-type", "te", "grpc-timeout", "user-agent", "x-custom", "a-bin"
  };

  private static byte[] randomName(Random random) {
    if (random.nextBoolean()) {
      return ascii(NAMES[random.nextInt(NAMES.length)]);
    }
    byte[] name = new byte[1 + random.nextInt(20)];
    for (int i = 0; i < name.length; i++) {
      name[i] = (byte) ('a' + random.nextInt(26));
    }
    return name;
  }

  /** The fields of {@code block}, as {@link #field} writes them; releases {@code block}. */
  private static List<String> decodeFields(HpackDecoder dec, ByteBuf block) throws HpackException {
    List<String> received = new ArrayList<>();
    try {
      dec.decode(block, (n, v, s) -> received.add(field(n, v, s)));
    } finally {
      block.release();
    }
    return received;
  }

  private static String field(byte[] name, byte[] value, boolean sensitive) {
    return new String(name, StandardCharsets.ISO_8859_1)
        + ": "
        + ByteBufUtil.hexDump(value)
        + (sensitive ? " (sensitive)" : "");
  }
}
