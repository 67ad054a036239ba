package dev.tern;

public final class Status {
  public static final Status OK = new Status();

  public Status withDescription(String description) {
    return this;
  }

  public static final class Code {}
}
