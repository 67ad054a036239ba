package dev.tern.stub;

import static dev.tern.MethodDescriptor.MethodType.UNARY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallCredentials;
import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptor;
import dev.tern.Deadline;
import dev.tern.MethodDescriptor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AbstractStubTest {
  private static final CallOptions.Key<String> TENANT = CallOptions.Key.create("tenant");

  private final FakeChannel channel = new FakeChannel();

  /** The shape of a generated stub. */
  private static final class GreeterStub extends AbstractStub<GreeterStub> {
    GreeterStub(Channel channel, CallOptions callOptions) {
      super(channel, callOptions);
    }

    @Override
    protected GreeterStub build(Channel channel, CallOptions callOptions) {
      return new GreeterStub(channel, callOptions);
    }
  }

  private static final class GreeterBlockingStub extends AbstractBlockingStub<GreeterBlockingStub> {
    GreeterBlockingStub(Channel channel, CallOptions callOptions) {
      super(channel, callOptions);
    }

    @Override
    protected GreeterBlockingStub build(Channel channel, CallOptions callOptions) {
      return new GreeterBlockingStub(channel, callOptions);
    }

    String sayHello(String name) {
      return ClientCalls.blockingUnaryCall(
          getChannel(), StringMarshaller.method(UNARY), getCallOptions(), name);
    }
  }

  private static final class GreeterAsyncStub extends AbstractAsyncStub<GreeterAsyncStub> {
    GreeterAsyncStub(Channel channel, CallOptions callOptions) {
      super(channel, callOptions);
    }

    @Override
    protected GreeterAsyncStub build(Channel channel, CallOptions callOptions) {
      return new GreeterAsyncStub(channel, callOptions);
    }
  }

  private static final class GreeterFutureStub extends AbstractFutureStub<GreeterFutureStub> {
    GreeterFutureStub(Channel channel, CallOptions callOptions) {
      super(channel, callOptions);
    }

    @Override
    protected GreeterFutureStub build(Channel channel, CallOptions callOptions) {
      return new GreeterFutureStub(channel, callOptions);
    }
  }

  @Test
  void withMethods_returnNewStubsWithTheOption_andLeaveTheOriginalUnchanged() {
    GreeterStub original = new GreeterStub(channel, CallOptions.DEFAULT);
    Executor executor = Runnable::run;
    Deadline deadline = Deadline.after(1, TimeUnit.MINUTES);
    CallCredentials credentials =
        new CallCredentials() {
          @Override
          public void applyRequestMetadata(
              RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier) {}
        };

    GreeterStub configured =
        original
            .withDeadline(deadline)
            .withExecutor(executor)
            .withCompression("gzip")
            .withWaitForReady()
            .withMaxInboundMessageSize(1000)
            .withMaxOutboundMessageSize(2000)
            .withCallCredentials(credentials)
            .withOption(TENANT, "acme");

    CallOptions options = configured.getCallOptions();
    assertThat(options.getDeadline()).isEqualTo(deadline);
    assertThat(options.getExecutor()).isSameAs(executor);
    assertThat(options.getCompressor()).isEqualTo("gzip");
    assertThat(options.isWaitForReady()).isTrue();
    assertThat(options.getMaxInboundMessageSize()).isEqualTo(1000);
    assertThat(options.getMaxOutboundMessageSize()).isEqualTo(2000);
    assertThat(options.getCredentials()).isSameAs(credentials);
    assertThat(options.getOption(TENANT)).isEqualTo("acme");
    assertThat(configured.getChannel()).isSameAs(channel);
    assertThat(configured).isNotSameAs(original);
    assertThat(original.getCallOptions()).isSameAs(CallOptions.DEFAULT);
  }

  @Test
  void withDeadlineAfter_setsADeadlineThatFarAhead() {
    GreeterStub stub = new GreeterStub(channel, CallOptions.DEFAULT);

    Deadline fromUnits =
        stub.withDeadlineAfter(30, TimeUnit.SECONDS).getCallOptions().getDeadline();
    Deadline fromDuration =
        stub.withDeadlineAfter(Duration.ofSeconds(30)).getCallOptions().getDeadline();

    for (Deadline deadline : new Deadline[] {fromUnits, fromDuration}) {
      assertThat(deadline.timeRemaining(TimeUnit.SECONDS)).isBetween(25L, 30L);
    }
    assertThat(stub.getCallOptions().getDeadline()).isNull();
  }

  @Test
  void withInterceptors_routesCallsThroughThem_lastOneFirst() throws Exception {
    List<String> order = new ArrayList<>();
    ClientInterceptor first = recordingInterceptor("first", order);
    ClientInterceptor second = recordingInterceptor("second", order);
    channel.respondOnHalfClose(call -> call.respond("hello"));
    GreeterBlockingStub stub = GreeterBlockingStub.newStub(GreeterBlockingStub::new, channel);

    String reply = stub.withInterceptors(first, second).sayHello("ada");

    assertThat(reply).isEqualTo("hello");
    assertThat(order).containsExactly("second", "first");
    assertThat(stub.getChannel()).isSameAs(channel);
  }

  @Test
  void newStub_marksCallsWithTheStubType() {
    GreeterBlockingStub blocking = AbstractBlockingStub.newStub(GreeterBlockingStub::new, channel);
    GreeterAsyncStub async =
        AbstractAsyncStub.newStub(
            GreeterAsyncStub::new, channel, CallOptions.DEFAULT.withCompression("gzip"));
    GreeterFutureStub future = AbstractFutureStub.newStub(GreeterFutureStub::new, channel);

    assertThat(blocking.getCallOptions().getOption(ClientCalls.STUB_TYPE_OPTION))
        .isEqualTo(ClientCalls.StubType.BLOCKING);
    assertThat(async.getCallOptions().getOption(ClientCalls.STUB_TYPE_OPTION))
        .isEqualTo(ClientCalls.StubType.ASYNC);
    assertThat(async.getCallOptions().getCompressor()).isEqualTo("gzip");
    assertThat(future.getCallOptions().getOption(ClientCalls.STUB_TYPE_OPTION))
        .isEqualTo(ClientCalls.StubType.FUTURE);
    // The stub type survives derivation.
    assertThat(
            blocking
                .withDeadlineAfter(1, TimeUnit.SECONDS)
                .getCallOptions()
                .getOption(ClientCalls.STUB_TYPE_OPTION))
        .isEqualTo(ClientCalls.StubType.BLOCKING);
  }

  @Test
  void badArguments_areRejectedWithTheirNames() {
    assertThatThrownBy(() -> new GreeterStub(null, CallOptions.DEFAULT))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("channel");
    assertThatThrownBy(() -> new GreeterStub(channel, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("callOptions");
    GreeterStub stub = new GreeterStub(channel, CallOptions.DEFAULT);
    assertThatThrownBy(() -> stub.withMaxInboundMessageSize(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxSize");
    assertThatThrownBy(() -> stub.withDeadlineAfter(1, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("unit");
    assertThatThrownBy(() -> AbstractAsyncStub.newStub(null, channel))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("factory");
  }

  private static ClientInterceptor recordingInterceptor(String name, List<String> order) {
    return new ClientInterceptor() {
      @Override
      public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
          MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
        order.add(name);
        return next.newCall(method, callOptions);
      }
    };
  }
}
