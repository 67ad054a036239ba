package dev.tern.netty.internal.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.testing.LogCapture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/** The write queue's contract: order kept, one drain per burst, one flush per drain. */
class WriteQueueTest {
  /** Counts flushes that reach the channel. */
  private static final class FlushCounter extends ChannelOutboundHandlerAdapter {
    int flushes;

    @Override
    public void flush(ChannelHandlerContext ctx) {
      flushes++;
      ctx.flush();
    }
  }

  @Test
  void aBurstOfCommandsRunsInOrderInOneDrainWithOneFlush() {
    FlushCounter counter = new FlushCounter();
    EmbeddedChannel channel = new EmbeddedChannel(counter);
    WriteQueue queue = new WriteQueue(channel);
    List<Integer> ran = new ArrayList<>();

    for (int i = 0; i < 5; i++) {
      int n = i;
      queue.enqueue(() -> ran.add(n));
    }
    assertThat(ran).as("nothing runs before the event loop drains").isEmpty();
    channel.runPendingTasks();

    assertThat(ran).containsExactly(0, 1, 2, 3, 4);
    assertThat(counter.flushes).isEqualTo(1);
    channel.finishAndReleaseAll();
  }

  @Test
  void aCommandQueuedWithoutDrainWaitsForTheNextCommandAndLeavesWithIt() {
    FlushCounter counter = new FlushCounter();
    EmbeddedChannel channel = new EmbeddedChannel(counter);
    WriteQueue queue = new WriteQueue(channel);
    List<String> ran = new ArrayList<>();

    queue.enqueueWithoutDrain(() -> ran.add("headers"));
    channel.runPendingTasks();
    assertThat(ran).as("no drain was scheduled for it").isEmpty();
    assertThat(counter.flushes).isZero();

    queue.enqueue(() -> ran.add("trailers"));
    channel.runPendingTasks();

    assertThat(ran).containsExactly("headers", "trailers");
    assertThat(counter.flushes).isEqualTo(1);
    channel.finishAndReleaseAll();
  }

  @Test
  void aCommandEnqueuedWhileDrainingJoinsThatDrain() {
    FlushCounter counter = new FlushCounter();
    EmbeddedChannel channel = new EmbeddedChannel(counter);
    WriteQueue queue = new WriteQueue(channel);
    List<String> ran = new ArrayList<>();

    queue.enqueue(
        () -> {
          ran.add("first");
          queue.enqueue(() -> ran.add("second"));
        });
    channel.runPendingTasks();

    assertThat(ran).containsExactly("first", "second");
    assertThat(counter.flushes).isEqualTo(1);
    channel.finishAndReleaseAll();
  }

  @Test
  void aFailingCommandDoesNotStopTheOthers() {
    EmbeddedChannel channel = new EmbeddedChannel();
    WriteQueue queue = new WriteQueue(channel);
    List<String> ran = new ArrayList<>();

    try (LogCapture log = new LogCapture(WriteQueue.class)) {
      queue.enqueue(
          () -> {
            throw new IllegalStateException("command failed on purpose");
          });
      queue.enqueue(() -> ran.add("after"));
      channel.runPendingTasks();

      assertThat(ran).containsExactly("after");
      // A command that throws is a bug in Tern: it is logged once, with its stack, at WARNING.
      assertThat(log.records())
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.getLevel()).isEqualTo(Level.WARNING);
                assertThat(r.getThrown()).hasMessage("command failed on purpose");
              });
    }
    channel.finishAndReleaseAll();
  }
}
