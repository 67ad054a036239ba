package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class XdsClientPoolTest {
  private static Bootstrap bootstrap(String node) {
    return Bootstrap.parse(
        "{\"xds_servers\": [{\"server_uri\": \"127.0.0.1:1\", \"channel_creds\": [{\"type\":"
            + " \"insecure\"}]}], \"node\": {\"id\": \""
            + node
            + "\"}}",
        "test");
  }

  @Test
  void equalBootstrapsShareOneClientUntilTheLastRelease() {
    XdsClientPool pool = new XdsClientPool(XdsClient.Options.defaults());
    XdsClient a = pool.acquire(bootstrap("n"));
    XdsClient b = pool.acquire(bootstrap("n"));
    XdsClient other = pool.acquire(bootstrap("m"));
    assertThat(b).isSameAs(a);
    assertThat(other).isNotSameAs(a);
    pool.release(a);
    assertThat(pool.acquire(bootstrap("n"))).isSameAs(a);
    pool.release(a);
    pool.release(a);
    XdsClient fresh = pool.acquire(bootstrap("n"));
    assertThat(fresh).isNotSameAs(a);
    pool.release(fresh);
    pool.release(other);
    assertThatThrownBy(() -> pool.release(other)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void eachScopeHasAClientOfItsOwn() {
    XdsClientPool pool = new XdsClientPool(XdsClient.Options.defaults());
    XdsClient svc = pool.acquire(bootstrap("n"), "xds:///svc");
    XdsClient other = pool.acquire(bootstrap("n"), "xds:///other");
    XdsClient server = pool.acquire(bootstrap("n"), XdsClientPool.SERVER_SCOPE);
    assertThat(pool.acquire(bootstrap("n"), "xds:///svc")).isSameAs(svc);
    assertThat(other).isNotSameAs(svc);
    assertThat(server).isNotSameAs(svc).isNotSameAs(other);
    assertThat(svc.scope()).isEqualTo("xds:///svc");
    assertThat(server.scope()).isEqualTo("#server");
    assertThat(pool.clients()).containsExactlyInAnyOrder(svc, other, server);
    pool.release(svc);
    pool.release(svc);
    pool.release(other);
    pool.release(server);
    assertThat(pool.clients()).isEmpty();
  }
}
