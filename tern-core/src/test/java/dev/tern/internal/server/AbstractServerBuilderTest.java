package dev.tern.internal.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CompressorRegistry;
import dev.tern.DecompressorRegistry;
import dev.tern.MethodDescriptor;
import dev.tern.MutableHandlerRegistry;
import dev.tern.ServerCall;
import dev.tern.ServerInterceptor;
import dev.tern.ServerServiceDefinition;
import dev.tern.ServerTransportFilter;
import dev.tern.internal.SharedExecutors;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AbstractServerBuilderTest {
  private final FakeServerBuilder builder = new FakeServerBuilder();

  private static ServerServiceDefinition service(String name) {
    MethodDescriptor.Marshaller<String> marshaller =
        new MethodDescriptor.Marshaller<>() {
          @Override
          public InputStream stream(String value) {
            return new ByteArrayInputStream(
                value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
          }

          @Override
          public String parse(InputStream stream) {
            return "";
          }
        };
    MethodDescriptor<String, String> method =
        MethodDescriptor.<String, String>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(name + "/M")
            .setRequestMarshaller(marshaller)
            .setResponseMarshaller(marshaller)
            .build();
    return ServerServiceDefinition.builder(name)
        .addMethod(method, (call, headers) -> new ServerCall.Listener<String>() {})
        .build();
  }

  @Test
  void defaults_matchTheDocumentation() {
    assertThat(builder.exposedServices()).isEmpty();
    assertThat(builder.exposedFallbackHandlerRegistry()).isNull();
    assertThat(builder.exposedExecutor()).isSameAs(SharedExecutors.callbackExecutor());
    assertThat(builder.exposedIsDirectExecutor()).isFalse();
    assertThat(builder.exposedInterceptors()).isEmpty();
    assertThat(builder.exposedTransportFilters()).isEmpty();
    assertThat(builder.exposedMaxInboundMessageSize()).isEqualTo(4 * 1024 * 1024);
    assertThat(builder.exposedMaxInboundMetadataSize()).isEqualTo(8 * 1024);
    assertThat(builder.exposedHandshakeTimeoutNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(20));
    assertThat(builder.exposedCompressorRegistry())
        .isSameAs(CompressorRegistry.getDefaultInstance());
    assertThat(builder.exposedDecompressorRegistry())
        .isSameAs(DecompressorRegistry.getDefaultInstance());
  }

  @Test
  void options_areStoredAndChainable() {
    Executor executor = Runnable::run;
    ServerInterceptor interceptor = ServerCallsPassThrough.INSTANCE;
    ServerTransportFilter filter = new ServerTransportFilter() {};
    MutableHandlerRegistry fallback = new MutableHandlerRegistry();
    CompressorRegistry compressors = CompressorRegistry.newEmptyInstance();
    DecompressorRegistry decompressors = DecompressorRegistry.emptyInstance();

    FakeServerBuilder same =
        builder
            .addService(service("a.A"))
            .fallbackHandlerRegistry(fallback)
            .executor(executor)
            .intercept(interceptor)
            .addTransportFilter(filter)
            .maxInboundMessageSize(10)
            .maxInboundMetadataSize(20)
            .handshakeTimeout(3, TimeUnit.SECONDS)
            .compressorRegistry(compressors)
            .decompressorRegistry(decompressors);

    assertThat(same).isSameAs(builder);
    assertThat(builder.exposedServices()).hasSize(1);
    assertThat(builder.exposedFallbackHandlerRegistry()).isSameAs(fallback);
    assertThat(builder.exposedExecutor()).isSameAs(executor);
    assertThat(builder.exposedInterceptors()).containsExactly(interceptor);
    assertThat(builder.exposedTransportFilters()).containsExactly(filter);
    assertThat(builder.exposedMaxInboundMessageSize()).isEqualTo(10);
    assertThat(builder.exposedMaxInboundMetadataSize()).isEqualTo(20);
    assertThat(builder.exposedHandshakeTimeoutNanos()).isEqualTo(3_000_000_000L);
    assertThat(builder.exposedCompressorRegistry()).isSameAs(compressors);
    assertThat(builder.exposedDecompressorRegistry()).isSameAs(decompressors);
  }

  @Test
  void directExecutorAndExecutor_replaceEachOther() {
    Executor executor = Runnable::run;

    builder.executor(executor).directExecutor();
    assertThat(builder.exposedIsDirectExecutor()).isTrue();
    assertThat(builder.exposedExecutor()).isNotSameAs(executor);

    builder.executor(executor);
    assertThat(builder.exposedIsDirectExecutor()).isFalse();
    assertThat(builder.exposedExecutor()).isSameAs(executor);
  }

  @Test
  void duplicateServiceName_isRejectedNamingIt() {
    builder.addService(service("pkg.Greeter"));

    assertThatThrownBy(() -> builder.addService(service("pkg.Greeter")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pkg.Greeter");
  }

  @Test
  void badValues_areRejectedNamingTheOption() {
    assertThatThrownBy(() -> builder.maxInboundMessageSize(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxInboundMessageSize");
    assertThatThrownBy(() -> builder.maxInboundMetadataSize(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxInboundMetadataSize");
    assertThatThrownBy(() -> builder.handshakeTimeout(0, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("handshakeTimeout");
    assertThatThrownBy(() -> builder.maxConcurrentCalls(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxConcurrentCalls must be > 0, was 0");
    assertThatThrownBy(() -> builder.executor(null)).hasMessageContaining("executor");
    assertThatThrownBy(() -> builder.intercept(null)).hasMessageContaining("interceptor");
    assertThatThrownBy(() -> builder.addTransportFilter(null)).hasMessageContaining("filter");
    assertThatThrownBy(() -> builder.compressorRegistry(null))
        .hasMessageContaining("compressorRegistry");
    assertThatThrownBy(() -> builder.decompressorRegistry(null))
        .hasMessageContaining("decompressorRegistry");
    assertThatThrownBy(() -> builder.addService((ServerServiceDefinition) null))
        .hasMessageContaining("service");
  }

  @Test
  void build_makesAFreshServerImplEachTime() {
    builder.addService(service("a.A"));

    assertThat(builder.build()).isInstanceOf(ServerImpl.class);
    assertThat(builder.build()).isNotSameAs(builder.build());
    assertThat(builder.build().getServices())
        .extracting(s -> s.getServiceDescriptor().getName())
        .containsExactly("a.A");
  }

  /** An interceptor that only passes calls on. */
  private enum ServerCallsPassThrough implements ServerInterceptor {
    INSTANCE;

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call,
        dev.tern.Metadata headers,
        dev.tern.ServerCallHandler<ReqT, RespT> next) {
      return next.startCall(call, headers);
    }
  }
}
