package dev.tern.services.reflection;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.HandlerRegistry;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MutableHandlerRegistry;
import dev.tern.ServerMethodDefinition;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.services.reflection.v1.ErrorResponse;
import dev.tern.services.reflection.v1.ExtensionRequest;
import dev.tern.services.reflection.v1.ServerReflectionRequest;
import dev.tern.services.reflection.v1.ServerReflectionResponse;
import dev.tern.services.reflection.v1.ServerReflectionTern;
import dev.tern.services.reflection.v1.ServiceResponse;
import dev.tern.testing.EchoService;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What a reflection client is told, over a real (in-process) server and Tern's own client stub. */
class ProtoReflectionServiceTest {
  private static final String SERVICE_FILE = "tern/reflectiontest/order_service.proto";
  private static final String ORDERS_FILE = "tern/reflectiontest/orders.proto";
  private static final String EXTRAS_FILE = "tern/reflectiontest/order_extras.proto";
  private static final String TIMESTAMP_FILE = "google/protobuf/timestamp.proto";

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private final MutableHandlerRegistry registry = new MutableHandlerRegistry();

  /** A server with the order service, reflection v1 and v1alpha, and {@link #registry}. */
  private ManagedChannel start(HandlerRegistry fallback) throws IOException {
    String name = cleanup.uniqueName();
    cleanup
        .register(
            InProcessServerBuilder.forName(name)
                .addService(new OrderServiceImpl())
                .addService(ProtoReflectionService.v1())
                .addService(ProtoReflectionService.v1alpha())
                .addService(EchoService.definition())
                .fallbackHandlerRegistry(fallback)
                .build())
        .start();
    return cleanup.register(InProcessChannelBuilder.forName(name).build());
  }

  private ManagedChannel start() throws IOException {
    return start(registry);
  }

  private static ServerReflectionRequest listServices() {
    return ServerReflectionRequest.newBuilder().setListServices("").build();
  }

  private static ServerReflectionRequest symbol(String symbol) {
    return ServerReflectionRequest.newBuilder().setFileContainingSymbol(symbol).build();
  }

  private static ServerReflectionRequest file(String name) {
    return ServerReflectionRequest.newBuilder().setFileByFilename(name).build();
  }

  private static ServerReflectionRequest extension(String type, int number) {
    return ServerReflectionRequest.newBuilder()
        .setFileContainingExtension(
            ExtensionRequest.newBuilder().setContainingType(type).setExtensionNumber(number))
        .build();
  }

  private static ServerReflectionRequest extensionNumbers(String type) {
    return ServerReflectionRequest.newBuilder().setAllExtensionNumbersOfType(type).build();
  }

  private static List<String> serviceNames(ServerReflectionResponse response) {
    return response.getListServicesResponse().getServiceList().stream()
        .map(ServiceResponse::getName)
        .toList();
  }

  /** The names of the files in a file response, in order. */
  private static List<String> fileNames(ServerReflectionResponse response)
      throws InvalidProtocolBufferException {
    assertThat(response.hasFileDescriptorResponse()).as("file response: %s", response).isTrue();
    List<String> names = new ArrayList<>();
    for (ByteString bytes : response.getFileDescriptorResponse().getFileDescriptorProtoList()) {
      names.add(FileDescriptorProto.parseFrom(bytes).getName());
    }
    return names;
  }

  private static void assertError(
      ServerReflectionResponse response, Status.Code code, String text) {
    assertThat(response.hasErrorResponse()).as("error response: %s", response).isTrue();
    ErrorResponse error = response.getErrorResponse();
    assertThat(error.getErrorCode()).isEqualTo(code.value());
    assertThat(error.getErrorMessage()).isEqualTo(text);
  }

  @Test
  void listServices_namesTheProtoServices_sorted_withoutOneThatHasNoProto() throws Exception {
    try (ReflectionClient client = ReflectionClient.v1(start())) {
      ServerReflectionResponse response = client.ask(listServices());

      assertThat(serviceNames(response))
          .containsExactly(
              "grpc.reflection.v1.ServerReflection",
              "grpc.reflection.v1alpha.ServerReflection",
              "tern.reflectiontest.OrderService");
      assertThat(response.getOriginalRequest()).isEqualTo(listServices());
    }
  }

  @Test
  void fileContainingSymbol_findsEveryKindOfSymbol() throws Exception {
    try (ReflectionClient client = ReflectionClient.v1(start())) {
      List<String> servicesFile =
          List.of(
              "tern.reflectiontest.OrderService",
              "tern.reflectiontest.OrderService.Track",
              "tern.reflectiontest.Receipt");
      List<String> ordersFile =
          List.of(
              "tern.reflectiontest.Order",
              "tern.reflectiontest.Order.Line",
              "tern.reflectiontest.Order.Kind",
              "tern.reflectiontest.Carrier");
      List<String> extrasFile =
          List.of(
              "tern.reflectiontest.note",
              "tern.reflectiontest.GiftOptions",
              "tern.reflectiontest.GiftOptions.gift");
      for (String symbol : servicesFile) {
        assertThat(fileNames(client.ask(symbol(symbol))).get(0)).as(symbol).isEqualTo(SERVICE_FILE);
      }
      for (String symbol : ordersFile) {
        assertThat(fileNames(client.ask(symbol(symbol))).get(0)).as(symbol).isEqualTo(ORDERS_FILE);
      }
      for (String symbol : extrasFile) {
        assertThat(fileNames(client.ask(symbol(symbol))).get(0)).as(symbol).isEqualTo(EXTRAS_FILE);
      }
      assertThat(fileNames(client.ask(symbol("google.protobuf.Timestamp"))))
          .containsExactly(TIMESTAMP_FILE);
      assertThat(fileNames(client.ask(symbol("grpc.reflection.v1alpha.ServerReflection"))))
          .containsExactly("grpc/reflection/v1alpha/reflection.proto");
    }
  }

  @Test
  void dependencies_areSentOncePerStream_andAgainOnANewStream() throws Exception {
    ManagedChannel channel = start();
    try (ReflectionClient client = ReflectionClient.v1(channel)) {
      ServerReflectionResponse first = client.ask(symbol("tern.reflectiontest.OrderService"));

      assertThat(fileNames(first))
          .containsExactly(SERVICE_FILE, EXTRAS_FILE, ORDERS_FILE, TIMESTAMP_FILE);
      FileDescriptorProto service =
          FileDescriptorProto.parseFrom(
              first.getFileDescriptorResponse().getFileDescriptorProto(0));
      assertThat(service)
          .isEqualTo(
              dev.tern.services.reflection.testing.OrderServiceProto.getDescriptor().toProto());
      // Asked again: the file itself, none of its imports.
      assertThat(fileNames(client.ask(file(ORDERS_FILE)))).containsExactly(ORDERS_FILE);
      assertThat(fileNames(client.ask(symbol("tern.reflectiontest.OrderService"))))
          .containsExactly(SERVICE_FILE);
    }
    try (ReflectionClient client = ReflectionClient.v1(channel)) {
      assertThat(fileNames(client.ask(file(EXTRAS_FILE))))
          .containsExactly(EXTRAS_FILE, ORDERS_FILE, TIMESTAMP_FILE);
    }
  }

  @Test
  void extensions_byNumberAndAllNumbersOfAType() throws Exception {
    try (ReflectionClient client = ReflectionClient.v1(start())) {
      assertThat(fileNames(client.ask(extension("tern.reflectiontest.Order", 100))).get(0))
          .isEqualTo(EXTRAS_FILE);
      assertThat(fileNames(client.ask(extension("tern.reflectiontest.Order", 150))))
          .containsExactly(EXTRAS_FILE);

      ServerReflectionResponse numbers = client.ask(extensionNumbers("tern.reflectiontest.Order"));
      assertThat(numbers.getAllExtensionNumbersResponse().getBaseTypeName())
          .isEqualTo("tern.reflectiontest.Order");
      assertThat(numbers.getAllExtensionNumbersResponse().getExtensionNumberList())
          .containsExactly(100, 150);
      ServerReflectionResponse none = client.ask(extensionNumbers("tern.reflectiontest.Receipt"));
      assertThat(none.hasAllExtensionNumbersResponse()).isTrue();
      assertThat(none.getAllExtensionNumbersResponse().getExtensionNumberList()).isEmpty();
    }
  }

  @Test
  void unknownNames_answerNotFoundNamingThem_andTheStreamGoesOn() throws Exception {
    try (ReflectionClient client = ReflectionClient.v1(start())) {
      assertError(
          client.ask(file("no/such.proto")),
          Status.Code.NOT_FOUND,
          "File not found: no/such.proto");
      assertError(
          client.ask(symbol("tern.reflectiontest.Nope")),
          Status.Code.NOT_FOUND,
          "Symbol not found: tern.reflectiontest.Nope");
      assertError(
          client.ask(symbol(EchoService.SERVICE_NAME)),
          Status.Code.NOT_FOUND,
          "Symbol not found: tern.testing.Echo");
      assertError(
          client.ask(extension("tern.reflectiontest.Order", 199)),
          Status.Code.NOT_FOUND,
          "Extension not found: number 199 of tern.reflectiontest.Order");
      assertError(
          client.ask(extensionNumbers("tern.reflectiontest.Order.Kind")),
          Status.Code.NOT_FOUND,
          "Type not found: tern.reflectiontest.Order.Kind");

      ServerReflectionResponse after = client.ask(listServices());
      assertThat(serviceNames(after)).contains("tern.reflectiontest.OrderService");
    }
  }

  @Test
  void aRequestAskingNothing_answersInvalidArgument_andTheStreamGoesOn() throws Exception {
    try (ReflectionClient client = ReflectionClient.v1(start())) {
      ServerReflectionRequest empty = ServerReflectionRequest.newBuilder().setHost("h").build();
      ServerReflectionResponse response = client.ask(empty);

      assertError(
          response,
          Status.Code.INVALID_ARGUMENT,
          "ServerReflectionRequest has no message_request set");
      assertThat(response.getOriginalRequest()).isEqualTo(empty);
      assertThat(response.getValidHost()).isEqualTo("h");
      assertThat(fileNames(client.ask(file(ORDERS_FILE)))).contains(ORDERS_FILE);
    }
  }

  @Test
  void servicesAddedToTheFallbackRegistryLater_appearOnTheSameStream() throws Exception {
    try (ReflectionClient client = ReflectionClient.v1(start())) {
      assertError(
          client.ask(symbol("grpc.health.v1.Health")),
          Status.Code.NOT_FOUND,
          "Symbol not found: grpc.health.v1.Health");

      ServerServiceDefinition health = new TinyHealthService().bindService();
      registry.addService(health);

      assertThat(serviceNames(client.ask(listServices())))
          .containsExactly(
              "grpc.health.v1.Health",
              "grpc.reflection.v1.ServerReflection",
              "grpc.reflection.v1alpha.ServerReflection",
              "tern.reflectiontest.OrderService");
      assertThat(fileNames(client.ask(symbol("grpc.health.v1.Health.Check"))))
          .containsExactly("grpc/health/v1/health.proto");

      registry.removeService(health);

      assertThat(serviceNames(client.ask(listServices()))).doesNotContain("grpc.health.v1.Health");
    }
  }

  @Test
  void aClientThatDoesNotReadTheAnswers_isHeldBack_thenGetsEveryAnswerInOrder() throws Exception {
    String name = cleanup.uniqueName();
    cleanup
        .register(
            InProcessServerBuilder.forName(name)
                .directExecutor()
                .addService(new OrderServiceImpl())
                .addService(ProtoReflectionService.v1())
                .build())
        .start();
    ManagedChannel channel =
        cleanup.register(InProcessChannelBuilder.forName(name).directExecutor().build());
    ClientCall<ServerReflectionRequest, ServerReflectionResponse> call =
        channel.newCall(ServerReflectionTern.getServerReflectionInfoMethod(), CallOptions.DEFAULT);
    List<ServerReflectionResponse> answers = new ArrayList<>();
    List<Status> closed = new ArrayList<>();
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onMessage(ServerReflectionResponse message) {
            answers.add(message);
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.add(status);
          }
        },
        new Metadata());

    call.sendMessage(listServices());
    // The answer waits for the client to read it, so the server reads no further question.
    assertThat(call.isReady()).isFalse();
    for (int i = 0; i < 3; i++) {
      call.sendMessage(file(ORDERS_FILE));
    }
    assertThat(answers).isEmpty();

    call.request(10);

    assertThat(answers).hasSize(4);
    assertThat(answers.get(0).hasListServicesResponse()).isTrue();
    assertThat(fileNames(answers.get(1))).containsExactly(ORDERS_FILE, TIMESTAMP_FILE);
    assertThat(fileNames(answers.get(2))).containsExactly(ORDERS_FILE);
    assertThat(fileNames(answers.get(3))).containsExactly(ORDERS_FILE);
    assertThat(call.isReady()).isTrue();
    call.halfClose();
    assertThat(closed).extracting(Status::getCode).containsExactly(Status.Code.OK);
  }

  @Test
  void v1alpha_answersLikeV1() throws Exception {
    ManagedChannel channel = start();
    List<ServerReflectionRequest> requests =
        List.of(
            listServices(),
            symbol("tern.reflectiontest.OrderService"),
            file(ORDERS_FILE),
            extension("tern.reflectiontest.Order", 150),
            extensionNumbers("tern.reflectiontest.Order"),
            symbol("nope.Nope"),
            ServerReflectionRequest.getDefaultInstance());
    List<ServerReflectionResponse> v1 = new ArrayList<>();
    try (ReflectionClient client = ReflectionClient.v1(channel)) {
      for (ServerReflectionRequest request : requests) {
        v1.add(client.ask(request));
      }
    }
    List<ServerReflectionResponse> alpha = new ArrayList<>();
    try (ReflectionClient client = ReflectionClient.v1alpha(channel)) {
      for (ServerReflectionRequest request : requests) {
        alpha.add(client.ask(request));
      }
    }

    assertThat(alpha).isEqualTo(v1);
  }

  @Test
  void aFallbackRegistryThatCannotListItsServices_answersInternal_andIsLogged() throws Exception {
    HandlerRegistry broken =
        new HandlerRegistry() {
          @Override
          public ServerMethodDefinition<?, ?> lookupMethod(String method, String authority) {
            return null;
          }

          @Override
          public List<ServerServiceDefinition> getServices() {
            throw new IllegalStateException("registry offline");
          }
        };
    try (LogCapture log = new LogCapture(ReflectionStream.class);
        ReflectionClient client = ReflectionClient.v1(start(broken))) {
      assertError(
          client.ask(listServices()),
          Status.Code.INTERNAL,
          "Could not list the server's services: java.lang.IllegalStateException");
      assertError(
          client.ask(ServerReflectionRequest.getDefaultInstance()),
          Status.Code.INVALID_ARGUMENT,
          "ServerReflectionRequest has no message_request set");

      assertThat(log.records()).hasSize(1);
      assertThat(log.records().get(0).getLevel()).isEqualTo(Level.WARNING);
      assertThat(log.records().get(0).getThrown()).hasMessage("registry offline");
    }
  }
}
