package dev.tern.protobuf;

import com.google.protobuf.Any;
import com.google.protobuf.Duration;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.rpc.BadRequest;
import com.google.rpc.DebugInfo;
import com.google.rpc.ErrorInfo;
import com.google.rpc.Help;
import com.google.rpc.LocalizedMessage;
import com.google.rpc.PreconditionFailure;
import com.google.rpc.QuotaFailure;
import com.google.rpc.RequestInfo;
import com.google.rpc.ResourceInfo;
import com.google.rpc.RetryInfo;
import dev.tern.Status;
import java.util.List;

/** One filled-in value of each of the ten detail messages of google/rpc/error_details.proto. */
final class StandardDetails {
  static final List<Message> ALL =
      List.of(
          ErrorInfo.newBuilder()
              .setReason("USER_DISABLED")
              .setDomain("users.example.com")
              .putMetadata("user", "ada")
              .build(),
          RetryInfo.newBuilder()
              .setRetryDelay(Duration.newBuilder().setSeconds(2).setNanos(500_000_000))
              .build(),
          DebugInfo.newBuilder()
              .addStackEntries("Users.create")
              .addStackEntries("Db.insert")
              .setDetail("primary key clash")
              .build(),
          QuotaFailure.newBuilder()
              .addViolations(
                  QuotaFailure.Violation.newBuilder()
                      .setSubject("project:demo")
                      .setDescription("daily limit of 100 users reached"))
              .build(),
          PreconditionFailure.newBuilder()
              .addViolations(
                  PreconditionFailure.Violation.newBuilder()
                      .setType("TOS")
                      .setSubject("user:ada")
                      .setDescription("terms of service not accepted"))
              .build(),
          BadRequest.newBuilder()
              .addFieldViolations(
                  BadRequest.FieldViolation.newBuilder()
                      .setField("name")
                      .setDescription("must not be empty"))
              .build(),
          RequestInfo.newBuilder().setRequestId("req-42").setServingData("shard 7").build(),
          ResourceInfo.newBuilder()
              .setResourceType("user")
              .setResourceName("users/ada")
              .setOwner("team:accounts")
              .setDescription("locked for review")
              .build(),
          Help.newBuilder()
              .addLinks(
                  Help.Link.newBuilder()
                      .setDescription("Naming rules")
                      .setUrl("https://example.com/naming"))
              .build(),
          LocalizedMessage.newBuilder()
              .setLocale("fr-FR")
              .setMessage("Le nom ne doit pas être vide.")
              .build());

  /** A FAILED_PRECONDITION {@code google.rpc.Status} carrying every one of {@link #ALL}. */
  static final com.google.rpc.Status STATUS =
      com.google.rpc.Status.newBuilder()
          .setCode(Status.Code.FAILED_PRECONDITION.value())
          .setMessage("user ada cannot be created")
          .addAllDetails(ALL.stream().map(Any::pack).toList())
          .build();

  private StandardDetails() {}

  /**
   * The first detail of {@code type} in {@code status}, unpacked as a grpc-java user does it
   * ({@code getDetailsList()}, {@code Any.is}, {@code Any.unpack}), or null.
   */
  static <T extends Message> T unpack(com.google.rpc.Status status, Class<T> type)
      throws InvalidProtocolBufferException {
    for (Any detail : status.getDetailsList()) {
      if (detail.is(type)) {
        return detail.unpack(type);
      }
    }
    return null;
  }
}
