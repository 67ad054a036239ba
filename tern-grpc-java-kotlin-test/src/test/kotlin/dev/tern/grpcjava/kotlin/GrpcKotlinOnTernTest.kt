package dev.tern.grpcjava.kotlin

import dev.tern.grpcjava.kotlin.TallyGrpcKt.TallyCoroutineStub
import io.grpc.Grpc
import io.grpc.InsecureChannelCredentials
import io.grpc.InsecureServerCredentials
import io.grpc.ManagedChannel
import io.grpc.ManagedChannelProvider
import io.grpc.Metadata
import io.grpc.Server
import io.grpc.ServerInterceptors
import io.grpc.ServerProvider
import io.grpc.Status
import io.grpc.StatusException
import io.grpc.stub.MetadataUtils
import io.netty.buffer.ByteBufAllocator
import io.netty.buffer.ByteBufUtil
import io.netty.util.ResourceLeakDetector
import java.util.concurrent.Executor
import java.util.concurrent.TimeUnit
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.flow.consumeAsFlow
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.produceIn
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

/**
 * grpc-kotlin on Tern: [TallyService] and the generated [TallyCoroutineStub] use io.grpc's builders
 * (`Grpc.newServerBuilderForPort`, `Grpc.newChannelBuilder`) and nothing of Tern's. tern-grpc-java
 * is on the class path and no grpc-java transport is, so those builders are Tern's; the first test
 * shows it, the others what a grpc-kotlin user sees of each kind of call.
 */
class GrpcKotlinOnTernTest {
  private val service = TallyService()
  private lateinit var server: Server
  private lateinit var channel: ManagedChannel
  private lateinit var stub: TallyCoroutineStub

  @BeforeEach
  fun start() {
    leaks.clear()
    server =
      Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
        .addService(ServerInterceptors.intercept(service, CallHeadersInterceptor()))
        .build()
        .start()
    channel =
      Grpc.newChannelBuilder("127.0.0.1:${server.port}", InsecureChannelCredentials.create())
        .build()
    stub = TallyCoroutineStub(channel)
  }

  @AfterEach
  fun stop() {
    if (::channel.isInitialized) {
      channel.shutdownNow()
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue()
    }
    if (::server.isInitialized) {
      server.shutdownNow()
      assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue()
    }
    assertThat(reportedLeaks()).isEmpty()
  }

  /** Runs a test's coroutine, failing it if it has not finished within 30 seconds. */
  private fun bounded(test: suspend CoroutineScope.() -> Unit) = runBlocking {
    withTimeout(30.seconds) { test() }
  }

  @Test
  fun callsRunOnTernNotGrpcJava() = bounded {
    assertThat(ManagedChannelProvider.provider().javaClass.name).startsWith("dev.tern.grpcjava.")
    assertThat(ServerProvider.provider().javaClass.name).startsWith("dev.tern.grpcjava.")
    assertThat(server.javaClass.name).startsWith("dev.tern.grpcjava.")
    assertThat(channel.javaClass.name).startsWith("dev.tern.grpcjava.")
    // No grpc-java transport to fall back on: grpc-netty-shaded, grpc-netty, grpc-okhttp.
    for (provider in
      listOf(
        "io.grpc.netty.shaded.io.grpc.netty.NettyServerProvider",
        "io.grpc.netty.NettyServerProvider",
        "io.grpc.okhttp.OkHttpChannelProvider",
      )) {
      assertThrows<ClassNotFoundException> { Class.forName(provider) }
    }
    // Tern's HTTP/2 client announces itself; grpc-java's would send grpc-java-netty/...
    assertThat(stub.whoAmI(Empty.getDefaultInstance()).userAgent).startsWith("tern-java/")
  }

  @Test
  fun unary() = bounded {
    val sum = stub.sum(Amounts.newBuilder().addAllValues(listOf(1L, 2L, 3L, 4L)).build())
    assertThat(sum.value).isEqualTo(10L)
  }

  @Test
  fun serverStreaming() = bounded {
    val amounts = stub.countTo(Count.newBuilder().setTo(5).build()).map { it.value }.toList()
    assertThat(amounts).containsExactly(1L, 2L, 3L, 4L, 5L)
    assertThat(service.countsEnded.receive()).isNull()
  }

  @Test
  fun clientThatStopsCollectingAServerStreamCancelsTheServersFlow() = bounded {
    val endless = Count.newBuilder().setTo(Int.MAX_VALUE).build()
    val firstThree = stub.countTo(endless).take(3).map { it.value }.toList()
    assertThat(firstThree).containsExactly(1L, 2L, 3L)
    assertThat(service.countsEnded.receive()).isInstanceOf(CancellationException::class.java)
  }

  @Test
  fun clientStreaming() = bounded {
    val total = stub.total(flowOf(amount(27), amount(-8), amount(1828)))
    assertThat(total.value).isEqualTo(1847L)
  }

  @Test
  fun bidiStreamingPingPong() = bounded {
    val requests = Channel<Amount>()
    val responses = stub.runningTotal(requests.consumeAsFlow()).produceIn(this)
    // Each running total arrives before the next amount is sent.
    for ((sent, expected) in listOf(3L to 3L, 4L to 7L, 5L to 12L)) {
      requests.send(amount(sent))
      assertThat(responses.receive().value).isEqualTo(expected)
    }
    requests.close()
    assertThat(responses.receiveCatching().isClosed).isTrue()
  }

  @Test
  fun statusThrownByTheServiceReachesTheClient() = bounded {
    val description = "no entry for \"ada\": 100% sure ✓"
    val failure =
      assertThrows<StatusException> {
        stub.fail(
          Failure.newBuilder()
            .setCode(Status.Code.PERMISSION_DENIED.value())
            .setDescription(description)
            .build()
        )
      }
    assertThat(failure.status.code).isEqualTo(Status.Code.PERMISSION_DENIED)
    assertThat(failure.status.description).isEqualTo(description)
    assertThat(failure.trailers?.get(FAILED_BY)).isEqualTo("tally")
  }

  @Test
  fun deadlineExceeded() = bounded {
    val failure =
      assertThrows<StatusException> {
        stub.withDeadlineAfter(200, TimeUnit.MILLISECONDS).hang(Empty.getDefaultInstance())
      }
    assertThat(failure.status.code).isEqualTo(Status.Code.DEADLINE_EXCEEDED)
  }

  @Test
  fun cancellingTheClientCoroutineCancelsTheServers() = bounded {
    val call = launch { stub.hang(Empty.getDefaultInstance()) }
    val hanging = service.hangingCalls.receive()
    call.cancel()
    call.join()
    assertThat(call.isCancelled).isTrue()
    // The service's coroutine is cancelled, and so is the call's io.grpc Context.
    assertThat(hanging.ended.await()).isInstanceOf(CancellationException::class.java)
    val contextCancelled = CompletableDeferred<Unit>()
    hanging.context.addListener({ contextCancelled.complete(Unit) }, Executor(Runnable::run))
    contextCancelled.await()
    assertThat(hanging.context.isCancelled).isTrue()
  }

  @Test
  fun headersReachTheServiceThroughItsInterceptor() = bounded {
    val perCall = Metadata()
    perCall.put(CALLER, "grace")
    assertThat(stub.whoAmI(Empty.getDefaultInstance(), perCall).name).isEqualTo("grace")

    val fromInterceptor = Metadata()
    fromInterceptor.put(CALLER, "ada")
    val intercepted =
      stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(fromInterceptor))
    assertThat(intercepted.whoAmI(Empty.getDefaultInstance()).name).isEqualTo("ada")
  }

  companion object {
    /** Netty's reports of buffers collected unreleased, since the test started. */
    private val leaks: MutableList<String> = java.util.Collections.synchronizedList(ArrayList())

    init {
      ByteBufUtil.setLeakListener { type, records -> leaks.add("$type leaked: $records") }
    }

    /**
     * Makes pending leak reports surface (the detector reports a leaked buffer once it has been
     * collected and another buffer is allocated) and returns them.
     */
    private fun reportedLeaks(): List<String> {
      assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID)
      System.gc()
      repeat(8) {
        ByteBufAllocator.DEFAULT.buffer(16).release()
        ByteBufAllocator.DEFAULT.directBuffer(16).release()
      }
      return synchronized(leaks) { leaks.toList() }
    }
  }
}
