package dev.tern.services.channelz;

import com.google.protobuf.ByteString;
import com.google.protobuf.Int64Value;
import com.google.protobuf.Timestamp;
import dev.tern.ConnectivityState;
import dev.tern.channelz.CallStats;
import dev.tern.channelz.ChannelStats;
import dev.tern.channelz.ChannelTrace;
import dev.tern.channelz.Instrumented;
import dev.tern.channelz.Ref;
import dev.tern.channelz.ServerStats;
import dev.tern.channelz.SocketStats;
import dev.tern.channelz.TraceEvent;
import dev.tern.services.channelz.v1.Address;
import dev.tern.services.channelz.v1.Channel;
import dev.tern.services.channelz.v1.ChannelConnectivityState;
import dev.tern.services.channelz.v1.ChannelData;
import dev.tern.services.channelz.v1.ChannelRef;
import dev.tern.services.channelz.v1.ChannelTraceEvent;
import dev.tern.services.channelz.v1.Security;
import dev.tern.services.channelz.v1.Server;
import dev.tern.services.channelz.v1.ServerData;
import dev.tern.services.channelz.v1.ServerRef;
import dev.tern.services.channelz.v1.Socket;
import dev.tern.services.channelz.v1.SocketData;
import dev.tern.services.channelz.v1.SocketOption;
import dev.tern.services.channelz.v1.SocketRef;
import dev.tern.services.channelz.v1.Subchannel;
import dev.tern.services.channelz.v1.SubchannelRef;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.security.cert.Certificate;
import java.security.cert.CertificateEncodingException;
import java.time.Instant;

/** Turns channelz snapshots into grpc.channelz.v1 messages. Stateless; thread-safe. */
final class ChannelzMessages {
  private ChannelzMessages() {}

  static Channel channel(Instrumented<ChannelStats> node) {
    ChannelStats stats = node.channelzStats();
    Channel.Builder channel =
        Channel.newBuilder()
            .setRef(
                ChannelRef.newBuilder()
                    .setChannelId(node.channelzId())
                    .setName(node.channelzName()))
            .setData(channelData(stats));
    for (Ref ref : stats.subchannels()) {
      channel.addSubchannelRef(subchannelRef(ref));
    }
    for (Ref ref : stats.sockets()) {
      channel.addSocketRef(socketRef(ref));
    }
    return channel.build();
  }

  static Subchannel subchannel(Instrumented<ChannelStats> node) {
    ChannelStats stats = node.channelzStats();
    Subchannel.Builder subchannel =
        Subchannel.newBuilder()
            .setRef(
                SubchannelRef.newBuilder()
                    .setSubchannelId(node.channelzId())
                    .setName(node.channelzName()))
            .setData(channelData(stats));
    for (Ref ref : stats.subchannels()) {
      subchannel.addSubchannelRef(subchannelRef(ref));
    }
    for (Ref ref : stats.sockets()) {
      subchannel.addSocketRef(socketRef(ref));
    }
    return subchannel.build();
  }

  static Server server(Instrumented<ServerStats> node) {
    ServerStats stats = node.channelzStats();
    CallStats calls = stats.calls();
    ServerData.Builder data =
        ServerData.newBuilder()
            .setCallsStarted(calls.started())
            .setCallsSucceeded(calls.succeeded())
            .setCallsFailed(calls.failed());
    if (calls.lastStarted() != null) {
      data.setLastCallStartedTimestamp(timestamp(calls.lastStarted()));
    }
    Server.Builder server =
        Server.newBuilder()
            .setRef(
                ServerRef.newBuilder().setServerId(node.channelzId()).setName(node.channelzName()))
            .setData(data);
    for (Ref ref : stats.listenSockets()) {
      server.addListenSocket(socketRef(ref));
    }
    return server.build();
  }

  /** A socket; with {@code summary}, only its reference and counters. */
  static Socket socket(Instrumented<SocketStats> node, boolean summary) {
    SocketStats stats = node.channelzStats();
    SocketData.Builder data =
        SocketData.newBuilder()
            .setStreamsStarted(stats.streamsStarted())
            .setStreamsSucceeded(stats.streamsSucceeded())
            .setStreamsFailed(stats.streamsFailed())
            .setMessagesSent(stats.messagesSent())
            .setMessagesReceived(stats.messagesReceived())
            .setKeepAlivesSent(stats.keepAlivesSent());
    if (stats.lastLocalStreamCreated() != null) {
      data.setLastLocalStreamCreatedTimestamp(timestamp(stats.lastLocalStreamCreated()));
    }
    if (stats.lastRemoteStreamCreated() != null) {
      data.setLastRemoteStreamCreatedTimestamp(timestamp(stats.lastRemoteStreamCreated()));
    }
    if (stats.lastMessageSent() != null) {
      data.setLastMessageSentTimestamp(timestamp(stats.lastMessageSent()));
    }
    if (stats.lastMessageReceived() != null) {
      data.setLastMessageReceivedTimestamp(timestamp(stats.lastMessageReceived()));
    }
    if (stats.localFlowControlWindow() >= 0) {
      data.setLocalFlowControlWindow(Int64Value.of(stats.localFlowControlWindow()));
    }
    if (stats.remoteFlowControlWindow() >= 0) {
      data.setRemoteFlowControlWindow(Int64Value.of(stats.remoteFlowControlWindow()));
    }
    stats
        .options()
        .forEach(
            (name, value) ->
                data.addOption(SocketOption.newBuilder().setName(name).setValue(value)));
    Socket.Builder socket = Socket.newBuilder().setRef(socketRef(node.channelzRef())).setData(data);
    if (summary) {
      return socket.build();
    }
    if (stats.local() != null) {
      socket.setLocal(address(stats.local()));
    }
    if (stats.remote() != null) {
      socket.setRemote(address(stats.remote()));
    }
    if (stats.tls() != null) {
      socket.setSecurity(security(stats.tls()));
    }
    return socket.build();
  }

  static SocketRef socketRef(Ref ref) {
    return SocketRef.newBuilder().setSocketId(ref.id()).setName(ref.name()).build();
  }

  private static SubchannelRef subchannelRef(Ref ref) {
    return SubchannelRef.newBuilder().setSubchannelId(ref.id()).setName(ref.name()).build();
  }

  private static ChannelData channelData(ChannelStats stats) {
    CallStats calls = stats.calls();
    ChannelData.Builder data =
        ChannelData.newBuilder()
            .setState(ChannelConnectivityState.newBuilder().setState(state(stats.state())))
            .setTarget(stats.target())
            .setTrace(trace(stats.trace()))
            .setCallsStarted(calls.started())
            .setCallsSucceeded(calls.succeeded())
            .setCallsFailed(calls.failed());
    if (calls.lastStarted() != null) {
      data.setLastCallStartedTimestamp(timestamp(calls.lastStarted()));
    }
    return data.build();
  }

  private static ChannelConnectivityState.State state(ConnectivityState state) {
    switch (state) {
      case IDLE:
        return ChannelConnectivityState.State.IDLE;
      case CONNECTING:
        return ChannelConnectivityState.State.CONNECTING;
      case READY:
        return ChannelConnectivityState.State.READY;
      case TRANSIENT_FAILURE:
        return ChannelConnectivityState.State.TRANSIENT_FAILURE;
      case SHUTDOWN:
        return ChannelConnectivityState.State.SHUTDOWN;
      default:
        return ChannelConnectivityState.State.UNKNOWN;
    }
  }

  private static dev.tern.services.channelz.v1.ChannelTrace trace(ChannelTrace trace) {
    dev.tern.services.channelz.v1.ChannelTrace.Builder out =
        dev.tern.services.channelz.v1.ChannelTrace.newBuilder()
            .setNumEventsLogged(trace.eventsLogged())
            .setCreationTimestamp(timestamp(trace.created()));
    for (TraceEvent event : trace.events()) {
      ChannelTraceEvent.Builder e =
          ChannelTraceEvent.newBuilder()
              .setDescription(event.description())
              .setSeverity(severity(event.severity()))
              .setTimestamp(timestamp(event.timestamp()));
      if (event.child() != null) {
        if (event.childIsSubchannel()) {
          e.setSubchannelRef(subchannelRef(event.child()));
        } else {
          e.setChannelRef(
              ChannelRef.newBuilder()
                  .setChannelId(event.child().id())
                  .setName(event.child().name()));
        }
      }
      out.addEvents(e);
    }
    return out.build();
  }

  private static ChannelTraceEvent.Severity severity(TraceEvent.Severity severity) {
    switch (severity) {
      case INFO:
        return ChannelTraceEvent.Severity.CT_INFO;
      case WARNING:
        return ChannelTraceEvent.Severity.CT_WARNING;
      case ERROR:
        return ChannelTraceEvent.Severity.CT_ERROR;
      default:
        return ChannelTraceEvent.Severity.CT_UNKNOWN;
    }
  }

  static Address address(SocketAddress address) {
    if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
      return Address.newBuilder()
          .setTcpipAddress(
              Address.TcpIpAddress.newBuilder()
                  .setIpAddress(ByteString.copyFrom(inet.getAddress().getAddress()))
                  .setPort(inet.getPort()))
          .build();
    }
    if (address instanceof UnixDomainSocketAddress uds) {
      return Address.newBuilder()
          .setUdsAddress(Address.UdsAddress.newBuilder().setFilename(uds.getPath().toString()))
          .build();
    }
    // Other transports' addresses (Netty's DomainSocketAddress, in-process names): by name.
    return Address.newBuilder()
        .setOtherAddress(Address.OtherAddress.newBuilder().setName(String.valueOf(address)))
        .build();
  }

  private static Security security(SocketStats.Tls tls) {
    Security.Tls.Builder out = Security.Tls.newBuilder();
    if (tls.cipherSuite() != null) {
      out.setStandardName(tls.cipherSuite());
    }
    if (tls.localCertificate() != null) {
      out.setLocalCertificate(encoded(tls.localCertificate()));
    }
    if (tls.remoteCertificate() != null) {
      out.setRemoteCertificate(encoded(tls.remoteCertificate()));
    }
    return Security.newBuilder().setTls(out).build();
  }

  private static ByteString encoded(Certificate certificate) {
    try {
      return ByteString.copyFrom(certificate.getEncoded());
    } catch (CertificateEncodingException e) {
      return ByteString.EMPTY; // cannot happen for X.509 certificates from a TLS session
    }
  }

  static Timestamp timestamp(Instant instant) {
    return Timestamp.newBuilder()
        .setSeconds(instant.getEpochSecond())
        .setNanos(instant.getNano())
        .build();
  }
}
