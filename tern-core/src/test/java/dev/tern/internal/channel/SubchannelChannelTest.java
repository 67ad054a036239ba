package dev.tern.internal.channel;

import static dev.tern.internal.channel.ClientTestSupport.UNARY;
import static dev.tern.internal.channel.ClientTestSupport.headers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.LoadBalancerProvider;
import dev.tern.LoadBalancerRegistry;
import dev.tern.Status;
import dev.tern.internal.channel.ClientTestSupport.ChannelFixture;
import dev.tern.internal.channel.ClientTestSupport.RecordingListener;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The seams a balancer uses for client-side health checking: {@link
 * LoadBalancer.Subchannel#asChannel()} (calls on one subchannel) and {@link
 * LoadBalancer#ATTR_HEALTH_CHECKING_CONFIG} (the service config's {@code healthCheckConfig}).
 */
class SubchannelChannelTest {
  private static final SocketAddress A = InetSocketAddress.createUnresolved("a.example", 443);
  private static final SocketAddress B = InetSocketAddress.createUnresolved("b.example", 443);

  private final ChannelFixture fixture = new ChannelFixture();
  private final List<LoadBalancer.ResolvedAddresses> received = new ArrayList<>();
  private final List<LoadBalancer.Subchannel> subchannels = new ArrayList<>();

  @BeforeEach
  void buildChannel() {
    fixture.useFakeResolvers();
    LoadBalancerRegistry registry = new LoadBalancerRegistry();
    registry.register(new OneSubchannelPerAddressProvider());
    fixture.loadBalancerRegistry = registry;
    fixture.loadBalancingPolicy = "one_per_address";
    fixture.build();
    fixture.channel.getState(true);
  }

  @AfterEach
  void shutDownChannel() {
    fixture.channel.shutdownNow();
  }

  private RecordingListener call(LoadBalancer.Subchannel subchannel, CallOptions options) {
    RecordingListener listener = new RecordingListener();
    ClientCall<String, String> call = subchannel.asChannel().newCall(UNARY, options);
    call.start(listener, headers("direct"));
    call.request(1);
    call.sendMessage("hello");
    call.halfClose();
    return listener;
  }

  @Test
  void callsGoOverThatSubchannelsConnectionAndFailUnavailableWhenItHasNone() {
    fixture.resolver().resolve(A, B);
    LoadBalancer.Subchannel second = subchannels.get(1);

    RecordingListener early = call(second, CallOptions.DEFAULT.withWaitForReady());
    assertThat(early.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(early.status.getDescription())
        .isEqualTo("Subchannel{" + List.of(new EquivalentAddressGroup(B)) + "} is not READY");

    FakeClientTransport toB = fixture.factory.transport(1);
    assertThat(toB.address).isEqualTo(B);
    toB.ready();
    RecordingListener call = call(second, CallOptions.DEFAULT.withAuthority("other.example"));
    assertThat(fixture.factory.transport(0).streamCount()).isZero();
    FakeClientStream stream = toB.lastStream();
    assertThat(stream.method).isSameAs(UNARY);
    assertThat(stream.messages).containsExactly("hello");
    assertThat(stream.callOptions.getAuthority()).isEqualTo("other.example");
    stream.serverClose(Status.OK);
    assertThat(call.events()).containsExactly("close OK");
    assertThat(second.asChannel()).isSameAs(second.asChannel());
    assertThat(second.asChannel().authority()).isEqualTo(fixture.channel.authority());

    toB.goAway(Status.UNAVAILABLE.withDescription("server going away"));
    assertThat(call(second, CallOptions.DEFAULT).status.getCode())
        .isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void theServiceConfigsHealthCheckConfigReachesTheBalancer() {
    fixture.resolver().resolve(A);
    assertThat(received.get(0).getAttributes().get(LoadBalancer.ATTR_HEALTH_CHECKING_CONFIG))
        .isNull();

    fixture
        .resolver()
        .resolveWithConfig("{\"healthCheckConfig\": {\"serviceName\": \"helloworld.Greeter\"}}", A);
    Map<String, ?> config =
        received.get(1).getAttributes().get(LoadBalancer.ATTR_HEALTH_CHECKING_CONFIG);
    assertThat(config).isEqualTo(Map.of("serviceName", "helloworld.Greeter"));
    assertThatThrownBy(() -> config.clear()).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void aSubchannelNotMadeByAChannelHasNoChannel() {
    LoadBalancer.Subchannel handMade =
        new LoadBalancer.Subchannel() {
          @Override
          public void start(LoadBalancer.SubchannelStateListener listener) {}

          @Override
          public void shutdown() {}

          @Override
          public void requestConnection() {}

          @Override
          public List<EquivalentAddressGroup> getAllAddresses() {
            return List.of(new EquivalentAddressGroup(A));
          }

          @Override
          public void updateAddresses(List<EquivalentAddressGroup> addresses) {}

          @Override
          public Attributes getAttributes() {
            return Attributes.EMPTY;
          }
        };
    assertThatThrownBy(handMade::asChannel)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageEndingWith("does not support asChannel()");
  }

  @Test
  void callsInFlightKeepTheChannelFromTerminatingUntilTheyEnd() throws Exception {
    fixture.resolver().resolve(A);
    FakeClientTransport transport = fixture.readyTransport();
    RecordingListener call = call(subchannels.get(0), CallOptions.DEFAULT);

    fixture.channel.shutdown();
    assertThat(fixture.channel.awaitTermination(0, TimeUnit.SECONDS)).isFalse();
    transport.lastStream().serverClose(Status.OK);
    assertThat(call.events()).containsExactly("close OK");
    assertThat(fixture.channel.awaitTermination(0, TimeUnit.SECONDS)).isTrue();
  }

  /** Makes and connects one subchannel per address, and records what it is given. */
  private final class OneSubchannelPerAddressProvider extends LoadBalancerProvider {
    @Override
    public boolean isAvailable() {
      return true;
    }

    @Override
    public int getPriority() {
      return 5;
    }

    @Override
    public String getPolicyName() {
      return "one_per_address";
    }

    @Override
    public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
      return new LoadBalancer() {
        @Override
        public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
          received.add(resolved);
          if (subchannels.isEmpty()) {
            for (EquivalentAddressGroup group : resolved.getAddresses()) {
              Subchannel subchannel =
                  helper.createSubchannel(
                      CreateSubchannelArgs.newBuilder().setAddresses(group).build());
              subchannel.start(state -> {});
              subchannel.requestConnection();
              subchannels.add(subchannel);
            }
          }
          return Status.OK;
        }

        @Override
        public void handleNameResolutionError(Status error) {}

        @Override
        public void shutdown() {
          subchannels.forEach(Subchannel::shutdown);
        }
      };
    }
  }
}
