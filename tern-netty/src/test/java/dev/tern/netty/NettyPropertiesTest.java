package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannel;
import dev.tern.netty.testing.ChildJvm;
import dev.tern.testtools.ToolProcess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Tern's defaults for Netty's system properties (NettyProperties), seen in a fresh JVM, as they
 * only act before Netty's first class loads: Netty 4.2's JFR buffer events, which cost a fresh
 * JVM's first call up to a second of set-up, are off unless the application turns them on.
 */
class NettyPropertiesTest {
  @Test
  void nettysJfrEventsAreOffByDefault() throws Exception {
    assertThat(jfrEnabledInAChildJvm(List.of())).endsWith("jfr=false");
  }

  @Test
  void anApplicationThatAsksForNettysJfrEventsGetsThem() throws Exception {
    String seen = jfrEnabledInAChildJvm(List.of("-Dio.netty.jfr.enabled=true"));
    // On a JVM with JFR (every JDK this project supports), the events are on.
    assertThat(seen).isIn("available=true jfr=true", "available=false jfr=false");
  }

  private static String jfrEnabledInAChildJvm(List<String> jvmOptions) throws Exception {
    ToolProcess child =
        ToolProcess.start("netty-properties", ChildJvm.command(Main.class, jvmOptions));
    try {
      assertThat(child.awaitExit(Duration.ofSeconds(60))).as(child.output()).isTrue();
      assertThat(child.exitValue()).as(child.output()).isZero();
      return child.output().lines().filter(l -> l.startsWith("available=")).findFirst().orElse("");
    } finally {
      child.stop(Duration.ofSeconds(5));
    }
  }

  /** Builds a Tern channel, then prints whether Netty's JFR events are on. */
  public static final class Main {
    public static void main(String[] args) throws Exception {
      ManagedChannel channel =
          NettyChannelBuilder.forAddress("127.0.0.1", 1).usePlaintext().build();
      System.out.println(
          "available="
              + jdk.jfr.FlightRecorder.isAvailable()
              + " jfr="
              + io.netty.util.internal.PlatformDependent.isJfrEnabled());
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
