package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MutableHandlerRegistryTest {
  private static final MethodDescriptor.Marshaller<String> MARSHALLER =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
          return new ByteArrayInputStream(new byte[0]);
        }

        @Override
        public String parse(InputStream stream) {
          return "";
        }
      };

  private final MutableHandlerRegistry registry = new MutableHandlerRegistry();

  private static ServerServiceDefinition service(String name, String... methods) {
    ServerServiceDefinition.Builder builder = ServerServiceDefinition.builder(name);
    for (String method : methods) {
      builder.addMethod(
          MethodDescriptor.<String, String>newBuilder()
              .setType(MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(name + "/" + method)
              .setRequestMarshaller(MARSHALLER)
              .setResponseMarshaller(MARSHALLER)
              .build(),
          (call, headers) -> new ServerCall.Listener<String>() {});
    }
    return builder.build();
  }

  @Test
  void lookupMethod_findsMethodsOfAddedServices() {
    ServerServiceDefinition greeter = service("pkg.Greeter", "Hello", "Bye");
    registry.addService(greeter);

    ServerMethodDefinition<?, ?> found = registry.lookupMethod("pkg.Greeter/Bye", "host");

    assertThat(found).isSameAs(greeter.getMethod("pkg.Greeter/Bye"));
    assertThat(registry.lookupMethod("pkg.Greeter/Missing")).isNull();
    assertThat(registry.lookupMethod("pkg.Other/Hello")).isNull();
    assertThat(registry.lookupMethod("no-slash")).isNull();
  }

  @Test
  void addService_returnsTheServiceItReplaced() {
    ServerServiceDefinition v1 = service("pkg.Greeter", "Hello");
    ServerServiceDefinition v2 = service("pkg.Greeter", "Hello", "Bye");

    assertThat(registry.addService(v1)).isNull();
    assertThat(registry.addService(v2)).isSameAs(v1);

    assertThat(registry.lookupMethod("pkg.Greeter/Bye")).isNotNull();
    assertThat(registry.getServices()).containsExactly(v2);
  }

  @Test
  void removeService_removesOnlyThatVersion() {
    ServerServiceDefinition v1 = service("pkg.Greeter", "Hello");
    ServerServiceDefinition v2 = service("pkg.Greeter", "Hello");
    registry.addService(v2);

    assertThat(registry.removeService(v1)).isFalse();
    assertThat(registry.lookupMethod("pkg.Greeter/Hello")).isNotNull();
    assertThat(registry.removeService(v2)).isTrue();
    assertThat(registry.removeService(v2)).isFalse();
    assertThat(registry.lookupMethod("pkg.Greeter/Hello")).isNull();
    assertThat(registry.getServices()).isEmpty();
  }

  @Test
  void getServices_isAnUnmodifiableSnapshot() {
    registry.addService(service("a.A", "M"));
    List<ServerServiceDefinition> snapshot = registry.getServices();

    registry.addService(service("b.B", "M"));

    assertThat(snapshot).hasSize(1);
    assertThatThrownBy(() -> snapshot.add(service("c.C", "M")))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void nullArguments_areRejectedByName() {
    assertThatThrownBy(() -> registry.addService(null)).hasMessageContaining("service");
    assertThatThrownBy(() -> registry.removeService(null)).hasMessageContaining("service");
    assertThatThrownBy(() -> registry.lookupMethod(null, null))
        .hasMessageContaining("fullMethodName");
  }

  @Test
  void concurrentChangesAndLookups_neverFailAndEndInTheExpectedState() throws Exception {
    int threads = 4;
    int servicesPerThread = 200;
    ServerServiceDefinition stable = service("stable.S", "M");
    registry.addService(stable);
    ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        writers.add(
            pool.submit(
                () -> {
                  go.await();
                  for (int i = 0; i < servicesPerThread; i++) {
                    ServerServiceDefinition s = service("t" + thread + ".S" + i, "M");
                    registry.addService(s);
                    if (i % 2 == 1) {
                      registry.removeService(s);
                    }
                  }
                  return null;
                }));
      }
      Future<Integer> reader =
          pool.submit(
              () -> {
                go.await();
                int misses = 0;
                for (int i = 0; i < 5_000; i++) {
                  if (registry.lookupMethod("stable.S/M") == null) {
                    misses++;
                  }
                  registry.lookupMethod("t0.S" + (i % servicesPerThread) + "/M");
                }
                return misses;
              });
      go.countDown();
      for (Future<?> writer : writers) {
        writer.get(30, TimeUnit.SECONDS);
      }
      assertThat(reader.get(30, TimeUnit.SECONDS)).isZero();
    } finally {
      pool.shutdownNow();
    }

    assertThat(registry.getServices()).hasSize(1 + threads * servicesPerThread / 2);
    assertThat(registry.lookupMethod("t3.S198/M")).isNotNull();
    assertThat(registry.lookupMethod("t3.S199/M")).isNull();
  }
}
