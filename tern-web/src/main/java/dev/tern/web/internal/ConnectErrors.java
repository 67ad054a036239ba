package dev.tern.web.internal;

import com.google.protobuf.Any;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.wire.Base64Codec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Connect's errors: the code names, the HTTP status each maps to (connectrpc.com/docs/protocol),
 * the JSON error object with its details (from the {@code grpc-status-details-bin} trailer, a
 * {@code google.rpc.Status}), and the streaming end-of-stream message. Stateless; thread-safe.
 */
final class ConnectErrors {
  /** The trailer that carries a {@code google.rpc.Status}; Connect sends it as {@code details}. */
  static final Metadata.Key<byte[]> STATUS_DETAILS =
      Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER);

  /** Metadata names never sent as Connect metadata: gRPC's own, carried otherwise. */
  static final Set<String> RESERVED =
      Set.of(
          "grpc-status",
          "grpc-message",
          "grpc-status-details-bin",
          "grpc-encoding",
          "grpc-accept-encoding",
          "content-type",
          "content-length",
          "content-encoding");

  private ConnectErrors() {}

  /** The Connect name of {@code code}: {@code not_found}, {@code canceled}, ... */
  static String codeName(Status.Code code) {
    if (code == Status.Code.CANCELLED) {
      return "canceled"; // Connect's spelling
    }
    return code.name().toLowerCase(Locale.ROOT);
  }

  /** The HTTP status a unary error with {@code code} gets. */
  static int httpStatus(Status.Code code) {
    switch (code) {
      case CANCELLED:
        return 499;
      case INVALID_ARGUMENT:
      case FAILED_PRECONDITION:
      case OUT_OF_RANGE:
        return 400;
      case DEADLINE_EXCEEDED:
        return 504;
      case NOT_FOUND:
        return 404;
      case ALREADY_EXISTS:
      case ABORTED:
        return 409;
      case PERMISSION_DENIED:
        return 403;
      case RESOURCE_EXHAUSTED:
        return 429;
      case UNIMPLEMENTED:
        return 501;
      case UNAVAILABLE:
        return 503;
      case UNAUTHENTICATED:
        return 401;
      default: // UNKNOWN, INTERNAL, DATA_LOSS (and OK, never an error)
        return 500;
    }
  }

  /**
   * The JSON error object for {@code status}: {@code {"code":..,"message":..,"details":[..]}},
   * details from {@code trailers}' {@code grpc-status-details-bin} when it parses.
   */
  static String errorJson(Status status, Metadata trailers) {
    StringBuilder json = new StringBuilder(64);
    json.append("{\"code\":");
    quote(json, codeName(status.getCode()));
    String message = status.getDescription();
    if (message != null && !message.isEmpty()) {
      json.append(",\"message\":");
      quote(json, message);
    }
    byte[] details = trailers.get(STATUS_DETAILS);
    List<Any> anys = details == null ? List.of() : detailsOf(details);
    if (!anys.isEmpty()) {
      json.append(",\"details\":[");
      for (int i = 0; i < anys.size(); i++) {
        Any any = anys.get(i);
        String type = any.getTypeUrl();
        type = type.substring(type.lastIndexOf('/') + 1);
        if (i > 0) {
          json.append(',');
        }
        json.append("{\"type\":");
        quote(json, type);
        json.append(",\"value\":");
        quote(
            json,
            new String(
                Base64Codec.encodeBase64NoPadding(any.getValue().toByteArray()),
                StandardCharsets.US_ASCII));
        json.append('}');
      }
      json.append(']');
    }
    return json.append('}').toString();
  }

  /**
   * The end-of-stream message of a Connect streaming response: the error (unless {@code status} is
   * OK) and the trailers as {@code metadata}.
   */
  static byte[] endStreamJson(Status status, Metadata trailers) {
    StringBuilder json = new StringBuilder(64).append('{');
    boolean first = true;
    if (!status.isOk()) {
      json.append("\"error\":").append(errorJson(status, trailers));
      first = false;
    }
    Map<String, List<String>> metadata = new LinkedHashMap<>();
    WebHeaders.forEach(
        trailers,
        RESERVED,
        (name, value) -> metadata.computeIfAbsent(name, n -> new ArrayList<>()).add(value));
    if (!metadata.isEmpty()) {
      if (!first) {
        json.append(',');
      }
      json.append("\"metadata\":{");
      boolean firstName = true;
      for (Map.Entry<String, List<String>> entry : metadata.entrySet()) {
        if (!firstName) {
          json.append(',');
        }
        firstName = false;
        quote(json, entry.getKey());
        json.append(":[");
        for (int i = 0; i < entry.getValue().size(); i++) {
          if (i > 0) {
            json.append(',');
          }
          quote(json, entry.getValue().get(i));
        }
        json.append(']');
      }
      json.append('}');
    }
    return json.append('}').toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The {@code details} of a serialized {@code google.rpc.Status} (field 3, repeated Any); empty if
   * it does not parse, as a malformed trailer must not hide the status itself.
   */
  static List<Any> detailsOf(byte[] statusProto) {
    List<Any> details = new ArrayList<>();
    try {
      CodedInputStream in = CodedInputStream.newInstance(statusProto);
      int tag;
      while ((tag = in.readTag()) != 0) {
        if (WireFormat.getTagFieldNumber(tag) == 3
            && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
          details.add(Any.parseFrom(in.readBytes()));
        } else if (!in.skipField(tag)) {
          break;
        }
      }
    } catch (IOException e) {
      return List.of();
    }
    return details;
  }

  /** Appends {@code value} as a JSON string. */
  static void quote(StringBuilder json, String value) {
    json.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"':
          json.append("\\\"");
          break;
        case '\\':
          json.append("\\\\");
          break;
        case '\n':
          json.append("\\n");
          break;
        case '\r':
          json.append("\\r");
          break;
        case '\t':
          json.append("\\t");
          break;
        default:
          if (c < 0x20 || c == 0x2028 || c == 0x2029) {
            json.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            json.append(c);
          }
      }
    }
    json.append('"');
  }
}
