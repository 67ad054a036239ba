package dev.tern.examples.reflection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.examples.ToolRunner;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.ExternalTool;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The real grpcurl, with no {@code .proto} file, against the reflection example's server. */
class ReflectionServerTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();
  @TempDir Path dir;
  private String address;

  @BeforeEach
  void startServer() throws Exception {
    address = "127.0.0.1:" + cleanup.register(ReflectionServer.start(0)).getPort();
  }

  @Test
  void grpcurlListsDescribesAndCallsTheGreeter() throws Exception {
    Path grpcurl = ExternalTool.require("grpcurl");

    assertThat(ToolRunner.run(dir, grpcurl, "-plaintext", address, "list"))
        .isEqualTo(
            "grpc.reflection.v1.ServerReflection\n"
                + "grpc.reflection.v1alpha.ServerReflection\n"
                + "tern.examples.helloworld.Greeter\n");
    assertThat(
            ToolRunner.run(
                dir, grpcurl, "-plaintext", address, "describe", GreeterTern.SERVICE_NAME))
        .contains(
            "rpc SayHello ( .tern.examples.helloworld.HelloRequest ) returns"
                + " ( .tern.examples.helloworld.HelloReply );");
    assertThat(
            ToolRunner.run(
                dir,
                grpcurl,
                "-plaintext",
                "-d",
                "{\"name\": \"Ada\"}",
                address,
                GreeterTern.SERVICE_NAME + "/SayHello"))
        .contains("\"message\": \"Hello, Ada!\"");
  }

  @Test
  void grpcurlShowsTheServersError() throws Exception {
    Path grpcurl = ExternalTool.require("grpcurl");

    String result =
        ToolRunner.exec(
            dir,
            grpcurl,
            "-plaintext",
            "-d",
            "{\"name\": \"\"}",
            address,
            GreeterTern.SERVICE_NAME + "/SayHello");

    assertThat(result)
        .doesNotStartWith("exit 0")
        .contains("Code: InvalidArgument", "Message: name must not be empty");
  }
}
