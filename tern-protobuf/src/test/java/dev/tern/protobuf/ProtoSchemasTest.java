package dev.tern.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Descriptors.FileDescriptor;
import dev.tern.MethodDescriptor;
import dev.tern.ServiceDescriptor;
import org.junit.jupiter.api.Test;

class ProtoSchemasTest {
  private static final FileDescriptor FILE = buildFile();

  private static FileDescriptor buildFile() {
    FileDescriptorProto proto =
        FileDescriptorProto.newBuilder()
            .setName("test/greeter.proto")
            .setPackage("test")
            .addMessageType(DescriptorProto.newBuilder().setName("Hello"))
            .addService(
                ServiceDescriptorProto.newBuilder()
                    .setName("Greeter")
                    .addMethod(
                        MethodDescriptorProto.newBuilder()
                            .setName("SayHello")
                            .setInputType(".test.Hello")
                            .setOutputType(".test.Hello")))
            .build();
    try {
      return FileDescriptor.buildFrom(proto, new FileDescriptor[0]);
    } catch (Descriptors.DescriptorValidationException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void serviceAndMethodDescriptorsLeadBackToTheProtoFile() {
    ProtoMethodDescriptorSupplier methodSchema =
        ProtoSchemas.forMethod(() -> FILE, "Greeter", "SayHello");
    ServiceDescriptor service =
        ServiceDescriptor.newBuilder("test.Greeter")
            .setSchemaDescriptor(ProtoSchemas.forService(() -> FILE, "Greeter"))
            .addMethod(
                MethodDescriptor.<String, String>newBuilder()
                    .setType(MethodDescriptor.MethodType.UNARY)
                    .setFullMethodName("test.Greeter/SayHello")
                    .setRequestMarshaller(new NoMarshaller())
                    .setResponseMarshaller(new NoMarshaller())
                    .setSchemaDescriptor(methodSchema)
                    .build())
            .build();

    Object schema = service.getSchemaDescriptor();
    assertThat(schema).isInstanceOf(ProtoServiceDescriptorSupplier.class);
    assertThat(((ProtoFileDescriptorSupplier) schema).getFileDescriptor()).isSameAs(FILE);
    assertThat(((ProtoServiceDescriptorSupplier) schema).getServiceDescriptor().getFullName())
        .isEqualTo("test.Greeter");
    Object method = service.getMethods().iterator().next().getSchemaDescriptor();
    assertThat(((ProtoMethodDescriptorSupplier) method).getMethodDescriptor().getFullName())
        .isEqualTo("test.Greeter.SayHello");
    assertThat(ProtoSchemas.forFile(() -> FILE).getFileDescriptor()).isSameAs(FILE);
  }

  @Test
  void unknownNamesFailClearly() {
    assertThatThrownBy(() -> ProtoSchemas.forService(() -> FILE, "Nope").getServiceDescriptor())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Nope")
        .hasMessageContaining("test/greeter.proto");
    assertThatThrownBy(
            () -> ProtoSchemas.forMethod(() -> FILE, "Greeter", "Nope").getMethodDescriptor())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("test.Greeter");
  }

  /** Never called: the descriptors here are only inspected. */
  private static final class NoMarshaller implements MethodDescriptor.Marshaller<String> {
    @Override
    public java.io.InputStream stream(String value) {
      throw new UnsupportedOperationException();
    }

    @Override
    public String parse(java.io.InputStream stream) {
      throw new UnsupportedOperationException();
    }
  }
}
