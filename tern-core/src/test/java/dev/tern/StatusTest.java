package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class StatusTest {
  private static final Metadata.Key<String> DETAIL_KEY =
      Metadata.Key.of("detail", Metadata.ASCII_STRING_MARSHALLER);

  @Test
  void codeValuesMatchTheWireProtocol() {
    String[] wireOrder = {
      "OK",
      "CANCELLED",
      "UNKNOWN",
      "INVALID_ARGUMENT",
      "DEADLINE_EXCEEDED",
      "NOT_FOUND",
      "ALREADY_EXISTS",
      "PERMISSION_DENIED",
      "RESOURCE_EXHAUSTED",
      "FAILED_PRECONDITION",
      "ABORTED",
      "OUT_OF_RANGE",
      "UNIMPLEMENTED",
      "INTERNAL",
      "UNAVAILABLE",
      "DATA_LOSS",
      "UNAUTHENTICATED"
    };
    assertThat(Status.Code.values()).hasSize(17);
    for (int value = 0; value < wireOrder.length; value++) {
      assertThat(Status.Code.valueOf(wireOrder[value]).value()).isEqualTo(value);
    }
  }

  @ParameterizedTest
  @EnumSource(Status.Code.class)
  void everyCodeRoundTripsThroughItsValue(Status.Code code) {
    Status status = Status.fromCodeValue(code.value());
    assertThat(status.getCode()).isEqualTo(code);
    assertThat(status.getDescription()).isNull();
    assertThat(status.getCause()).isNull();
    assertThat(status).isSameAs(code.toStatus()).isSameAs(Status.fromCode(code));
    assertThat(new String(code.valueAscii(), StandardCharsets.US_ASCII))
        .isEqualTo(Integer.toString(code.value()));
  }

  @Test
  void constantsAreTheCachedStatusOfTheirCode() {
    Status[] constants = {
      Status.OK, Status.CANCELLED, Status.UNKNOWN, Status.INVALID_ARGUMENT,
      Status.DEADLINE_EXCEEDED, Status.NOT_FOUND, Status.ALREADY_EXISTS, Status.PERMISSION_DENIED,
      Status.RESOURCE_EXHAUSTED, Status.FAILED_PRECONDITION, Status.ABORTED, Status.OUT_OF_RANGE,
      Status.UNIMPLEMENTED, Status.INTERNAL, Status.UNAVAILABLE, Status.DATA_LOSS,
      Status.UNAUTHENTICATED
    };
    for (Status.Code code : Status.Code.values()) {
      assertThat(constants[code.value()]).isSameAs(code.toStatus());
      assertThat(constants[code.value()].getCode()).isEqualTo(code);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {-1, 17, 100, Integer.MIN_VALUE, Integer.MAX_VALUE})
  void codeValueOutOfRangeIsUnknownAndNamesTheValue(int value) {
    Status status = Status.fromCodeValue(value);
    assertThat(status.getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(status.getDescription()).isEqualTo("Unknown code " + value);
  }

  @Test
  void onlyOkIsOk() {
    assertThat(Status.OK.isOk()).isTrue();
    for (Status.Code code : Status.Code.values()) {
      assertThat(code.toStatus().isOk()).isEqualTo(code == Status.Code.OK);
    }
  }

  @Test
  void withDescriptionReplacesAndKeepsCodeAndCause() {
    Throwable cause = new IllegalStateException("boom");
    Status status = Status.ABORTED.withCause(cause).withDescription("first");
    Status replaced = status.withDescription("second");
    assertThat(replaced.getDescription()).isEqualTo("second");
    assertThat(replaced.getCode()).isEqualTo(Status.Code.ABORTED);
    assertThat(replaced.getCause()).isSameAs(cause);
    assertThat(status.getDescription()).as("original unchanged").isEqualTo("first");
    assertThat(replaced.withDescription(null).getDescription()).isNull();
  }

  @Test
  void unchangedWithCallsReturnTheSameInstance() {
    Throwable cause = new RuntimeException();
    Status status = Status.INTERNAL.withDescription("x").withCause(cause);
    assertThat(status.withDescription(new String("x"))).isSameAs(status);
    assertThat(status.withCause(cause)).isSameAs(status);
    assertThat(status.augmentDescription(null)).isSameAs(status);
    assertThat(Status.OK.withDescription(null)).isSameAs(Status.OK);
    assertThat(Status.OK.withCause(null)).isSameAs(Status.OK);
  }

  @Test
  void augmentDescriptionAppendsOnANewLine() {
    assertThat(Status.UNAVAILABLE.augmentDescription("first").getDescription()).isEqualTo("first");
    Status augmented = Status.UNAVAILABLE.withDescription("first").augmentDescription("second");
    assertThat(augmented.getDescription()).isEqualTo("first\nsecond");
    assertThat(augmented.augmentDescription("third").getDescription())
        .isEqualTo("first\nsecond\nthird");
    assertThat(augmented.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void augmentDescriptionKeepsTheCause() {
    Throwable cause = new RuntimeException();
    assertThat(Status.UNKNOWN.withCause(cause).augmentDescription("more").getCause())
        .isSameAs(cause);
  }

  @Test
  void fromThrowableFindsStatusDeepInTheCauseChain() {
    Status status = Status.NOT_FOUND.withDescription("no such user");
    Throwable nested =
        new ExecutionException(
            new CompletionException(new RuntimeException("wrapper", status.asRuntimeException())));
    assertThat(Status.fromThrowable(nested)).isSameAs(status);
  }

  @Test
  void fromThrowableFindsCheckedStatusException() {
    Status status = Status.PERMISSION_DENIED.withDescription("nope");
    assertThat(Status.fromThrowable(new RuntimeException(status.asException()))).isSameAs(status);
    assertThat(Status.fromThrowable(status.asException())).isSameAs(status);
  }

  @Test
  void fromThrowableUsesTheOutermostStatusCarrier() {
    StatusException inner = Status.INTERNAL.asException();
    StatusRuntimeException outer = new StatusRuntimeException(Status.ABORTED.withCause(inner));
    assertThat(Status.fromThrowable(outer).getCode()).isEqualTo(Status.Code.ABORTED);
  }

  @Test
  void fromThrowableWithoutStatusIsUnknownWithTheCause() {
    IllegalStateException error = new IllegalStateException("bad", new RuntimeException("root"));
    Status status = Status.fromThrowable(error);
    assertThat(status.getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(status.getCause()).isSameAs(error);
  }

  @Test
  void fromThrowableTerminatesOnACauseCycle() {
    RuntimeException a = new RuntimeException("a");
    RuntimeException b = new RuntimeException("b");
    a.initCause(b);
    b.initCause(a);
    assertThat(Status.fromThrowable(a).getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(Status.trailersFromThrowable(a)).isNull();
  }

  @Test
  void fromThrowableRejectsNull() {
    assertThatThrownBy(() -> Status.fromThrowable(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("t");
  }

  @Test
  void trailersFromThrowableFindsNestedTrailers() {
    Metadata trailers = new Metadata();
    trailers.put(DETAIL_KEY, "why");
    Throwable nested = new RuntimeException(Status.DATA_LOSS.asException(trailers));
    assertThat(Status.trailersFromThrowable(nested)).isSameAs(trailers);
    assertThat(Status.trailersFromThrowable(Status.DATA_LOSS.asRuntimeException(trailers)))
        .isSameAs(trailers);
  }

  @Test
  void trailersFromThrowableIsNullWithoutTrailersOrStatus() {
    assertThat(Status.trailersFromThrowable(Status.CANCELLED.asException())).isNull();
    assertThat(Status.trailersFromThrowable(new RuntimeException())).isNull();
  }

  @Test
  void exceptionMessageIsCodeAndDescription() {
    StatusRuntimeException withDescription =
        Status.INVALID_ARGUMENT.withDescription("name is empty").asRuntimeException();
    assertThat(withDescription).hasMessage("INVALID_ARGUMENT: name is empty");
    assertThat(Status.UNAVAILABLE.asException()).hasMessage("UNAVAILABLE");
  }

  @Test
  void exceptionsCarryStatusTrailersAndCause() {
    Throwable cause = new IllegalStateException("root");
    Status status = Status.INTERNAL.withDescription("d").withCause(cause);
    Metadata trailers = new Metadata();

    StatusException checked = status.asException(trailers);
    assertThat(checked.getStatus()).isSameAs(status);
    assertThat(checked.getTrailers()).isSameAs(trailers);
    assertThat(checked).hasCause(cause);

    StatusRuntimeException unchecked = status.asRuntimeException(trailers);
    assertThat(unchecked.getStatus()).isSameAs(status);
    assertThat(unchecked.getTrailers()).isSameAs(trailers);
    assertThat(unchecked).hasCause(cause);

    assertThat(status.asException().getTrailers()).isNull();
    assertThat(status.asRuntimeException().getTrailers()).isNull();
    assertThat(Status.OK.asException().getCause()).isNull();
  }

  @Test
  void exceptionConstructorsRejectNullStatus() {
    assertThatThrownBy(() -> new StatusException(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("status");
    assertThatThrownBy(() -> new StatusRuntimeException(null, new Metadata()))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("status");
  }

  @Test
  void toStringShowsCodeDescriptionAndCause() {
    String text =
        Status.NOT_FOUND
            .withDescription("no such user")
            .withCause(new IllegalStateException("db down"))
            .toString();
    assertThat(text)
        .contains("NOT_FOUND")
        .contains("no such user")
        .contains("IllegalStateException")
        .contains("db down");
  }

  @Test
  void fromCodeRejectsNull() {
    assertThatThrownBy(() -> Status.fromCode(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("code");
  }
}
