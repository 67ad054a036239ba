package dev.tern.grpcjava.kotlin

import io.grpc.Context
import io.grpc.Metadata
import io.grpc.ServerCall
import io.grpc.Status
import io.grpc.StatusException
import io.grpc.kotlin.CoroutineContextServerInterceptor
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.fold
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.onCompletion
import kotlinx.coroutines.flow.runningReduce

// A grpc-kotlin service as its users write one: suspending functions and flows on the generated
// coroutine base class, with only io.grpc, grpc-kotlin and kotlinx.coroutines imported. Nothing
// here knows which transport serves it.

/** The request header that [WhoAmI][TallyService.whoAmI] reports. */
val CALLER: Metadata.Key<String> = Metadata.Key.of("x-caller", Metadata.ASCII_STRING_MARSHALLER)

/** A trailer that [Fail][TallyService.fail] adds to the status it fails with. */
val FAILED_BY: Metadata.Key<String> =
  Metadata.Key.of("x-failed-by", Metadata.ASCII_STRING_MARSHALLER)

private val USER_AGENT: Metadata.Key<String> =
  Metadata.Key.of("user-agent", Metadata.ASCII_STRING_MARSHALLER)

fun amount(value: Long): Amount = Amount.newBuilder().setValue(value).build()

/** A [Hang][TallyService.hang] call in progress. */
class HangingCall(
  /** The call's io.grpc context, as the service saw it. */
  val context: Context,
  /** Completed with what ended the service's coroutine. */
  val ended: CompletableDeferred<Throwable>,
)

/**
 * The Tally service (src/test/proto/tally.proto). The two channels let a test see what the service
 * saw of calls that were cancelled.
 */
class TallyService : TallyGrpcKt.TallyCoroutineImplBase() {
  /** Each Hang call, once its coroutine has started. */
  val hangingCalls = Channel<HangingCall>(Channel.UNLIMITED)

  /** What ended each CountTo stream: null when it sent all its amounts. */
  val countsEnded = Channel<Throwable?>(Channel.UNLIMITED)

  override suspend fun sum(request: Amounts): Amount = amount(request.valuesList.sum())

  override fun countTo(request: Count): Flow<Amount> =
    flow {
        for (i in 1..request.to) {
          emit(amount(i.toLong()))
        }
      }
      .onCompletion { cause -> countsEnded.trySend(cause) }

  override suspend fun total(requests: Flow<Amount>): Amount =
    amount(requests.fold(0L) { sum, next -> sum + next.value })

  override fun runningTotal(requests: Flow<Amount>): Flow<Amount> =
    requests.map { it.value }.runningReduce(Long::plus).map(::amount)

  override suspend fun fail(request: Failure): Empty {
    val trailers = Metadata()
    trailers.put(FAILED_BY, "tally")
    throw StatusException(
      Status.fromCodeValue(request.code).withDescription(request.description),
      trailers,
    )
  }

  override suspend fun hang(request: Empty): Empty {
    val ended = CompletableDeferred<Throwable>()
    hangingCalls.send(HangingCall(Context.current(), ended))
    try {
      awaitCancellation()
    } catch (e: CancellationException) {
      ended.complete(e)
      throw e
    }
  }

  override suspend fun whoAmI(request: Empty): Caller {
    val headers =
      currentCoroutineContext()[CallHeaders]
        ?: throw StatusException(Status.INTERNAL.withDescription("CallHeadersInterceptor not run"))
    return Caller.newBuilder().setName(headers.caller).setUserAgent(headers.userAgent).build()
  }
}

/** The request headers [CallHeadersInterceptor] puts into the service's coroutine context. */
class CallHeaders(val caller: String, val userAgent: String) :
  AbstractCoroutineContextElement(CallHeaders) {
  companion object Key : CoroutineContext.Key<CallHeaders>
}

/** grpc-kotlin's way for a server interceptor to hand values to the service's coroutines. */
class CallHeadersInterceptor : CoroutineContextServerInterceptor() {
  override fun coroutineContext(call: ServerCall<*, *>, headers: Metadata): CoroutineContext =
    CallHeaders(headers.get(CALLER) ?: "", headers.get(USER_AGENT) ?: "")
}
