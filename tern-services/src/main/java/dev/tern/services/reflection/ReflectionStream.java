package dev.tern.services.reflection;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FileDescriptor;
import dev.tern.Status;
import dev.tern.services.reflection.v1.ErrorResponse;
import dev.tern.services.reflection.v1.ExtensionNumberResponse;
import dev.tern.services.reflection.v1.ExtensionRequest;
import dev.tern.services.reflection.v1.FileDescriptorResponse;
import dev.tern.services.reflection.v1.ListServiceResponse;
import dev.tern.services.reflection.v1.ServerReflectionRequest;
import dev.tern.services.reflection.v1.ServerReflectionResponse;
import dev.tern.services.reflection.v1.ServiceResponse;
import dev.tern.stub.ServerCallStreamObserver;
import dev.tern.stub.StreamObserver;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One reflection call: answers each request on the stream with one response, in order, from the
 * index of the server's services as they are when the request arrives. A question that cannot be
 * answered gets an {@link ErrorResponse} (the call itself goes on): NOT_FOUND naming what was not
 * found, INVALID_ARGUMENT for a request with nothing asked.
 *
 * <p>The files a client is sent are remembered for the call: a file response carries the file asked
 * for, followed by those of its transitive imports not yet sent on this stream.
 *
 * <p>Flow control: the next request is read only once the previous response could be sent without
 * buffering ({@link ServerCallStreamObserver#isReady()}), so a client that sends questions without
 * reading the answers is held back instead of making the server buffer answers without bound.
 *
 * <p>Not thread-safe; it needs none: the runtime calls a call's request observer and its handlers
 * from one thread at a time.
 */
final class ReflectionStream implements StreamObserver<ServerReflectionRequest> {
  private static final Logger logger = Logger.getLogger(ReflectionStream.class.getName());

  private final Supplier<ReflectionIndex> index;
  private final ServerCallStreamObserver<ServerReflectionResponse> responses;
  private final Set<String> filesSent = new HashSet<>();

  /** Whether the next request is to be read once the response stream is ready again. */
  private boolean requestWhenReady;

  /**
   * Answers from {@code index} (asked once per request) to {@code responses}. Call while the
   * service method runs: it takes over the call's inbound flow control and asks for the first
   * request.
   */
  ReflectionStream(
      Supplier<ReflectionIndex> index,
      ServerCallStreamObserver<ServerReflectionResponse> responses) {
    this.index = Objects.requireNonNull(index, "index");
    this.responses = Objects.requireNonNull(responses, "responses");
    responses.disableAutoRequest();
    responses.setOnReadyHandler(this::onReady);
    responses.request(1);
  }

  @Override
  public void onNext(ServerReflectionRequest request) {
    ServerReflectionResponse.Builder response =
        ServerReflectionResponse.newBuilder()
            .setValidHost(request.getHost())
            .setOriginalRequest(request);
    answer(request, response);
    responses.onNext(response.build());
    if (responses.isReady()) {
      responses.request(1);
    } else {
      requestWhenReady = true;
    }
  }

  private void onReady() {
    if (requestWhenReady && responses.isReady()) {
      requestWhenReady = false;
      responses.request(1);
    }
  }

  @Override
  public void onError(Throwable t) {
    // The call was cancelled or failed: there is no one left to answer.
  }

  @Override
  public void onCompleted() {
    responses.onCompleted();
  }

  private void answer(ServerReflectionRequest request, ServerReflectionResponse.Builder response) {
    if (request.getMessageRequestCase()
        == ServerReflectionRequest.MessageRequestCase.MESSAGEREQUEST_NOT_SET) {
      error(
          response,
          Status.Code.INVALID_ARGUMENT,
          "ServerReflectionRequest has no message_request set");
      return;
    }
    ReflectionIndex services;
    try {
      services = index.get();
    } catch (RuntimeException e) {
      // A user's fallback registry failed to list its services.
      logger.log(Level.WARNING, "Server reflection could not list the server's services", e);
      error(
          response,
          Status.Code.INTERNAL,
          "Could not list the server's services: " + e.getClass().getName());
      return;
    }
    switch (request.getMessageRequestCase()) {
      case LIST_SERVICES:
        ListServiceResponse.Builder list = ListServiceResponse.newBuilder();
        for (String name : services.serviceNames()) {
          list.addService(ServiceResponse.newBuilder().setName(name));
        }
        response.setListServicesResponse(list);
        break;
      case FILE_BY_FILENAME:
        String filename = request.getFileByFilename();
        files(response, services, services.fileByName(filename), "File not found: " + filename);
        break;
      case FILE_CONTAINING_SYMBOL:
        String symbol = request.getFileContainingSymbol();
        files(
            response,
            services,
            services.fileContainingSymbol(symbol),
            "Symbol not found: " + symbol);
        break;
      case FILE_CONTAINING_EXTENSION:
        ExtensionRequest extension = request.getFileContainingExtension();
        files(
            response,
            services,
            services.fileContainingExtension(
                extension.getContainingType(), extension.getExtensionNumber()),
            "Extension not found: number "
                + extension.getExtensionNumber()
                + " of "
                + extension.getContainingType());
        break;
      case ALL_EXTENSION_NUMBERS_OF_TYPE:
        String type = request.getAllExtensionNumbersOfType();
        List<Integer> numbers = services.extensionNumbers(type);
        if (numbers == null) {
          error(response, Status.Code.NOT_FOUND, "Type not found: " + type);
        } else {
          response.setAllExtensionNumbersResponse(
              ExtensionNumberResponse.newBuilder()
                  .setBaseTypeName(type)
                  .addAllExtensionNumber(numbers));
        }
        break;
      case MESSAGEREQUEST_NOT_SET:
        break; // answered above, before the index was needed
    }
  }

  /** Answers with {@code file} and its imports not sent yet, or NOT_FOUND when it is null. */
  private void files(
      ServerReflectionResponse.Builder response,
      ReflectionIndex services,
      FileDescriptor file,
      String notFound) {
    if (file == null) {
      error(response, Status.Code.NOT_FOUND, notFound);
      return;
    }
    List<ByteString> protos = new ArrayList<>();
    protos.add(services.served(file));
    filesSent.add(file.getName());
    Deque<FileDescriptor> pending = new ArrayDeque<>(file.getDependencies());
    while (!pending.isEmpty()) {
      FileDescriptor dependency = pending.removeFirst();
      if (filesSent.add(dependency.getName())) {
        protos.add(services.served(dependency));
        pending.addAll(dependency.getDependencies());
      }
    }
    response.setFileDescriptorResponse(
        FileDescriptorResponse.newBuilder().addAllFileDescriptorProto(protos));
  }

  private static void error(
      ServerReflectionResponse.Builder response, Status.Code code, String message) {
    response.setErrorResponse(
        ErrorResponse.newBuilder().setErrorCode(code.value()).setErrorMessage(message));
  }
}
