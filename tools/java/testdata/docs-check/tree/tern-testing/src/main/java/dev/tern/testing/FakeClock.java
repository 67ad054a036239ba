package dev.tern.testing;

public final class FakeClock {
  public void forwardTime(long nanos) {}
}
