/**
 * The admin bundle: the services an operator's server carries, in one call.
 *
 * <ul>
 *   <li>{@link dev.tern.services.AdminServices}: {@code getStandardServices()} and {@code
 *       addTo(builder)}: channelz, and every {@link dev.tern.services.AdminServiceProvider} found
 *       through {@link java.util.ServiceLoader}.
 *   <li>{@link dev.tern.services.AdminServiceProvider}: what another module registers to join the
 *       bundle; tern-xds registers CSDS this way, so this package never names tern-xds.
 * </ul>
 *
 * <p>The services themselves live in the packages below: {@code channelz}, {@code health}, {@code
 * reflection} and {@code binarylog}.
 *
 * <p>Threads: {@code AdminServices} is stateless and may be called from any thread; the service
 * loader runs on the calling thread, once per call.
 */
package dev.tern.services;
