package dev.tern.services.reflection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.DescriptorProtos.SourceCodeInfo;
import dev.tern.BindableService;
import dev.tern.ManagedChannel;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.services.reflection.testing.OrderServiceProto;
import dev.tern.services.reflection.v1.ServerReflectionRequest;
import dev.tern.services.reflection.v1.ServerReflectionResponse;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reflection with descriptor sets that keep comments ({@link ProtoReflectionService#builder()}):
 * which descriptor a client is sent, and the errors for sets that cannot be used. The sets are made
 * here as protoc {@code --include_source_info} makes them (source info, and JSON names on the
 * fields); the examples' build runs protoc itself for the route guide.
 */
class ReflectionSourceInfoTest {
  private static final String SERVICE_COMMENT = " Places and tracks orders.\n";

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @TempDir Path dir;

  /** order_service.proto as a descriptor set holds it: a comment on the service, JSON names. */
  private static FileDescriptorProto withComments(FileDescriptorProto file) {
    FileDescriptorProto.Builder builder = file.toBuilder();
    for (DescriptorProto.Builder message : builder.getMessageTypeBuilderList()) {
      message.getFieldBuilderList().forEach(f -> f.setJsonName(lowerCamel(f.getName())));
    }
    // Path [6, 0]: the file's service_list (field 6), its first service.
    return builder
        .setSourceCodeInfo(
            SourceCodeInfo.newBuilder()
                .addLocation(
                    SourceCodeInfo.Location.newBuilder()
                        .addPath(6)
                        .addPath(0)
                        .addSpan(23)
                        .addSpan(0)
                        .addSpan(27)
                        .setLeadingComments(SERVICE_COMMENT)))
        .build();
  }

  private static String lowerCamel(String name) {
    StringBuilder out = new StringBuilder();
    boolean upper = false;
    for (char c : name.toCharArray()) {
      if (c == '_') {
        upper = true;
      } else {
        out.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return out.toString();
  }

  private static FileDescriptorSet set(FileDescriptorProto... files) {
    FileDescriptorSet.Builder set = FileDescriptorSet.newBuilder();
    for (FileDescriptorProto file : files) {
      set.addFile(file);
    }
    return set.build();
  }

  private ManagedChannel start(BindableService reflection) throws Exception {
    String name = cleanup.uniqueName();
    cleanup
        .register(
            InProcessServerBuilder.forName(name)
                .addService(new OrderServiceImpl())
                .addService(reflection)
                .build())
        .start();
    return cleanup.register(InProcessChannelBuilder.forName(name).build());
  }

  private static FileDescriptorProto askForTheService(ReflectionClient client) throws Exception {
    ServerReflectionResponse response =
        client.ask(
            ServerReflectionRequest.newBuilder()
                .setFileContainingSymbol("tern.reflectiontest.OrderService")
                .build());
    ByteString first = response.getFileDescriptorResponse().getFileDescriptorProto(0);
    return FileDescriptorProto.parseFrom(first);
  }

  @Test
  void aSetsFile_isServedWithItsComments_inPlaceOfTheGeneratedOne() throws Exception {
    FileDescriptorProto commented = withComments(OrderServiceProto.getDescriptor().toProto());
    Path file = dir.resolve("orders.binpb");
    Files.write(file, set(commented).toByteArray());

    for (BindableService reflection :
        new BindableService[] {
          ProtoReflectionService.builder().descriptorSet(file).v1(),
          ProtoReflectionService.builder().descriptorSet(set(commented).toByteArray()).v1alpha()
        }) {
      ManagedChannel channel = start(reflection);
      try (ReflectionClient client =
          reflection.bindService().getServiceDescriptor().getName().contains("v1alpha")
              ? ReflectionClient.v1alpha(channel)
              : ReflectionClient.v1(channel)) {
        FileDescriptorProto served = askForTheService(client);
        assertThat(served).isEqualTo(commented);
        assertThat(served.getSourceCodeInfo().getLocation(0).getLeadingComments())
            .isEqualTo(SERVICE_COMMENT);
      }
    }
  }

  @Test
  void aSetsFileThatDiffersFromTheGeneratedOne_isNotServed_andIsLogged() throws Exception {
    FileDescriptorProto commented = withComments(OrderServiceProto.getDescriptor().toProto());
    // Built from another version of the .proto: one message more.
    FileDescriptorProto newer =
        commented.toBuilder()
            .addMessageType(DescriptorProto.newBuilder().setName("Refund"))
            .build();

    try (LogCapture log = new LogCapture(ReflectionIndex.class);
        ReflectionClient client =
            ReflectionClient.v1(
                start(ProtoReflectionService.builder().descriptorSet(set(newer)).v1()))) {
      assertThat(askForTheService(client)).isEqualTo(OrderServiceProto.getDescriptor().toProto());

      assertThat(log.records()).hasSize(1);
      assertThat(log.records().get(0).getLevel()).isEqualTo(Level.WARNING);
      assertThat(log.records().get(0).getMessage())
          .contains("tern/reflectiontest/order_service.proto")
          .contains("differs from the generated code's");
    }
  }

  @Test
  void badDescriptorSets_areRefused_namingTheArgument() throws Exception {
    FileDescriptorProto commented = withComments(OrderServiceProto.getDescriptor().toProto());
    ProtoReflectionService.Builder builder = ProtoReflectionService.builder();

    assertThatThrownBy(() -> builder.descriptorSet(new byte[] {(byte) 0xff}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("descriptorSet is not a FileDescriptorSet: ");
    // Bytes that parse, as fields a FileDescriptorSet does not have (here a JSON text).
    assertThatThrownBy(
            () -> builder.descriptorSet("{\"file\": []}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("descriptorSet is not a FileDescriptorSet");
    assertThatThrownBy(() -> builder.descriptorSet(new byte[0]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("descriptorSet is not a FileDescriptorSet: it holds no file descriptors");
    assertThatThrownBy(() -> builder.descriptorSet(set(commented.toBuilder().clearName().build())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("descriptorSet is not a FileDescriptorSet: it holds a file without a name");
    assertThatThrownBy(
            () -> builder.descriptorSet(set(OrderServiceProto.getDescriptor().toProto())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "descriptorSet keeps no source info (comments): build it with protoc"
                + " --include_source_info");
    Path text = Files.writeString(dir.resolve("notes.txt"), "not a descriptor set\n");
    assertThatThrownBy(() -> builder.descriptorSet(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("descriptorSet " + text + " is not a FileDescriptorSet");

    builder.descriptorSet(set(commented));
    FileDescriptorProto other =
        commented.toBuilder()
            .addMessageType(DescriptorProto.newBuilder().setName("Refund"))
            .build();
    assertThatThrownBy(() -> builder.descriptorSet(set(other)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "descriptorSet: tern/reflectiontest/order_service.proto differs from the file of that"
                + " name in a descriptor set added before");
    // The same file again is no conflict.
    builder.descriptorSet(set(commented));
  }
}
