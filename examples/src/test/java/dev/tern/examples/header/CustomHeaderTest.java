package dev.tern.examples.header;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ClientInterceptors;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Server;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.examples.helloworld.HelloRequest;
import dev.tern.testing.TernCleanupExtension;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The header example over HTTP/2: a header goes one way, a header and a trailer come back. */
class CustomHeaderTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    Server server = cleanup.register(CustomHeaderServer.start(0, "greeter-7"));
    channel =
        cleanup.register(
            ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());
  }

  @Test
  void serverReadsTheClientHeaderAndClientReadsTheResponseHeaderAndTrailer() {
    HeaderClientInterceptor headers = new HeaderClientInterceptor("client-42");
    GreeterTern.GreeterBlockingStub stub =
        GreeterTern.newBlockingStub(ClientInterceptors.intercept(channel, headers))
            .withDeadlineAfter(5, TimeUnit.SECONDS);

    String reply = stub.sayHello(HelloRequest.newBuilder().setName("Ada").build()).getMessage();

    assertThat(reply).isEqualTo("Hello, Ada (client client-42)!");
    assertThat(headers.serverName()).isEqualTo("greeter-7");
    assertThat(headers.callsServed()).isEqualTo("1");

    stub.sayHello(HelloRequest.newBuilder().setName("Bob").build());
    assertThat(headers.callsServed()).isEqualTo("2");
  }

  @Test
  void aClientWithoutTheHeaderIsGreetedAsUnknown() {
    String reply =
        GreeterTern.newBlockingStub(channel)
            .withDeadlineAfter(5, TimeUnit.SECONDS)
            .sayHello(HelloRequest.newBuilder().setName("Ada").build())
            .getMessage();

    assertThat(reply).isEqualTo("Hello, Ada (client ?)!");
  }
}
