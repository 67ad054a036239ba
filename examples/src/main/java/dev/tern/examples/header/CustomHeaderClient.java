package dev.tern.examples.header;

import dev.tern.ClientInterceptors;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.StatusRuntimeException;
import dev.tern.examples.ExampleMain;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.examples.helloworld.HelloRequest;
import java.util.concurrent.TimeUnit;

/**
 * Greets {@code --name=NAME} through the {@link CustomHeaderServer} at {@code --target=HOST:PORT},
 * sending {@code --client-id=ID} as a header, and prints the response header and trailer the server
 * sent back.
 */
public final class CustomHeaderClient {
  private CustomHeaderClient() {}

  /** {@code java ... CustomHeaderClient [--target=HOST:PORT] [--name=NAME] [--client-id=ID]}. */
  public static void main(String[] args) throws InterruptedException {
    String target = ExampleMain.flag(args, "target", "localhost:50051");
    String name = ExampleMain.flag(args, "name", "world");
    String clientId = ExampleMain.flag(args, "client-id", "client-1");
    ManagedChannel channel = ManagedChannelBuilder.forTarget(target).usePlaintext().build();
    HeaderClientInterceptor headers = new HeaderClientInterceptor(clientId);
    try {
      String reply =
          GreeterTern.newBlockingStub(ClientInterceptors.intercept(channel, headers))
              .withDeadlineAfter(5, TimeUnit.SECONDS)
              .sayHello(HelloRequest.newBuilder().setName(name).build())
              .getMessage();
      System.out.println(reply);
      System.out.println("Response header x-server-name: " + headers.serverName());
      System.out.println("Trailer x-calls-served: " + headers.callsServed());
    } catch (StatusRuntimeException e) {
      System.err.println("SayHello failed: " + e.getStatus());
      System.exit(1);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
