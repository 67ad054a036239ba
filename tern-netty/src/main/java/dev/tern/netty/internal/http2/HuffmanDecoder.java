package dev.tern.netty.internal.http2;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.Arrays;

/**
 * Decodes Huffman-encoded HPACK strings (RFC 7541 section 5.2) four bits at a time.
 *
 * <p>The state machine is generated at class initialisation from {@link HpackHuffman}'s code: a
 * state is an inner node of the code's tree (256 of them; state 0 is the root), and for each state
 * and each 4-bit input {@link #TRANSITIONS} gives the next state and the symbol completed on the
 * way, if any (no code is shorter than 5 bits, so at most one). Reaching EOS is an error, and so is
 * ending in a state that is not the root followed by at most 7 one bits (padding longer than 7
 * bits, or not the EOS code's prefix).
 *
 * <p>Strings are decoded into a scratch array of the calling thread's, which grows to the longest
 * string decoded on that thread: an event loop's connections take turns with one array instead of
 * each holding its own for its life. Stateless otherwise; thread-safe.
 */
final class HuffmanDecoder {
  private static final int STATES = 256;
  private static final int EMIT = 1 << 17;
  private static final int FAIL = 1 << 18;
  private static final byte[] NO_BYTES = {};

  /** state * 16 + nibble -> next state (bits 0-8) | symbol (bits 9-16) | EMIT | FAIL. */
  private static final int[] TRANSITIONS = new int[STATES * 16];

  /** The states a string may end in: the root, or up to 7 ones below it. */
  private static final boolean[] ACCEPTING = new boolean[STATES];

  static {
    buildStateMachine();
  }

  /** Each thread's scratch array. */
  private static final FastThreadLocal<byte[]> SCRATCH =
      new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
          return NO_BYTES;
        }
      };

  /**
   * Decodes the {@code length} bytes of {@code in} at {@code index} (reader index untouched).
   *
   * @return the decoded bytes, a new array the caller may keep
   * @throws HpackException a COMPRESSION_ERROR: EOS in the string, or bad padding
   */
  byte[] decode(ByteBuf in, int index, int length) throws HpackException {
    int bound = (int) ((length * 8L) / 5); // no code is shorter than 5 bits
    byte[] out = SCRATCH.get();
    if (out.length < bound) {
      out = new byte[Math.max(bound, 64)];
      SCRATCH.set(out);
    }
    int written = 0;
    int state = 0;
    byte[] array = in.hasArray() ? in.array() : null;
    int offset = array != null ? in.arrayOffset() + index : index;
    for (int i = offset, end = offset + length; i < end; i++) {
      int b = (array != null ? array[i] : in.getByte(i)) & 0xFF;
      int t = TRANSITIONS[(state << 4) | (b >>> 4)];
      if ((t & (EMIT | FAIL)) != 0) {
        if ((t & FAIL) != 0) {
          throw HpackException.compression("Huffman-encoded string contains EOS");
        }
        out[written++] = (byte) (t >>> 9);
      }
      state = t & 0x1FF;
      t = TRANSITIONS[(state << 4) | (b & 0xF)];
      if ((t & (EMIT | FAIL)) != 0) {
        if ((t & FAIL) != 0) {
          throw HpackException.compression("Huffman-encoded string contains EOS");
        }
        out[written++] = (byte) (t >>> 9);
      }
      state = t & 0x1FF;
    }
    if (!ACCEPTING[state]) {
      throw HpackException.compression(
          "Huffman-encoded string ends in padding longer than 7 bits or not all ones");
    }
    return Arrays.copyOf(out, written);
  }

  private static void buildStateMachine() {
    // The code's tree: inner nodes numbered as created (0 is the root); children[2 * node + bit]
    // is another inner node, or ~symbol for a leaf.
    int[] children = new int[STATES * 2];
    Arrays.fill(children, Integer.MIN_VALUE); // no child yet
    int[] depth = new int[STATES];
    boolean[] allOnes = new boolean[STATES];
    allOnes[0] = true;
    int nodes = 1;
    for (int symbol = 0; symbol <= HpackHuffman.EOS; symbol++) {
      int code = HpackHuffman.code(symbol);
      int length = HpackHuffman.length(symbol);
      int node = 0;
      for (int bit = length - 1; bit > 0; bit--) {
        int b = (code >>> bit) & 1;
        int child = children[2 * node + b];
        if (child == Integer.MIN_VALUE) {
          child = nodes++;
          children[2 * node + b] = child;
          depth[child] = depth[node] + 1;
          allOnes[child] = allOnes[node] && b == 1;
        } else if (child < 0) {
          throw new IllegalStateException("Huffman code is not prefix-free at " + symbol);
        }
        node = child;
      }
      children[2 * node + (code & 1)] = ~symbol;
    }
    if (nodes != STATES) {
      throw new IllegalStateException("Huffman code has " + nodes + " inner nodes");
    }
    for (int state = 0; state < STATES; state++) {
      ACCEPTING[state] = allOnes[state] && depth[state] <= 7;
      for (int nibble = 0; nibble < 16; nibble++) {
        int node = state;
        int result = 0;
        for (int bit = 3; bit >= 0; bit--) {
          int child = children[2 * node + ((nibble >>> bit) & 1)];
          if (child >= 0) {
            node = child;
          } else if (~child == HpackHuffman.EOS) {
            result |= FAIL;
            node = 0;
          } else {
            result |= EMIT | (~child << 9);
            node = 0;
          }
        }
        TRANSITIONS[(state << 4) | nibble] = result | node;
      }
    }
  }
}
