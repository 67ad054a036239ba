package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ForwardingBuildersTest {

  @Test
  void theForwardingChannelBuilderOverridesEveryOptionOfManagedChannelBuilder() {
    assertThat(notOverridden(ManagedChannelBuilder.class, ForwardingChannelBuilder.class))
        .isEmpty();
  }

  @Test
  void theForwardingServerBuilderOverridesEveryOptionOfServerBuilder() {
    assertThat(notOverridden(ServerBuilder.class, ForwardingServerBuilder.class)).isEmpty();
  }

  @Test
  void channelOptionsReachTheDelegateAndChainOnTheForwardingBuilder() {
    RecordingChannelBuilder delegate = new RecordingChannelBuilder();
    WrappingChannelBuilder builder = new WrappingChannelBuilder(delegate);
    Executor executor = Runnable::run;
    ClientInterceptor interceptor =
        new ClientInterceptor() {
          @Override
          public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
              MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
            return next.newCall(method, callOptions);
          }
        };

    WrappingChannelBuilder chained =
        builder
            .directExecutor()
            .executor(executor)
            .intercept(List.of(interceptor))
            .intercept(interceptor)
            .userAgent("agent")
            .overrideAuthority("example.com")
            .idleTimeout(5, TimeUnit.SECONDS)
            .keepAliveTime(30, TimeUnit.SECONDS)
            .keepAliveTimeout(2, TimeUnit.SECONDS)
            .keepAliveWithoutCalls(true)
            .maxInboundMessageSize(10)
            .maxInboundMetadataSize(20)
            .usePlaintext()
            .useTransportSecurity()
            .compressorRegistry(CompressorRegistry.getDefaultInstance())
            .decompressorRegistry(DecompressorRegistry.getDefaultInstance())
            .nameResolverRegistry(new NameResolverRegistry())
            .loadBalancerRegistry(new LoadBalancerRegistry())
            .defaultLoadBalancingPolicy("round_robin")
            .setBinaryLog(null)
            .addStreamTracerFactory(
                new ClientStreamTracer.Factory() {
                  @Override
                  public ClientStreamTracer newClientStreamTracer(
                      ClientStreamTracer.StreamInfo info, Metadata headers) {
                    return null;
                  }
                });

    assertThat(chained).isSameAs(builder);
    assertThat(delegate.calls)
        .containsExactly(
            "directExecutor",
            "executor",
            "intercept[1]",
            "intercept[1]",
            "userAgent agent",
            "overrideAuthority example.com",
            "idleTimeout 5 SECONDS",
            "keepAliveTime 30 SECONDS",
            "keepAliveTimeout 2 SECONDS",
            "keepAliveWithoutCalls true",
            "maxInboundMessageSize 10",
            "maxInboundMetadataSize 20",
            "usePlaintext",
            "useTransportSecurity",
            "compressorRegistry",
            "decompressorRegistry",
            "nameResolverRegistry",
            "loadBalancerRegistry",
            "defaultLoadBalancingPolicy round_robin",
            "setBinaryLog null",
            "intercept[1]");
    assertThat(builder.toString())
        .isEqualTo("WrappingChannelBuilder{delegate=RecordingChannelBuilder}");
  }

  @Test
  void serverOptionsReachTheDelegateAndChainOnTheForwardingBuilder() {
    RecordingServerBuilder delegate = new RecordingServerBuilder();
    WrappingServerBuilder builder = new WrappingServerBuilder(delegate);
    ServerServiceDefinition service = ServerServiceDefinition.builder("test.Empty").build();
    InputStream chain = new ByteArrayInputStream(new byte[0]);
    InputStream key = new ByteArrayInputStream(new byte[0]);

    WrappingServerBuilder chained =
        builder
            .addService(service)
            .addService(() -> service)
            .fallbackHandlerRegistry(
                new HandlerRegistry() {
                  @Override
                  public ServerMethodDefinition<?, ?> lookupMethod(
                      String methodName, String authority) {
                    return null;
                  }
                })
            .executor(Runnable::run)
            .directExecutor()
            .intercept(noOpInterceptor())
            .addTransportFilter(new ServerTransportFilter() {})
            .maxInboundMessageSize(10)
            .maxInboundMetadataSize(20)
            .handshakeTimeout(3, TimeUnit.SECONDS)
            .maxConcurrentCalls(30)
            .overloadRetryPushback(40)
            .compressorRegistry(CompressorRegistry.getDefaultInstance())
            .decompressorRegistry(DecompressorRegistry.getDefaultInstance())
            .useTransportSecurity(new File("chain.pem"), new File("key.pem"))
            .useTransportSecurity(chain, key)
            .setBinaryLog(null)
            .addStreamTracerFactory(
                new ServerStreamTracer.Factory() {
                  @Override
                  public ServerStreamTracer newServerStreamTracer(
                      String fullMethodName, Metadata headers) {
                    return null;
                  }
                });

    assertThat(chained).isSameAs(builder);
    assertThat(delegate.calls)
        .containsExactly(
            "addService test.Empty",
            "addService test.Empty",
            "fallbackHandlerRegistry",
            "executor",
            "directExecutor",
            "intercept",
            "addTransportFilter",
            "maxInboundMessageSize 10",
            "maxInboundMetadataSize 20",
            "handshakeTimeout 3 SECONDS",
            "maxConcurrentCalls 30",
            "overloadRetryPushback 40",
            "compressorRegistry",
            "decompressorRegistry",
            "useTransportSecurity chain.pem key.pem",
            "useTransportSecurity streams",
            "setBinaryLog null",
            "addStreamTracerFactory");
  }

  private static ServerInterceptor noOpInterceptor() {
    return new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
          ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        return next.startCall(call, headers);
      }
    };
  }

  /** The public instance methods of {@code api} that {@code forwarding} does not declare. */
  private static List<String> notOverridden(Class<?> api, Class<?> forwarding) {
    List<String> missing = new ArrayList<>();
    for (Method method : api.getDeclaredMethods()) {
      if (!Modifier.isPublic(method.getModifiers()) || Modifier.isStatic(method.getModifiers())) {
        continue;
      }
      try {
        forwarding.getDeclaredMethod(method.getName(), method.getParameterTypes());
      } catch (NoSuchMethodException e) {
        missing.add(method.getName() + Arrays.toString(method.getParameterTypes()));
      }
    }
    return missing;
  }

  private static final class WrappingChannelBuilder
      extends ForwardingChannelBuilder<WrappingChannelBuilder> {
    private final ManagedChannelBuilder<?> delegate;

    WrappingChannelBuilder(ManagedChannelBuilder<?> delegate) {
      this.delegate = delegate;
    }

    @Override
    protected ManagedChannelBuilder<?> delegate() {
      return delegate;
    }
  }

  private static final class WrappingServerBuilder
      extends ForwardingServerBuilder<WrappingServerBuilder> {
    private final ServerBuilder<?> delegate;

    WrappingServerBuilder(ServerBuilder<?> delegate) {
      this.delegate = delegate;
    }

    @Override
    protected ServerBuilder<?> delegate() {
      return delegate;
    }
  }

  /** Records each option it is given, by name (and value where it has a readable one). */
  private static final class RecordingChannelBuilder
      extends ManagedChannelBuilder<RecordingChannelBuilder> {
    final List<String> calls = new ArrayList<>();

    private RecordingChannelBuilder record(String call) {
      calls.add(call);
      return this;
    }

    @Override
    public RecordingChannelBuilder directExecutor() {
      return record("directExecutor");
    }

    @Override
    public RecordingChannelBuilder executor(Executor executor) {
      return record("executor");
    }

    @Override
    public RecordingChannelBuilder intercept(List<ClientInterceptor> interceptors) {
      return record("intercept[" + interceptors.size() + "]");
    }

    @Override
    public RecordingChannelBuilder userAgent(String userAgent) {
      return record("userAgent " + userAgent);
    }

    @Override
    public RecordingChannelBuilder overrideAuthority(String authority) {
      return record("overrideAuthority " + authority);
    }

    @Override
    public RecordingChannelBuilder idleTimeout(long value, TimeUnit unit) {
      return record("idleTimeout " + value + " " + unit);
    }

    @Override
    public RecordingChannelBuilder keepAliveTime(long time, TimeUnit unit) {
      return record("keepAliveTime " + time + " " + unit);
    }

    @Override
    public RecordingChannelBuilder keepAliveTimeout(long timeout, TimeUnit unit) {
      return record("keepAliveTimeout " + timeout + " " + unit);
    }

    @Override
    public RecordingChannelBuilder keepAliveWithoutCalls(boolean enable) {
      return record("keepAliveWithoutCalls " + enable);
    }

    @Override
    public RecordingChannelBuilder maxInboundMessageSize(int bytes) {
      return record("maxInboundMessageSize " + bytes);
    }

    @Override
    public RecordingChannelBuilder maxInboundMetadataSize(int bytes) {
      return record("maxInboundMetadataSize " + bytes);
    }

    @Override
    public RecordingChannelBuilder usePlaintext() {
      return record("usePlaintext");
    }

    @Override
    public RecordingChannelBuilder useTransportSecurity() {
      return record("useTransportSecurity");
    }

    @Override
    public RecordingChannelBuilder compressorRegistry(CompressorRegistry registry) {
      return record("compressorRegistry");
    }

    @Override
    public RecordingChannelBuilder decompressorRegistry(DecompressorRegistry registry) {
      return record("decompressorRegistry");
    }

    @Override
    public RecordingChannelBuilder nameResolverRegistry(NameResolverRegistry registry) {
      return record("nameResolverRegistry");
    }

    @Override
    public RecordingChannelBuilder loadBalancerRegistry(LoadBalancerRegistry registry) {
      return record("loadBalancerRegistry");
    }

    @Override
    public RecordingChannelBuilder defaultLoadBalancingPolicy(String policy) {
      return record("defaultLoadBalancingPolicy " + policy);
    }

    @Override
    public RecordingChannelBuilder defaultServiceConfig(java.util.Map<String, ?> serviceConfig) {
      return record("defaultServiceConfig " + serviceConfig);
    }

    @Override
    public RecordingChannelBuilder defaultServiceConfigJson(String json) {
      return record("defaultServiceConfigJson " + json);
    }

    @Override
    public RecordingChannelBuilder disableServiceConfigLookUp() {
      return record("disableServiceConfigLookUp");
    }

    @Override
    public RecordingChannelBuilder enableRetry() {
      return record("enableRetry");
    }

    @Override
    public RecordingChannelBuilder disableRetry() {
      return record("disableRetry");
    }

    @Override
    public RecordingChannelBuilder maxRetryAttempts(int maxAttempts) {
      return record("maxRetryAttempts " + maxAttempts);
    }

    @Override
    public RecordingChannelBuilder maxHedgedAttempts(int maxAttempts) {
      return record("maxHedgedAttempts " + maxAttempts);
    }

    @Override
    public RecordingChannelBuilder retryBufferSize(long bytes) {
      return record("retryBufferSize " + bytes);
    }

    @Override
    public RecordingChannelBuilder perRpcBufferLimit(long bytes) {
      return record("perRpcBufferLimit " + bytes);
    }

    @Override
    public RecordingChannelBuilder adaptiveThrottling(double k) {
      return record("adaptiveThrottling " + k);
    }

    @Override
    public RecordingChannelBuilder setBinaryLog(BinaryLog binaryLog) {
      return record("setBinaryLog " + binaryLog);
    }

    @Override
    public ManagedChannel build() {
      throw new AssertionError("not built in these tests");
    }

    @Override
    public String toString() {
      return "RecordingChannelBuilder";
    }
  }

  /** Records each option it is given, by name (and value where it has a readable one). */
  private static final class RecordingServerBuilder extends ServerBuilder<RecordingServerBuilder> {
    final List<String> calls = new ArrayList<>();

    private RecordingServerBuilder record(String call) {
      calls.add(call);
      return this;
    }

    @Override
    public RecordingServerBuilder addService(ServerServiceDefinition service) {
      return record("addService " + service.getServiceDescriptor().getName());
    }

    @Override
    public RecordingServerBuilder fallbackHandlerRegistry(HandlerRegistry registry) {
      return record("fallbackHandlerRegistry");
    }

    @Override
    public RecordingServerBuilder executor(Executor executor) {
      return record("executor");
    }

    @Override
    public RecordingServerBuilder directExecutor() {
      return record("directExecutor");
    }

    @Override
    public RecordingServerBuilder intercept(ServerInterceptor interceptor) {
      return record("intercept");
    }

    @Override
    public RecordingServerBuilder addTransportFilter(ServerTransportFilter filter) {
      return record("addTransportFilter");
    }

    @Override
    public RecordingServerBuilder maxInboundMessageSize(int bytes) {
      return record("maxInboundMessageSize " + bytes);
    }

    @Override
    public RecordingServerBuilder maxInboundMetadataSize(int bytes) {
      return record("maxInboundMetadataSize " + bytes);
    }

    @Override
    public RecordingServerBuilder handshakeTimeout(long timeout, TimeUnit unit) {
      return record("handshakeTimeout " + timeout + " " + unit);
    }

    @Override
    public RecordingServerBuilder maxConcurrentCalls(int max) {
      return record("maxConcurrentCalls " + max);
    }

    @Override
    public RecordingServerBuilder overloadRetryPushback(long millis) {
      return record("overloadRetryPushback " + millis);
    }

    @Override
    public RecordingServerBuilder compressorRegistry(CompressorRegistry registry) {
      return record("compressorRegistry");
    }

    @Override
    public RecordingServerBuilder decompressorRegistry(DecompressorRegistry registry) {
      return record("decompressorRegistry");
    }

    @Override
    public RecordingServerBuilder useTransportSecurity(File certChain, File privateKey) {
      return record("useTransportSecurity " + certChain + " " + privateKey);
    }

    @Override
    public RecordingServerBuilder useTransportSecurity(
        InputStream certChain, InputStream privateKey) {
      return record("useTransportSecurity streams");
    }

    @Override
    public RecordingServerBuilder setBinaryLog(BinaryLog binaryLog) {
      return record("setBinaryLog " + binaryLog);
    }

    @Override
    public RecordingServerBuilder addStreamTracerFactory(ServerStreamTracer.Factory factory) {
      return record("addStreamTracerFactory");
    }

    @Override
    public Server build() {
      throw new AssertionError("not built in these tests");
    }
  }
}
