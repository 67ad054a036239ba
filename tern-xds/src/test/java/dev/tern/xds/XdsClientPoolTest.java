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
}
