/**
 * Tern's core: the API ({@code dev.tern}), stubs, the transport SPI, the in-process transport and
 * the runtime. The runtime's packages are exported only to Tern's own transports.
 */
module dev.tern.core {
  requires java.logging;
  // Optional: JNDI's DNS provider looks up TXT records for service configs (gRFC A2), only when
  // they are turned on; without java.naming they stay off.
  requires static java.naming;
  // @GuardedBy, checked by Error Prone at build time; CLASS retention, not needed at run time.
  requires static com.google.errorprone.annotations;

  exports dev.tern;
  exports dev.tern.stub;
  exports dev.tern.spi;
  exports dev.tern.inprocess;
  exports dev.tern.tls;
  // Channelz's registry and snapshots: written by the runtime and the transports, read by the
  // channelz service (tern-services), so public API.
  exports dev.tern.channelz;
  exports dev.tern.internal to
      dev.tern.netty;
  exports dev.tern.internal.wire to
      dev.tern.netty,
      dev.tern.web,
      dev.tern.http3;
  exports dev.tern.internal.resolver to
      dev.tern.netty;
  // The parsed service config a resolver reports (the DNS resolver's tests look into it), and
  // JsonParser, Tern's one JSON reader: tern-authz's policy files, tern-xds's bootstrap file (and
  // its tests' reading of the control plane's answers), the test tools' reading of Prometheus's
  // answers.
  exports dev.tern.internal.config to
      dev.tern.netty,
      dev.tern.authz,
      dev.tern.xds,
      dev.tern.testtools;
  // The channel's builder base and resolver plumbing; the call (.client) and retry (.retry)
  // layers below it are used by no other module, so they stay unexported.
  exports dev.tern.internal.channel to
      dev.tern.netty;
  exports dev.tern.internal.server to
      dev.tern.netty;

  uses dev.tern.ManagedChannelProvider;
  uses dev.tern.ServerProvider;
  uses dev.tern.NameResolverProvider;
  uses dev.tern.LoadBalancerProvider;
  uses dev.tern.CodecProvider;

  provides dev.tern.ManagedChannelProvider with
      dev.tern.inprocess.InProcessChannelProvider;
  provides dev.tern.NameResolverProvider with
      dev.tern.internal.resolver.DnsNameResolverProvider,
      dev.tern.internal.resolver.AddressListNameResolverProvider.Ipv4,
      dev.tern.internal.resolver.AddressListNameResolverProvider.Ipv6,
      dev.tern.inprocess.InProcessNameResolverProvider;
  provides dev.tern.LoadBalancerProvider with
      dev.tern.internal.lb.PickFirstLoadBalancerProvider,
      dev.tern.internal.lb.RoundRobinLoadBalancerProvider,
      dev.tern.internal.lb.LeastRequestLoadBalancerProvider;
}
