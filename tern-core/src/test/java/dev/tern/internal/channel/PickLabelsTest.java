package dev.tern.internal.channel;

import static dev.tern.internal.channel.ClientTestSupport.CUSTOM;
import static dev.tern.internal.channel.ClientTestSupport.UNARY;
import static dev.tern.internal.channel.ClientTestSupport.headers;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ClientStreamTracer;
import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.LoadBalancerProvider;
import dev.tern.LoadBalancerRegistry;
import dev.tern.Metadata;
import dev.tern.MetricInstruments;
import dev.tern.Status;
import dev.tern.internal.channel.ClientTestSupport.ChannelFixture;
import dev.tern.internal.channel.ClientTestSupport.RecordingListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The labels a picker names ({@link LoadBalancer.PickSubchannelArgs#addOptionalLabel}) reach the
 * attempt's stream tracers before anything else, for a picked attempt and for one the pick drops; a
 * call without tracers goes through untouched; a picker's null key or value does not fail the call.
 */
class PickLabelsTest {
  private final ChannelFixture fixture = new ChannelFixture();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final ClientStreamTracer.Factory recording =
      new ClientStreamTracer.Factory() {
        @Override
        public ClientStreamTracer newClientStreamTracer(
            ClientStreamTracer.StreamInfo info, Metadata headers) {
          return new ClientStreamTracer() {
            @Override
            public void addOptionalLabel(String key, String value) {
              events.add(key + "=" + value);
            }

            @Override
            public void streamCreated(Attributes transportAttrs, Metadata headers) {
              events.add("created");
            }

            @Override
            public void streamClosed(Status status) {
              events.add("closed " + status.getCode());
            }
          };
        }
      };

  @BeforeEach
  void buildChannel() {
    fixture.useFakeResolvers();
    LoadBalancerRegistry registry = new LoadBalancerRegistry();
    registry.register(new LabelingProvider());
    fixture.loadBalancerRegistry = registry;
    fixture.loadBalancingPolicy = "labeling";
    fixture.build();
    fixture.channel.getState(true);
    fixture.resolver().resolve(ClientTestSupport.ADDRESS);
    fixture.factory.transport(0).ready();
  }

  @AfterEach
  void shutDownChannel() {
    fixture.channel.shutdownNow();
  }

  private RecordingListener call(String marker, CallOptions options) {
    RecordingListener listener = new RecordingListener();
    ClientCall<String, String> call = fixture.channel.newCall(UNARY, options);
    call.start(listener, headers(marker));
    call.request(1);
    call.sendMessage("hello");
    call.halfClose();
    return listener;
  }

  @Test
  void aPickedAttemptsTracersHearItsLabelsFirstTheLastValueOfAKeyCounting() {
    RecordingListener call = call("pick", CallOptions.DEFAULT.withStreamTracerFactory(recording));
    fixture.factory.transport(0).lastStream().serverClose(Status.OK);

    assertThat(call.events()).containsExactly("close OK");
    assertThat(events)
        .containsExactly(
            "grpc.lb.backend_service=svc", "grpc.lb.locality=zone-b", "created", "closed OK");
  }

  @Test
  void anAttemptThePickDropsGetsTracersThatHearItsLabelsThenItsStatus() {
    RecordingListener call = call("drop", CallOptions.DEFAULT.withStreamTracerFactory(recording));

    assertThat(call.events()).containsExactly("close UNAVAILABLE");
    assertThat(call.status.getDescription()).isEqualTo("dropped");
    assertThat(fixture.factory.transport(0).streamCount()).isZero();
    assertThat(events).containsExactly("grpc.lb.backend_service=svc", "closed UNAVAILABLE");
  }

  @Test
  void anUntracedCallIsPickedForAsItselfAndItsLabelsGoNowhere() {
    RecordingListener picked = call("pick", CallOptions.DEFAULT);
    fixture.factory.transport(0).lastStream().serverClose(Status.OK);
    RecordingListener dropped = call("drop", CallOptions.DEFAULT);

    assertThat(picked.events()).containsExactly("close OK");
    assertThat(dropped.events()).containsExactly("close UNAVAILABLE");
    assertThat(events).isEmpty();
  }

  @Test
  void aNullKeyIsIgnoredAndANullValueCountsAsEmpty() {
    RecordingListener call = call("nulls", CallOptions.DEFAULT.withStreamTracerFactory(recording));
    fixture.factory.transport(0).lastStream().serverClose(Status.OK);

    assertThat(call.events()).containsExactly("close OK");
    assertThat(events)
        .containsExactly(
            "grpc.lb.backend_service=svc", "grpc.lb.locality=", "created", "closed OK");
  }

  /**
   * One subchannel; its picker names the backend service "svc" on every pick, then drops calls
   * whose {@code x-custom} header says "drop", names a null key and a null locality for "nulls",
   * and otherwise names the locality twice (the second value counts) and picks the subchannel.
   */
  private static final class LabelingProvider extends LoadBalancerProvider {
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
      return "labeling";
    }

    @Override
    public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
      return new LoadBalancer() {
        private Subchannel subchannel;

        @Override
        public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
          if (subchannel == null) {
            subchannel =
                helper.createSubchannel(
                    CreateSubchannelArgs.newBuilder()
                        .setAddresses(resolved.getAddresses().get(0))
                        .build());
            Subchannel chosen = subchannel;
            subchannel.start(
                state -> helper.updateBalancingState(state.getState(), picker(chosen)));
            subchannel.requestConnection();
            helper.updateBalancingState(ConnectivityState.CONNECTING, picker(chosen));
          }
          return Status.OK;
        }

        @Override
        public void handleNameResolutionError(Status error) {}

        @Override
        public void shutdown() {
          if (subchannel != null) {
            subchannel.shutdown();
          }
        }
      };
    }

    private static LoadBalancer.SubchannelPicker picker(LoadBalancer.Subchannel subchannel) {
      return new LoadBalancer.SubchannelPicker() {
        @Override
        public LoadBalancer.PickResult pickSubchannel(LoadBalancer.PickSubchannelArgs args) {
          args.addOptionalLabel(MetricInstruments.BACKEND_SERVICE, "svc");
          String marker = args.getHeaders().get(CUSTOM);
          if ("drop".equals(marker)) {
            return LoadBalancer.PickResult.withDrop(Status.UNAVAILABLE.withDescription("dropped"));
          }
          if ("nulls".equals(marker)) {
            args.addOptionalLabel(null, "ignored");
            args.addOptionalLabel(MetricInstruments.LOCALITY, null);
          } else {
            args.addOptionalLabel(MetricInstruments.LOCALITY, "zone-a");
            args.addOptionalLabel(MetricInstruments.LOCALITY, "zone-b");
          }
          return LoadBalancer.PickResult.withSubchannel(subchannel);
        }
      };
    }
  }
}
