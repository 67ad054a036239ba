/**
 * The xDS client of proxyless service mesh (gRFC A27) and the validated model of what it receives;
 * the resolver, the balancers and xDS-enabled servers build on it (in {@code internal.*} and {@code
 * server}).
 *
 * <pre>
 * Bootstrap, BootstrapParser      the bootstrap (A27; authorities, A47), read from the environment
 * XdsClientPool                   the process's shared clients, one per bootstrap and scope (A71)
 *   -> XdsClient                  watchers by (XdsResourceType, name), the cache, ACK/NACK,
 *                                 does-not-exist timers; ResourceState per subscribed resource
 *     -> AuthorityServers         one authority's control planes in order, and the fallback (A71)
 *     -> ControlPlaneConnection   one control plane: channel, AdsStream, back-off (Backoff)
 *       ControlPlaneTls           the channel's TLS for channel_creds "tls" (A65), files re-read
 *     -> LoadReportClient         the LRS stream on the same channel
 *   validators                    Listener-, ServerListener-, Route-, Cluster-, Endpoints-,
 *                                 TlsContext-, LoadBalancingPolicyValidator, HttpFilterConfigs:
 *                                 the protos into the model, or an XdsResourceException naming
 *                                 the field
 *   the model                     XdsListener, XdsServerListener, XdsRouteConfig, XdsCluster,
 *                                 XdsEndpoints, XdsTlsContext (immutable); SubjectAltNameRules
 *                                 (RFC 6125 wildcards, IP text) for XdsTlsContext's SAN matchers
 *   ResourceWatcher               what a watcher implements
 * CsdsService                     CSDS (A40): what the clients hold, resource by resource
 * XdsFeatures                     grpc-java's experimental switches that apply here
 * </pre>
 *
 * <p>Metrics (gRFC A78): an {@code XdsClient} counts server failures and valid and invalid
 * resources into the {@code dev.tern.MetricRecorder} of the first channel with sinks that uses it
 * ({@code XdsClient.useMetricRecorder}, from the resolver's arguments), and gives its sinks the
 * connected and resources gauges ({@code XdsClientGauges}, values published from the client's
 * synchronization context, read by the sinks' threads).
 *
 * <p>Threads: each {@code XdsClient} runs in its own synchronization context. Everything below it
 * (the connections, the ADS and LRS streams, the resource states) is used only there, the calls'
 * callbacks hop into it, and watchers are called there one at a time, holding no lock: a watcher
 * must return quickly and never block. {@code XdsClient}'s public methods and {@code XdsClientPool}
 * may be called from any thread; the model and the bootstrap are immutable.
 */
package dev.tern.xds;
