package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.MethodDescriptor.Marshaller;
import dev.tern.MethodDescriptor.MethodType;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MethodDescriptorTest {
  /** A UTF-8 string marshaller. */
  static final Marshaller<String> STRING =
      new Marshaller<>() {
        @Override
        public InputStream stream(String value) {
          return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
          try {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  /** Decimal integer marshaller, to tell requests from responses. */
  static final Marshaller<Integer> INT =
      new Marshaller<>() {
        @Override
        public InputStream stream(Integer value) {
          return STRING.stream(value.toString());
        }

        @Override
        public Integer parse(InputStream stream) {
          return Integer.valueOf(STRING.parse(stream));
        }
      };

  private static MethodDescriptor<String, Integer> sayHello() {
    return MethodDescriptor.newBuilder(STRING, INT)
        .setType(MethodType.UNARY)
        .setFullMethodName("helloworld.Greeter/SayHello")
        .build();
  }

  @Test
  void splitsTheFullNameIntoServiceMethodAndPath() {
    MethodDescriptor<String, Integer> method = sayHello();

    assertThat(method.getFullMethodName()).isEqualTo("helloworld.Greeter/SayHello");
    assertThat(method.getServiceName()).isEqualTo("helloworld.Greeter");
    assertThat(method.getBareMethodName()).isEqualTo("SayHello");
    assertThat(method.getPath()).isEqualTo("/helloworld.Greeter/SayHello");
    assertThat(method.getType()).isEqualTo(MethodType.UNARY);
  }

  @Test
  void defaultsAreConservative() {
    MethodDescriptor<String, Integer> method = sayHello();
    assertThat(method.isIdempotent()).isFalse();
    assertThat(method.isSafe()).isFalse();
    assertThat(method.isSampledToLocalTracing()).isFalse();
    assertThat(method.getSchemaDescriptor()).isNull();
  }

  @Test
  void marshallingHelpersUseTheRightMarshaller() throws IOException {
    MethodDescriptor<String, Integer> method = sayHello();

    assertThat(method.parseRequest(method.streamRequest("hi"))).isEqualTo("hi");
    assertThat(method.parseResponse(method.streamResponse(42))).isEqualTo(42);
    assertThat(method.streamResponse(42).readAllBytes()).isEqualTo("42".getBytes());
    assertThat(method.getRequestMarshaller()).isSameAs(STRING);
    assertThat(method.getResponseMarshaller()).isSameAs(INT);
  }

  @ParameterizedTest
  @ValueSource(strings = {"NoSlash", "/Method", "Service/", "a/b/c", "/", "", "svc//m"})
  void malformedFullNamesAreRejected(String name) {
    MethodDescriptor.Builder<String, Integer> builder =
        MethodDescriptor.newBuilder(STRING, INT).setType(MethodType.UNARY).setFullMethodName(name);

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fullMethodName");
  }

  @Test
  void missingRequiredPropertiesAreNamed() {
    assertThatThrownBy(
            () -> MethodDescriptor.newBuilder(STRING, INT).setFullMethodName("s/m").build())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("type");
    assertThatThrownBy(
            () -> MethodDescriptor.newBuilder(STRING, INT).setType(MethodType.UNARY).build())
        .hasMessage("fullMethodName");
    assertThatThrownBy(
            () ->
                MethodDescriptor.<String, Integer>newBuilder()
                    .setType(MethodType.UNARY)
                    .setFullMethodName("s/m")
                    .setResponseMarshaller(INT)
                    .build())
        .hasMessage("requestMarshaller");
    assertThatThrownBy(
            () ->
                MethodDescriptor.<String, Integer>newBuilder()
                    .setType(MethodType.UNARY)
                    .setFullMethodName("s/m")
                    .setRequestMarshaller(STRING)
                    .build())
        .hasMessage("responseMarshaller");
    assertThatThrownBy(() -> MethodDescriptor.newBuilder().setType(null)).hasMessage("type");
  }

  @Test
  void toBuilderCopiesEveryProperty() {
    Object schema = new Object();
    MethodDescriptor<String, Integer> original =
        sayHello().toBuilder()
            .setType(MethodType.SERVER_STREAMING)
            .setIdempotent(true)
            .setSchemaDescriptor(schema)
            .setSampledToLocalTracing(true)
            .build();

    MethodDescriptor<String, Integer> copy =
        original.toBuilder().setFullMethodName("other.Svc/Call").build();

    assertThat(copy.getType()).isEqualTo(MethodType.SERVER_STREAMING);
    assertThat(copy.isIdempotent()).isTrue();
    assertThat(copy.getSchemaDescriptor()).isSameAs(schema);
    assertThat(copy.isSampledToLocalTracing()).isTrue();
    assertThat(copy.getServiceName()).isEqualTo("other.Svc");
    assertThat(original.getFullMethodName()).isEqualTo("helloworld.Greeter/SayHello");
  }

  @Test
  void safeImpliesIdempotent() {
    MethodDescriptor<String, Integer> safe = sayHello().toBuilder().setSafe(true).build();
    assertThat(safe.isSafe()).isTrue();
    assertThat(safe.isIdempotent()).isTrue();
  }

  @Test
  void fullNameHelpers() {
    assertThat(MethodDescriptor.generateFullMethodName("pkg.Svc", "Do")).isEqualTo("pkg.Svc/Do");
    assertThat(MethodDescriptor.extractFullServiceName("pkg.Svc/Do")).isEqualTo("pkg.Svc");
    assertThat(MethodDescriptor.extractFullServiceName("noslash")).isNull();
    assertThat(MethodDescriptor.extractBareMethodName("pkg.Svc/Do")).isEqualTo("Do");
    assertThat(MethodDescriptor.extractBareMethodName("noslash")).isNull();
    assertThatThrownBy(() -> MethodDescriptor.generateFullMethodName(null, "m"))
        .hasMessage("fullServiceName");
  }

  @Test
  void methodTypesKnowHowManyMessagesEachSideSends() {
    assertThat(MethodType.UNARY.clientSendsOneMessage()).isTrue();
    assertThat(MethodType.UNARY.serverSendsOneMessage()).isTrue();
    assertThat(MethodType.CLIENT_STREAMING.clientSendsOneMessage()).isFalse();
    assertThat(MethodType.CLIENT_STREAMING.serverSendsOneMessage()).isTrue();
    assertThat(MethodType.SERVER_STREAMING.clientSendsOneMessage()).isTrue();
    assertThat(MethodType.SERVER_STREAMING.serverSendsOneMessage()).isFalse();
    assertThat(MethodType.BIDI_STREAMING.clientSendsOneMessage()).isFalse();
    assertThat(MethodType.BIDI_STREAMING.serverSendsOneMessage()).isFalse();
    assertThat(MethodType.UNKNOWN.clientSendsOneMessage()).isFalse();
    assertThat(MethodType.UNKNOWN.serverSendsOneMessage()).isFalse();
  }

  @Test
  void toStringNamesTheMethod() {
    assertThat(sayHello().toString()).contains("helloworld.Greeter/SayHello").contains("UNARY");
  }
}
