package dev.tern.app;

final class Main {
  static final String PROPERTY = "tern.app.verbose";

  public static void main(String[] args) {
    Flags.parse(args).flag("port", "N", "8080", "the port");
  }
}
