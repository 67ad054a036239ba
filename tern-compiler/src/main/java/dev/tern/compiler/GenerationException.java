package dev.tern.compiler;

/**
 * A request the generator cannot turn into code (a type it cannot resolve, a name clash it cannot
 * mangle away). The message is shown to the protoc user as is, so it names the file and element.
 */
final class GenerationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  GenerationException(String message) {
    super(message);
  }
}
