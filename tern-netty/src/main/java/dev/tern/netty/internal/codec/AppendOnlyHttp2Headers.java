package dev.tern.netty.internal.codec;

import io.netty.handler.codec.Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The base of Tern's inbound header holders: every {@link Http2Headers} method throws {@link
 * UnsupportedOperationException}, and subclasses implement the few that Netty's HPACK decoder and
 * connection decoder call ({@code add}, {@code get}, {@code getAll}, {@code contains}, the
 * pseudo-header getters, {@code size}). A holder is filled once by the decoder and then read, so
 * the mutators beyond {@code add} have no use; failing loudly beats a silent partial
 * implementation.
 *
 * <p>Not thread-safe: built and read on one event loop.
 */
abstract class AppendOnlyHttp2Headers implements Http2Headers {
  /** Why a method is missing, naming it. */
  final UnsupportedOperationException unsupported(String method) {
    return new UnsupportedOperationException(
        getClass().getSimpleName()
            + " is append-only: built by the HPACK decoder and read by the transport; "
            + method
            + "() is never needed");
  }

  @Override
  public Iterator<Map.Entry<CharSequence, CharSequence>> iterator() {
    throw unsupported("iterator");
  }

  @Override
  public Iterator<CharSequence> valueIterator(CharSequence a) {
    throw unsupported("valueIterator");
  }

  @Override
  public Http2Headers method(CharSequence a) {
    throw unsupported("method");
  }

  @Override
  public Http2Headers scheme(CharSequence a) {
    throw unsupported("scheme");
  }

  @Override
  public Http2Headers authority(CharSequence a) {
    throw unsupported("authority");
  }

  @Override
  public Http2Headers path(CharSequence a) {
    throw unsupported("path");
  }

  @Override
  public Http2Headers status(CharSequence a) {
    throw unsupported("status");
  }

  @Override
  public CharSequence method() {
    throw unsupported("method");
  }

  @Override
  public CharSequence scheme() {
    throw unsupported("scheme");
  }

  @Override
  public CharSequence authority() {
    throw unsupported("authority");
  }

  @Override
  public CharSequence path() {
    throw unsupported("path");
  }

  @Override
  public CharSequence status() {
    throw unsupported("status");
  }

  @Override
  public boolean contains(CharSequence a, CharSequence b, boolean c) {
    throw unsupported("contains");
  }

  @Override
  public CharSequence get(CharSequence a) {
    throw unsupported("get");
  }

  @Override
  public CharSequence get(CharSequence a, CharSequence b) {
    throw unsupported("get");
  }

  @Override
  public CharSequence getAndRemove(CharSequence a) {
    throw unsupported("getAndRemove");
  }

  @Override
  public CharSequence getAndRemove(CharSequence a, CharSequence b) {
    throw unsupported("getAndRemove");
  }

  @Override
  public List<CharSequence> getAll(CharSequence a) {
    throw unsupported("getAll");
  }

  @Override
  public List<CharSequence> getAllAndRemove(CharSequence a) {
    throw unsupported("getAllAndRemove");
  }

  @Override
  public Boolean getBoolean(CharSequence a) {
    throw unsupported("getBoolean");
  }

  @Override
  public boolean getBoolean(CharSequence a, boolean b) {
    throw unsupported("getBoolean");
  }

  @Override
  public Byte getByte(CharSequence a) {
    throw unsupported("getByte");
  }

  @Override
  public byte getByte(CharSequence a, byte b) {
    throw unsupported("getByte");
  }

  @Override
  public Character getChar(CharSequence a) {
    throw unsupported("getChar");
  }

  @Override
  public char getChar(CharSequence a, char b) {
    throw unsupported("getChar");
  }

  @Override
  public Short getShort(CharSequence a) {
    throw unsupported("getShort");
  }

  @Override
  public short getShort(CharSequence a, short b) {
    throw unsupported("getShort");
  }

  @Override
  public Integer getInt(CharSequence a) {
    throw unsupported("getInt");
  }

  @Override
  public int getInt(CharSequence a, int b) {
    throw unsupported("getInt");
  }

  @Override
  public Long getLong(CharSequence a) {
    throw unsupported("getLong");
  }

  @Override
  public long getLong(CharSequence a, long b) {
    throw unsupported("getLong");
  }

  @Override
  public Float getFloat(CharSequence a) {
    throw unsupported("getFloat");
  }

  @Override
  public float getFloat(CharSequence a, float b) {
    throw unsupported("getFloat");
  }

  @Override
  public Double getDouble(CharSequence a) {
    throw unsupported("getDouble");
  }

  @Override
  public double getDouble(CharSequence a, double b) {
    throw unsupported("getDouble");
  }

  @Override
  public Long getTimeMillis(CharSequence a) {
    throw unsupported("getTimeMillis");
  }

  @Override
  public long getTimeMillis(CharSequence a, long b) {
    throw unsupported("getTimeMillis");
  }

  @Override
  public Boolean getBooleanAndRemove(CharSequence a) {
    throw unsupported("getBooleanAndRemove");
  }

  @Override
  public boolean getBooleanAndRemove(CharSequence a, boolean b) {
    throw unsupported("getBooleanAndRemove");
  }

  @Override
  public Byte getByteAndRemove(CharSequence a) {
    throw unsupported("getByteAndRemove");
  }

  @Override
  public byte getByteAndRemove(CharSequence a, byte b) {
    throw unsupported("getByteAndRemove");
  }

  @Override
  public Character getCharAndRemove(CharSequence a) {
    throw unsupported("getCharAndRemove");
  }

  @Override
  public char getCharAndRemove(CharSequence a, char b) {
    throw unsupported("getCharAndRemove");
  }

  @Override
  public Short getShortAndRemove(CharSequence a) {
    throw unsupported("getShortAndRemove");
  }

  @Override
  public short getShortAndRemove(CharSequence a, short b) {
    throw unsupported("getShortAndRemove");
  }

  @Override
  public Integer getIntAndRemove(CharSequence a) {
    throw unsupported("getIntAndRemove");
  }

  @Override
  public int getIntAndRemove(CharSequence a, int b) {
    throw unsupported("getIntAndRemove");
  }

  @Override
  public Long getLongAndRemove(CharSequence a) {
    throw unsupported("getLongAndRemove");
  }

  @Override
  public long getLongAndRemove(CharSequence a, long b) {
    throw unsupported("getLongAndRemove");
  }

  @Override
  public Float getFloatAndRemove(CharSequence a) {
    throw unsupported("getFloatAndRemove");
  }

  @Override
  public float getFloatAndRemove(CharSequence a, float b) {
    throw unsupported("getFloatAndRemove");
  }

  @Override
  public Double getDoubleAndRemove(CharSequence a) {
    throw unsupported("getDoubleAndRemove");
  }

  @Override
  public double getDoubleAndRemove(CharSequence a, double b) {
    throw unsupported("getDoubleAndRemove");
  }

  @Override
  public Long getTimeMillisAndRemove(CharSequence a) {
    throw unsupported("getTimeMillisAndRemove");
  }

  @Override
  public long getTimeMillisAndRemove(CharSequence a, long b) {
    throw unsupported("getTimeMillisAndRemove");
  }

  @Override
  public boolean contains(CharSequence a) {
    throw unsupported("contains");
  }

  @Override
  public boolean contains(CharSequence a, CharSequence b) {
    throw unsupported("contains");
  }

  @Override
  public boolean containsObject(CharSequence a, Object b) {
    throw unsupported("containsObject");
  }

  @Override
  public boolean containsBoolean(CharSequence a, boolean b) {
    throw unsupported("containsBoolean");
  }

  @Override
  public boolean containsByte(CharSequence a, byte b) {
    throw unsupported("containsByte");
  }

  @Override
  public boolean containsChar(CharSequence a, char b) {
    throw unsupported("containsChar");
  }

  @Override
  public boolean containsShort(CharSequence a, short b) {
    throw unsupported("containsShort");
  }

  @Override
  public boolean containsInt(CharSequence a, int b) {
    throw unsupported("containsInt");
  }

  @Override
  public boolean containsLong(CharSequence a, long b) {
    throw unsupported("containsLong");
  }

  @Override
  public boolean containsFloat(CharSequence a, float b) {
    throw unsupported("containsFloat");
  }

  @Override
  public boolean containsDouble(CharSequence a, double b) {
    throw unsupported("containsDouble");
  }

  @Override
  public boolean containsTimeMillis(CharSequence a, long b) {
    throw unsupported("containsTimeMillis");
  }

  @Override
  public int size() {
    throw unsupported("size");
  }

  @Override
  public boolean isEmpty() {
    throw unsupported("isEmpty");
  }

  @Override
  public Set<CharSequence> names() {
    throw unsupported("names");
  }

  @Override
  public Http2Headers add(CharSequence a, CharSequence b) {
    throw unsupported("add");
  }

  @Override
  public Http2Headers add(CharSequence a, Iterable<? extends CharSequence> b) {
    throw unsupported("add");
  }

  @Override
  public Http2Headers add(CharSequence a, CharSequence... b) {
    throw unsupported("add");
  }

  @Override
  public Http2Headers addObject(CharSequence a, Object b) {
    throw unsupported("addObject");
  }

  @Override
  public Http2Headers addObject(CharSequence a, Iterable<?> b) {
    throw unsupported("addObject");
  }

  @Override
  public Http2Headers addObject(CharSequence a, Object... b) {
    throw unsupported("addObject");
  }

  @Override
  public Http2Headers addBoolean(CharSequence a, boolean b) {
    throw unsupported("addBoolean");
  }

  @Override
  public Http2Headers addByte(CharSequence a, byte b) {
    throw unsupported("addByte");
  }

  @Override
  public Http2Headers addChar(CharSequence a, char b) {
    throw unsupported("addChar");
  }

  @Override
  public Http2Headers addShort(CharSequence a, short b) {
    throw unsupported("addShort");
  }

  @Override
  public Http2Headers addInt(CharSequence a, int b) {
    throw unsupported("addInt");
  }

  @Override
  public Http2Headers addLong(CharSequence a, long b) {
    throw unsupported("addLong");
  }

  @Override
  public Http2Headers addFloat(CharSequence a, float b) {
    throw unsupported("addFloat");
  }

  @Override
  public Http2Headers addDouble(CharSequence a, double b) {
    throw unsupported("addDouble");
  }

  @Override
  public Http2Headers addTimeMillis(CharSequence a, long b) {
    throw unsupported("addTimeMillis");
  }

  @Override
  public Http2Headers add(Headers<? extends CharSequence, ? extends CharSequence, ?> a) {
    throw unsupported("add");
  }

  @Override
  public Http2Headers set(CharSequence a, CharSequence b) {
    throw unsupported("set");
  }

  @Override
  public Http2Headers set(CharSequence a, Iterable<? extends CharSequence> b) {
    throw unsupported("set");
  }

  @Override
  public Http2Headers set(CharSequence a, CharSequence... b) {
    throw unsupported("set");
  }

  @Override
  public Http2Headers setObject(CharSequence a, Object b) {
    throw unsupported("setObject");
  }

  @Override
  public Http2Headers setObject(CharSequence a, Iterable<?> b) {
    throw unsupported("setObject");
  }

  @Override
  public Http2Headers setObject(CharSequence a, Object... b) {
    throw unsupported("setObject");
  }

  @Override
  public Http2Headers setBoolean(CharSequence a, boolean b) {
    throw unsupported("setBoolean");
  }

  @Override
  public Http2Headers setByte(CharSequence a, byte b) {
    throw unsupported("setByte");
  }

  @Override
  public Http2Headers setChar(CharSequence a, char b) {
    throw unsupported("setChar");
  }

  @Override
  public Http2Headers setShort(CharSequence a, short b) {
    throw unsupported("setShort");
  }

  @Override
  public Http2Headers setInt(CharSequence a, int b) {
    throw unsupported("setInt");
  }

  @Override
  public Http2Headers setLong(CharSequence a, long b) {
    throw unsupported("setLong");
  }

  @Override
  public Http2Headers setFloat(CharSequence a, float b) {
    throw unsupported("setFloat");
  }

  @Override
  public Http2Headers setDouble(CharSequence a, double b) {
    throw unsupported("setDouble");
  }

  @Override
  public Http2Headers setTimeMillis(CharSequence a, long b) {
    throw unsupported("setTimeMillis");
  }

  @Override
  public Http2Headers set(Headers<? extends CharSequence, ? extends CharSequence, ?> a) {
    throw unsupported("set");
  }

  @Override
  public Http2Headers setAll(Headers<? extends CharSequence, ? extends CharSequence, ?> a) {
    throw unsupported("setAll");
  }

  @Override
  public boolean remove(CharSequence a) {
    throw unsupported("remove");
  }

  @Override
  public Http2Headers clear() {
    throw unsupported("clear");
  }
}
