package dev.tern.netty.internal.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.List;

/** Records each frame as a line of text, releasing the DATA it is given. */
class RecordingListener implements Http2FrameListener {
  final List<String> events = new ArrayList<>();

  @Override
  public void onData(int streamId, ByteBuf data, int padding, boolean endStream) {
    try {
      events.add(
          "DATA "
              + streamId
              + " "
              + summary(data)
              + " padding="
              + padding
              + (endStream ? " END_STREAM" : ""));
    } finally {
      data.release();
    }
  }

  @Override
  public void onHeaders(int streamId, ByteBuf headerBlock, boolean endStream) {
    events.add(
        "HEADERS " + streamId + " " + summary(headerBlock) + (endStream ? " END_STREAM" : ""));
  }

  @Override
  public void onPriority(int streamId, int dependency, boolean exclusive, int weight) {
    events.add(
        "PRIORITY "
            + streamId
            + " on "
            + dependency
            + (exclusive ? " exclusive" : "")
            + " "
            + weight);
  }

  @Override
  public void onRstStream(int streamId, long errorCode) {
    events.add("RST_STREAM " + streamId + " " + errorCode);
  }

  @Override
  public void onSettings(Http2Settings settings) {
    events.add("SETTINGS " + settings);
  }

  @Override
  public void onSettingsAck() {
    events.add("SETTINGS ACK");
  }

  @Override
  public void onPing(long data, boolean ack) {
    events.add("PING " + Long.toHexString(data) + (ack ? " ACK" : ""));
  }

  @Override
  public void onGoAway(int lastStreamId, long errorCode, ByteBuf debugData) {
    events.add("GOAWAY " + lastStreamId + " " + errorCode + " " + summary(debugData));
  }

  @Override
  public void onWindowUpdate(int streamId, int increment) {
    events.add("WINDOW_UPDATE " + streamId + " " + increment);
  }

  /** Short payloads in hex, long ones as their length and a hash. */
  private static String summary(ByteBuf b) {
    return b.readableBytes() <= 16
        ? "[" + ByteBufUtil.hexDump(b) + "]"
        : "[" + b.readableBytes() + " bytes #" + Integer.toHexString(ByteBufUtil.hashCode(b)) + "]";
  }
}
