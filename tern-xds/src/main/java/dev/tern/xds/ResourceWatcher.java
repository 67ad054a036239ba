package dev.tern.xds;

import dev.tern.Status;

/**
 * Receives one xDS resource's changes from an {@link XdsClient}. The client calls it in its
 * synchronization context, one call at a time for all watchers of that client, holding no lock: an
 * implementation must return quickly and must not block, and may call the client back.
 *
 * @param <T> the validated resource ({@link XdsListener}, {@link XdsRouteConfig}, {@link
 *     XdsCluster}, {@link XdsEndpoints})
 */
public interface ResourceWatcher<T> {
  /** The resource as it is now (the first value, or a change; never the same value twice). */
  void onChanged(T resource);

  /**
   * Something went wrong that does not take the resource away: the stream to the control plane
   * failed, or the control plane sent an invalid version (NACKed). The last good value, if any,
   * still holds.
   */
  void onError(Status error);

  /**
   * The control plane says the resource does not exist: it did not send it within the
   * does-not-exist timeout after it was requested, or a state-of-the-world response of a full-state
   * type (LDS, CDS) left it out.
   */
  void onResourceDoesNotExist(String name);
}
