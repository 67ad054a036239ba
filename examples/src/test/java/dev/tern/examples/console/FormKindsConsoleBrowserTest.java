package dev.tern.examples.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Duration;
import com.google.protobuf.ListValue;
import com.google.protobuf.StringValue;
import com.google.protobuf.Struct;
import com.google.protobuf.Timestamp;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import dev.tern.Server;
import dev.tern.console.TernConsole;
import dev.tern.examples.ConsoleBrowser;
import dev.tern.examples.ToolRunner;
import dev.tern.examples.consoletest.Everything;
import dev.tern.examples.consoletest.Item;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.services.reflection.ProtoReflectionService;
import dev.tern.testing.TernCleanupExtension;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's generated form in headless Chromium, for a message with a field of every kind the
 * docs promise ({@code src/test/proto/consoletest/form_kinds.proto}): {@code
 * src/test/web/console-form-driver.mjs} fills it (a oneof member, an enum value, a map entry, two
 * repeated messages, a Timestamp, a Duration, a wrapper, a Struct), adds a metadata row and a
 * deadline, and sends it; the server must have received exactly that, the header and the deadline.
 */
class FormKindsConsoleBrowserTest {
  @TempDir Path dir;

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @Test
  void theGeneratedFormSendsEveryKindOfField_withMetadataAndADeadline() throws Exception {
    FormEchoService echo = new FormEchoService();
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .addService(echo.definition())
            .addService(ProtoReflectionService.v1());
    TernConsole.builder().build().addTo(builder);
    Server server = cleanup.register(builder.build().start());

    ToolRunner.Result result =
        ConsoleBrowser.drive(
            dir,
            "console-form-driver.mjs",
            "http://127.0.0.1:" + server.getPort() + TernConsole.PATH);

    String out = result.out();
    assertThat(result.exitCode()).as(out + result.err()).isZero();
    Everything expected =
        Everything.newBuilder()
            .setName("Ada")
            .setColor(Everything.Color.GREEN)
            .putCounts("apples", 3)
            .addItems(Item.newBuilder().setLabel("first").setQuantity(1))
            .addItems(Item.newBuilder().setLabel("second").setQuantity(2))
            .setSentAt(Timestamp.newBuilder().setSeconds(1767366245L))
            .setWaitTime(Duration.newBuilder().setSeconds(1).setNanos(500_000_000))
            .setNote(StringValue.of("a wrapped string"))
            .setExtra(
                Struct.newBuilder()
                    .putFields(
                        "tags",
                        Value.newBuilder()
                            .setListValue(
                                ListValue.newBuilder()
                                    .addValues(Value.newBuilder().setStringValue("x"))
                                    .addValues(Value.newBuilder().setBoolValue(true)))
                            .build()))
            .setChosenItem(Item.newBuilder().setLabel("chosen").setQuantity(7))
            .build();
    assertThat(echo.nextRequest(5)).as("over Connect").isEqualTo(expected);
    assertThat(echo.nextRequest(5)).as("over gRPC-Web").isEqualTo(expected);
    assertThat(echo.nextRequest(0)).as("two calls only").isNull();

    String expectedJson = JsonFormat.printer().omittingInsignificantWhitespace().print(expected);
    assertThat(out)
        .as(result.err())
        .contains("\"oneofChoices\":[\"\",\"text\",\"number\",\"chosenItem\"]")
        .contains("\"status\":\"OK\"")
        .contains("\"requestJson\":" + jsonString(expectedJson))
        // The metadata row arrived as a request header (names are lower-cased by the page).
        .contains("\"header\":\"from the page\"");
    // Over gRPC-Web the answer, decoded from binary by the page, is the same.
    assertThat(out)
        .contains("\"grpcWebStatus\":\"OK\"")
        .contains("\"grpcWebEchoed\":{\"requestJson\":" + jsonString(expectedJson));
    // The deadline of 3600000 ms arrived (as connect-timeout-ms, then as grpc-timeout): an hour,
    // less the trip here.
    Matcher left = Pattern.compile("\"deadlineLeftMs\":\"(\\d+)\"").matcher(out);
    for (String protocol : new String[] {"Connect", "gRPC-Web"}) {
      assertThat(left.find()).as(protocol + ": " + out).isTrue();
      assertThat(Long.parseLong(left.group(1))).as(protocol).isBetween(3_500_000L, 3_600_000L);
    }
    assertThat(out.split("\"header\":\"from the page\"", -1)).as("both calls' header").hasSize(3);
  }

  /** {@code text} as a JSON string literal. */
  private static String jsonString(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
