package dev.tern.internal.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptor;
import dev.tern.CompressorRegistry;
import dev.tern.DecompressorRegistry;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.NameResolverRegistry;
import dev.tern.Status;
import dev.tern.internal.channel.ClientTestSupport.RecordingListener;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ClientTransportFactory;
import dev.tern.testing.FakeClock;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AbstractManagedChannelBuilderTest {

  /** A transport's builder as the SPI expects one: hooks plus access to the options. */
  static class TestBuilder extends AbstractManagedChannelBuilder<TestBuilder> {
    final FakeClientTransportFactory factory = new FakeClientTransportFactory(new FakeClock());
    final List<String> hookCalls = new ArrayList<>();
    SocketAddress address = ClientTestSupport.ADDRESS;
    String authority = "svc.example:443";

    @Override
    protected ClientTransportFactory buildTransportFactory() {
      hookCalls.add("buildTransportFactory");
      return factory;
    }

    @Override
    protected String target() {
      hookCalls.add("target");
      return "test-target";
    }

    @Override
    protected SocketAddress directAddress() {
      hookCalls.add("directAddress");
      return address;
    }

    @Override
    protected String authority() {
      hookCalls.add("authority");
      return authority;
    }

    Executor executorOption() {
      return executor();
    }

    boolean direct() {
      return isDirectExecutor();
    }

    List<ClientInterceptor> interceptorsOption() {
      return interceptors();
    }

    String userAgentOption() {
      return userAgent();
    }

    String fullUserAgentOption() {
      return fullUserAgent();
    }

    String authorityOverrideOption() {
      return authorityOverride();
    }

    long idleNanos() {
      return idleTimeoutNanos();
    }

    int maxMessage() {
      return maxInboundMessageSize();
    }

    int maxMetadata() {
      return maxInboundMetadataSize();
    }

    boolean plaintext() {
      return isPlaintext();
    }

    CompressorRegistry compressors() {
      return compressorRegistry();
    }

    DecompressorRegistry decompressors() {
      return decompressorRegistry();
    }
  }

  private final TestBuilder builder = new TestBuilder();
  private ManagedChannel channel;

  @AfterEach
  void shutDown() {
    if (channel != null) {
      channel.shutdownNow();
    }
  }

  @Test
  void defaultsMatchTheDocumentation() {
    assertThat(builder.executorOption()).isNull();
    assertThat(builder.direct()).isFalse();
    assertThat(builder.interceptorsOption()).isEmpty();
    assertThat(builder.userAgentOption()).isNull();
    assertThat(builder.fullUserAgentOption()).isEqualTo(GrpcHeaders.USER_AGENT_TOKEN);
    assertThat(builder.authorityOverrideOption()).isNull();
    assertThat(builder.idleNanos()).isEqualTo(TimeUnit.MINUTES.toNanos(30));
    assertThat(builder.maxMessage()).isEqualTo(4 * 1024 * 1024);
    assertThat(builder.maxMetadata()).isEqualTo(8192);
    assertThat(builder.plaintext()).isFalse();
    assertThat(builder.compressors()).isSameAs(CompressorRegistry.getDefaultInstance());
    assertThat(builder.decompressors()).isSameAs(DecompressorRegistry.getDefaultInstance());
  }

  @Test
  void optionsAreStoredForSubclasses() {
    Executor executor = Runnable::run;
    CompressorRegistry compressors = CompressorRegistry.newEmptyInstance();
    DecompressorRegistry decompressors = DecompressorRegistry.emptyInstance();

    builder
        .executor(executor)
        .userAgent("my-app/2.0")
        .overrideAuthority("override.example:8443")
        .idleTimeout(5, TimeUnit.SECONDS)
        .maxInboundMessageSize(1000)
        .maxInboundMetadataSize(2000)
        .usePlaintext()
        .compressorRegistry(compressors)
        .decompressorRegistry(decompressors);

    assertThat(builder.executorOption()).isSameAs(executor);
    assertThat(builder.userAgentOption()).isEqualTo("my-app/2.0");
    assertThat(builder.fullUserAgentOption())
        .isEqualTo("my-app/2.0 " + GrpcHeaders.USER_AGENT_TOKEN);
    assertThat(builder.authorityOverrideOption()).isEqualTo("override.example:8443");
    assertThat(builder.idleNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(5));
    assertThat(builder.maxMessage()).isEqualTo(1000);
    assertThat(builder.maxMetadata()).isEqualTo(2000);
    assertThat(builder.plaintext()).isTrue();
    assertThat(builder.compressors()).isSameAs(compressors);
    assertThat(builder.decompressors()).isSameAs(decompressors);
    assertThat(builder.useTransportSecurity().plaintext()).isFalse();
  }

  @Test
  void directExecutorAndExecutorReplaceEachOther() {
    Executor executor = Runnable::run;

    builder.executor(executor).directExecutor();
    assertThat(builder.direct()).isTrue();
    assertThat(builder.executorOption()).isNull();

    builder.executor(executor);
    assertThat(builder.direct()).isFalse();
    assertThat(builder.executorOption()).isSameAs(executor);
  }

  @Test
  void invalidOptionsAreRejectedNamingTheOption() {
    assertThatThrownBy(() -> builder.idleTimeout(0, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("idleTimeout");
    assertThatThrownBy(() -> builder.maxInboundMessageSize(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxInboundMessageSize");
    assertThatThrownBy(() -> builder.maxInboundMetadataSize(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxInboundMetadataSize");
    assertThatThrownBy(() -> builder.userAgent(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("userAgent");
    assertThatThrownBy(() -> builder.userAgent("evil\r\nx-injected: 1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("userAgent");
    assertThatThrownBy(() -> builder.overrideAuthority("has space"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("overrideAuthority");
    assertThatThrownBy(() -> builder.overrideAuthority("host/path"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("overrideAuthority");
    assertThatThrownBy(() -> builder.overrideAuthority(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("overrideAuthority");
    assertThatThrownBy(() -> builder.keepAliveTime(0, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keepAliveTime");
    assertThatThrownBy(() -> builder.keepAliveTimeout(-1, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keepAliveTimeout");
  }

  @Test
  void nullArgumentsAreRejectedByName() {
    assertThatThrownBy(() -> builder.executor(null)).hasMessage("executor");
    assertThatThrownBy(() -> builder.intercept((List<ClientInterceptor>) null))
        .hasMessage("interceptors");
    assertThatThrownBy(
            () ->
                builder.intercept(
                    new ArrayList<>(java.util.Arrays.asList((ClientInterceptor) null))))
        .hasMessage("interceptors[0]");
    assertThatThrownBy(() -> builder.userAgent(null)).hasMessage("userAgent");
    assertThatThrownBy(() -> builder.overrideAuthority(null)).hasMessage("authority");
    assertThatThrownBy(() -> builder.idleTimeout(1, null)).hasMessage("unit");
    assertThatThrownBy(() -> builder.keepAliveTime(1, null)).hasMessage("unit");
    assertThatThrownBy(() -> builder.keepAliveTimeout(1, null)).hasMessage("unit");
    assertThatThrownBy(() -> builder.compressorRegistry(null)).hasMessage("registry");
    assertThatThrownBy(() -> builder.decompressorRegistry(null)).hasMessage("registry");
  }

  @Test
  void buildConnectsWithTheFullUserAgentAndTheTransportAuthority() {
    channel = builder.userAgent("my-app/2.0").build();

    assertThat(builder.hookCalls)
        .containsExactly("target", "directAddress", "authority", "buildTransportFactory");
    assertThat(channel.authority()).isEqualTo("svc.example:443");
    channel.getState(true);
    FakeClientTransport transport = builder.factory.last();
    assertThat(transport.address).isSameAs(ClientTestSupport.ADDRESS);
    assertThat(transport.authority).isEqualTo("svc.example:443");
    assertThat(transport.userAgent).isEqualTo("my-app/2.0 " + GrpcHeaders.USER_AGENT_TOKEN);
  }

  @Test
  void overriddenAuthorityReplacesTheTransportAuthority() {
    channel = builder.overrideAuthority("override.example").build();

    assertThat(channel.authority()).isEqualTo("override.example");
    channel.getState(true);
    assertThat(builder.factory.last().authority).isEqualTo("override.example");
  }

  @Test
  void builtChannelAppliesMessageLimitInterceptorsAndDirectExecutor() {
    List<String> seen = new ArrayList<>();
    ClientInterceptor interceptor =
        new ClientInterceptor() {
          @Override
          public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
              MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
            seen.add(method.getFullMethodName());
            return next.newCall(method, callOptions);
          }
        };
    channel = builder.directExecutor().intercept(interceptor).maxInboundMessageSize(1234).build();
    channel.getState(true);
    FakeClientTransport transport = builder.factory.last();
    transport.ready();

    ClientCall<String, String> call = channel.newCall(ClientTestSupport.UNARY, CallOptions.DEFAULT);
    RecordingListener listener = new RecordingListener();
    call.start(listener, new Metadata());
    transport.lastStream().serverClose(Status.OK);

    assertThat(seen).containsExactly("test.Echo/Unary");
    assertThat(transport.lastStream().maxInbound()).isEqualTo(1234);
    assertThat(listener.events()).containsExactly("close OK"); // inline: direct executor
  }

  @Test
  void hooksReturningNullFailTheBuildClearly() {
    builder.authority = null;
    assertThatThrownBy(builder::build).hasMessage("authority() returned null");
  }

  @Test
  void withoutADirectAddressTheTargetIsResolvedAndAMalformedOneFailsTheBuild() {
    builder.address = null;
    builder.nameResolverRegistry(NameResolverRegistry.getDefaultRegistry());
    TestBuilder malformed =
        new TestBuilder() {
          @Override
          protected String target() {
            return "dns:///host:notaport";
          }
        };
    malformed.address = null;
    assertThatThrownBy(malformed::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("target 'dns:///host:notaport' has port 'notaport', not a number in 0..65535");
  }

  @Test
  void badServiceConfigsAreRefusedNamingTheFieldAndValue() {
    TestBuilder builder = new TestBuilder();
    String retry =
        "{\"methodConfig\": [{\"name\": [{\"service\": \"s\"}], \"retryPolicy\": {"
            + "\"maxAttempts\": %s, \"initialBackoff\": \"%s\", \"maxBackoff\": \"1s\","
            + " \"backoffMultiplier\": 2, \"retryableStatusCodes\": [\"%s\"]}}]}";

    assertThatThrownBy(() -> builder.defaultServiceConfigJson("{\"methodConfig\": [}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "service config: JSON: unexpected character '}' at offset 18, expected a value");
    assertThatThrownBy(
            () ->
                builder.defaultServiceConfigJson(String.format(retry, "1", "0.1s", "UNAVAILABLE")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("methodConfig[0].retryPolicy.maxAttempts")
        .hasMessageContaining("1");
    assertThatThrownBy(
            () -> builder.defaultServiceConfigJson(String.format(retry, "3", "0s", "UNAVAILABLE")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("methodConfig[0].retryPolicy.initialBackoff");
    assertThatThrownBy(
            () -> builder.defaultServiceConfigJson(String.format(retry, "3", "-2s", "UNAVAILABLE")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("methodConfig[0].retryPolicy.initialBackoff");
    assertThatThrownBy(
            () ->
                builder.defaultServiceConfigJson(String.format(retry, "3", "0.1s", "UNAVAILABEL")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("retryableStatusCodes[0]")
        .hasMessageContaining("UNAVAILABEL");
    assertThatThrownBy(
            () ->
                builder.defaultServiceConfig(
                    java.util.Map.of("methodConfig", List.of(java.util.Map.of("timeout", "5s")))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("methodConfig[0].name");
    builder.defaultServiceConfigJson(String.format(retry, "3", "0.1s", "UNAVAILABLE")); // valid
  }

  @Test
  void theDefaultServiceConfigsPolicyIsLookedUpInTheBuildersRegistry() {
    dev.tern.LoadBalancerRegistry withCustom =
        new dev.tern.LoadBalancerRegistry(
            dev.tern.LoadBalancerRegistry.getDefaultRegistry(),
            name ->
                name.equals("custom")
                    ? dev.tern.LoadBalancerRegistry.getDefaultRegistry().getProvider("pick_first")
                    : null);
    String config = "{\"loadBalancingConfig\": [{\"custom\": {}}]}";
    TestBuilder builder = new TestBuilder();

    assertThatThrownBy(() -> builder.defaultServiceConfigJson(config))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[custom]");
    // A fallback's provider must be of the policy asked for: pick_first's is not "custom".
    assertThatThrownBy(
            () -> builder.loadBalancerRegistry(withCustom).defaultServiceConfigJson(config))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[custom]");
  }

  @Test
  void aDefaultServiceConfigIsCheckedAgainWhenTheRegistryChanges() {
    dev.tern.LoadBalancerRegistry withCustom = new dev.tern.LoadBalancerRegistry();
    withCustom.register(new NamedPolicy("custom"));
    String config = "{\"loadBalancingConfig\": [{\"custom\": {}}]}";
    TestBuilder builder = new TestBuilder().loadBalancerRegistry(withCustom);

    builder.defaultServiceConfigJson(config); // custom is in the builder's registry

    assertThatThrownBy(
            () -> builder.loadBalancerRegistry(dev.tern.LoadBalancerRegistry.getDefaultRegistry()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[custom]");
    TestBuilder configFirst = new TestBuilder();
    configFirst.defaultServiceConfigJson("{\"loadBalancingConfig\": [{\"round_robin\": {}}]}");
    assertThatThrownBy(() -> configFirst.loadBalancerRegistry(withCustom))
        .as("round_robin is not in the new registry")
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[round_robin]");
  }

  /** A policy of one name that never gets to balance (the builder only parses configs here). */
  private static final class NamedPolicy extends ChannelLifecycleTest.TestPolicyProvider {
    NamedPolicy(String name) {
      super(name);
    }

    @Override
    public dev.tern.LoadBalancer newLoadBalancer(dev.tern.LoadBalancer.Helper helper) {
      throw new AssertionError("not built in this test");
    }
  }

  @Test
  void badRetryLimitsAreRefused() {
    TestBuilder builder = new TestBuilder();
    assertThatThrownBy(() -> builder.maxRetryAttempts(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxRetryAttempts must be >= 1, was 0");
    assertThatThrownBy(() -> builder.maxHedgedAttempts(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxHedgedAttempts must be >= 1, was -1");
    assertThatThrownBy(() -> builder.retryBufferSize(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retryBufferSize must be > 0, was 0");
    assertThatThrownBy(() -> builder.perRpcBufferLimit(-5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("perRpcBufferLimit must be > 0, was -5");
  }

  @Test
  void badAdaptiveThrottlingMultipliersAreRefused() {
    TestBuilder builder = new TestBuilder();
    assertThatThrownBy(() -> builder.adaptiveThrottling(0.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("k must be a finite number >= 1, was 0.5");
    assertThatThrownBy(() -> builder.adaptiveThrottling(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("k must be a finite number >= 1, was NaN");
    assertThatThrownBy(() -> builder.adaptiveThrottling(Double.POSITIVE_INFINITY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("k must be a finite number >= 1, was Infinity");
    assertThat(builder.adaptiveThrottling(1)).isSameAs(builder);
  }
}
