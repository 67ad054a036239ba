package dev.tern.examples.errorhandling;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import com.google.rpc.Help;
import dev.tern.Channel;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.StatusRuntimeException;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.examples.helloworld.HelloRequest;
import dev.tern.protobuf.StatusProto;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Greets a few names through {@link ErrorHandlingServer} and prints what came back: the greeting,
 * or the status and, for a rich error, each detail read back as its own type.
 *
 * <p>Thread-safety: one instance is used by one thread at a time.
 */
public final class ErrorHandlingClient {
  /** One name of each kind: fine, empty, too long, and the one that trips the server's bug. */
  static final List<String> NAMES = List.of("Ada", "", "Bartholomew Montgomery Smythe", "crash");

  private final GreeterTern.GreeterBlockingStub greeter;
  private final PrintStream out;

  /** A client calling through {@code channel}, printing to {@code out}. */
  public ErrorHandlingClient(Channel channel, PrintStream out) {
    this.greeter = GreeterTern.newBlockingStub(channel);
    this.out = out;
  }

  /** Greets {@code name} and prints the outcome. */
  public void greet(String name) {
    out.println("SayHello(\"" + name + "\")");
    try {
      String greeting =
          greeter
              .withDeadlineAfter(10, TimeUnit.SECONDS)
              .sayHello(HelloRequest.newBuilder().setName(name).build())
              .getMessage();
      out.println("  ok: " + greeting);
    } catch (StatusRuntimeException e) {
      out.println("  " + e.getStatus().getCode() + ": " + e.getStatus().getDescription());
      // Without a grpc-status-details-bin trailer this is the status itself, with no details.
      com.google.rpc.Status rich = StatusProto.fromThrowable(e);
      for (Any detail : rich.getDetailsList()) {
        out.println("    " + describe(detail));
      }
    }
  }

  /** One line for a detail, unpacked to its type as a grpc-java client would. */
  private static String describe(Any detail) {
    try {
      if (detail.is(BadRequest.class)) {
        BadRequest.FieldViolation violation = detail.unpack(BadRequest.class).getFieldViolations(0);
        return "BadRequest: " + violation.getField() + " " + violation.getDescription();
      }
      if (detail.is(ErrorInfo.class)) {
        ErrorInfo info = detail.unpack(ErrorInfo.class);
        return "ErrorInfo: "
            + info.getReason()
            + " in "
            + info.getDomain()
            + " "
            + info.getMetadataMap();
      }
      if (detail.is(Help.class)) {
        Help.Link link = detail.unpack(Help.class).getLinks(0);
        return "Help: " + link.getDescription() + " <" + link.getUrl() + ">";
      }
      return "(a detail this client does not know: " + detail.getTypeUrl() + ")";
    } catch (InvalidProtocolBufferException e) {
      return "(a malformed " + detail.getTypeUrl() + ")";
    }
  }

  /** {@code java ... ErrorHandlingClient [--target=HOST:PORT]}. */
  public static void main(String[] args) throws InterruptedException {
    String target =
        args.length > 0 && args[0].startsWith("--target=")
            ? args[0].substring("--target=".length())
            : "localhost:50051";
    ManagedChannel channel = ManagedChannelBuilder.forTarget(target).usePlaintext().build();
    try {
      ErrorHandlingClient client = new ErrorHandlingClient(channel, System.out);
      for (String name : NAMES) {
        client.greet(name);
      }
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
