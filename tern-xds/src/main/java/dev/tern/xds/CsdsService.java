package dev.tern.xds;

import com.google.protobuf.Any;
import com.google.protobuf.Timestamp;
import dev.tern.BindableService;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.stub.StreamObserver;
import io.envoyproxy.envoy.admin.v3.ClientResourceStatus;
import io.envoyproxy.envoy.admin.v3.UpdateFailureState;
import io.envoyproxy.envoy.service.status.v3.ClientConfig;
import io.envoyproxy.envoy.service.status.v3.ClientStatusDiscoveryServiceTern;
import io.envoyproxy.envoy.service.status.v3.ClientStatusRequest;
import io.envoyproxy.envoy.service.status.v3.ClientStatusResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The Client Status Discovery Service (gRFC A40, {@code
 * envoy.service.status.v3.ClientStatusDiscoveryService}): what this process's xDS clients hold,
 * resource by resource (version, status, the resource itself, the last NACK), for tools such as
 * grpcdebug and grpcurl. Add it to an admin server; {@code dev.tern.services.AdminServices} adds it
 * on its own when tern-xds is on the class path.
 *
 * <p>Requests with {@code node_matchers} are refused (INVALID_ARGUMENT), as a gRPC client has no
 * other nodes to match. Thread-safe: it keeps no state of its own; each stream answers its requests
 * in order.
 */
public final class CsdsService implements BindableService {
  private final Supplier<List<XdsClient>> clients;

  private CsdsService(Supplier<List<XdsClient>> clients) {
    this.clients = clients;
  }

  /** Reports the clients of {@link XdsClientPool#shared()}, the ones every xDS channel uses. */
  public static CsdsService newInstance() {
    return new CsdsService(XdsClientPool.shared()::clients);
  }

  /** Reports the clients {@code clients} supplies at each request. */
  public static CsdsService forClients(Supplier<List<XdsClient>> clients) {
    return new CsdsService(Objects.requireNonNull(clients, "clients"));
  }

  @Override
  public ServerServiceDefinition bindService() {
    return ClientStatusDiscoveryServiceTern.bindService(new Handler());
  }

  /** The answer to one request, once every client has been read. */
  CompletableFuture<ClientStatusResponse> answer(ClientStatusRequest request) {
    if (request.getNodeMatchersCount() > 0) {
      return CompletableFuture.failedFuture(
          Status.INVALID_ARGUMENT
              .withDescription("node_matchers: not supported by a gRPC client's CSDS")
              .asRuntimeException());
    }
    List<XdsClient> snapshot = clients.get();
    List<CompletableFuture<ClientConfig>> configs = new ArrayList<>();
    for (XdsClient client : snapshot) {
      configs.add(client.resourceStatuses().thenApply(s -> clientConfig(client, s)));
    }
    return CompletableFuture.allOf(configs.toArray(new CompletableFuture<?>[0]))
        .thenApply(
            done -> {
              ClientStatusResponse.Builder response = ClientStatusResponse.newBuilder();
              configs.forEach(c -> response.addConfig(c.join()));
              return response.build();
            });
  }

  private static ClientConfig clientConfig(XdsClient client, List<XdsResourceStatus> statuses) {
    ClientConfig.Builder config =
        ClientConfig.newBuilder()
            .setNode(client.bootstrap().node().toProto())
            .setClientScope(client.scope());
    for (XdsResourceStatus status : statuses) {
      ClientConfig.GenericXdsConfig.Builder generic =
          ClientConfig.GenericXdsConfig.newBuilder()
              .setTypeUrl(status.typeUrl())
              .setName(status.name())
              .setClientStatus(clientStatus(status.state()));
      if (status.version() != null) {
        generic.setVersionInfo(status.version());
      }
      if (status.resource() != null) {
        generic.setXdsConfig(Any.pack(status.resource()));
      }
      if (status.lastUpdated() != null) {
        generic.setLastUpdated(timestamp(status.lastUpdated()));
      }
      XdsResourceStatus.Failure failure = status.failure();
      if (failure != null) {
        UpdateFailureState.Builder error =
            UpdateFailureState.newBuilder()
                .setVersionInfo(failure.version())
                .setDetails(failure.detail())
                .setLastUpdateAttempt(timestamp(failure.at()));
        if (failure.resource() != null) {
          error.setFailedConfiguration(Any.pack(failure.resource()));
        }
        generic.setErrorState(error);
      }
      config.addGenericXdsConfigs(generic);
    }
    return config.build();
  }

  private static ClientResourceStatus clientStatus(XdsResourceStatus.State state) {
    return switch (state) {
      case REQUESTED -> ClientResourceStatus.REQUESTED;
      case DOES_NOT_EXIST -> ClientResourceStatus.DOES_NOT_EXIST;
      case ACKED -> ClientResourceStatus.ACKED;
      case NACKED -> ClientResourceStatus.NACKED;
    };
  }

  private static Timestamp timestamp(Instant instant) {
    return Timestamp.newBuilder()
        .setSeconds(instant.getEpochSecond())
        .setNanos(instant.getNano())
        .build();
  }

  private final class Handler implements ClientStatusDiscoveryServiceTern.AsyncService {
    @Override
    public void fetchClientStatus(
        ClientStatusRequest request, StreamObserver<ClientStatusResponse> responses) {
      answer(request)
          .whenComplete(
              (response, failure) -> {
                if (failure != null) {
                  responses.onError(failure);
                } else {
                  responses.onNext(response);
                  responses.onCompleted();
                }
              });
    }

    @Override
    public StreamObserver<ClientStatusRequest> streamClientStatus(
        StreamObserver<ClientStatusResponse> responses) {
      return new StreamObserver<>() {
        // Each answer is sent after the one before it: requests are answered in order, and the
        // observer is never called from two threads at once.
        private CompletableFuture<?> previous = CompletableFuture.completedFuture(null);
        private boolean failed;

        @Override
        public synchronized void onNext(ClientStatusRequest request) {
          previous =
              previous.thenCompose(
                  done ->
                      answer(request)
                          .handle(
                              (response, failure) -> {
                                respond(response, failure);
                                return null;
                              }));
        }

        private synchronized void respond(ClientStatusResponse response, Throwable failure) {
          if (failed) {
            return; // the stream has ended with an error; later answers are dropped
          }
          if (failure != null) {
            failed = true;
            responses.onError(failure);
          } else {
            responses.onNext(response);
          }
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public synchronized void onCompleted() {
          previous = previous.thenRun(this::complete);
        }

        private synchronized void complete() {
          if (!failed) {
            responses.onCompleted();
          }
        }
      };
    }
  }
}
