package dev.tern.netty.shaded;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.ManagedChannelBuilder;
import dev.tern.ServerBuilder;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * What tern-netty-shaded holds and what it asks of its users: every class under {@code dev/tern/},
 * Netty's native libraries renamed for the relocated loader, the providers found through its
 * service files, and tern-core as its only dependency.
 */
class ShadedJarTest {
  /** The jar the Tern transport on the class path was loaded from: tern-netty-shaded's. */
  private static JarFile shadedJar() throws IOException {
    Path jar = CodeSources.of(NettyServerBuilder.class);
    assertThat(jar.getFileName().toString()).startsWith("tern-netty-shaded-").endsWith(".jar");
    return new JarFile(jar.toFile());
  }

  private static List<String> entries() throws IOException {
    try (JarFile jar = shadedJar()) {
      return jar.stream().map(JarEntry::getName).toList();
    }
  }

  @Test
  void everyClassIsUnderDevTern() throws IOException {
    List<String> entries = entries();

    assertThat(entries.stream().filter(name -> name.endsWith(".class")))
        .isNotEmpty()
        .allMatch(name -> name.startsWith("dev/tern/"), "is under dev/tern/");
    assertThat(entries).noneMatch(name -> name.startsWith("io/"));
    assertThat(entries).contains("dev/tern/shaded/io/netty/channel/epoll/Epoll.class");
  }

  @Test
  void nativeLibrariesCarryTheRelocatedPrefix() throws IOException {
    List<String> libraries =
        entries().stream().filter(name -> name.matches("META-INF/native/.+\\.so")).toList();

    assertThat(libraries)
        .containsExactlyInAnyOrder(
            "META-INF/native/libdev_tern_shaded_netty_transport_native_epoll_x86_64.so",
            "META-INF/native/libdev_tern_shaded_netty_transport_native_io_uring42_x86_64.so");
  }

  @Test
  void serviceFilesNameRelocatedClasses() throws IOException {
    List<String> named = new ArrayList<>();
    try (JarFile jar = shadedJar()) {
      for (JarEntry entry : Collections.list(jar.entries())) {
        if (entry.getName().startsWith("META-INF/services/") && !entry.isDirectory()) {
          String text = new String(jar.getInputStream(entry).readAllBytes(), UTF_8);
          text.lines()
              .map(String::strip)
              .filter(line -> !line.isEmpty() && !line.startsWith("#"))
              .forEach(named::add);
        }
      }
    }

    assertThat(named)
        .contains("dev.tern.netty.NettyServerProvider", "dev.tern.netty.NettyChannelProvider")
        .allMatch(name -> name.startsWith("dev.tern."), "is under dev.tern");
  }

  @Test
  void builderFactoriesFindTheShadedTransport() {
    assertThat(ServerBuilder.forPort(0)).isInstanceOf(NettyServerBuilder.class);
    assertThat(ManagedChannelBuilder.forTarget("dns:///localhost:443"))
        .isInstanceOf(NettyChannelBuilder.class);
  }

  @Test
  void theClassPathHoldsOnlyTheShadedTernNetty() throws IOException {
    List<URL> copies =
        Collections.list(
            ClassLoader.getSystemClassLoader()
                .getResources("dev/tern/netty/NettyServerBuilder.class"));

    assertThat(copies).hasSize(1);
    assertThat(copies.get(0).toString()).contains("/tern-netty-shaded-");
    // Every plain Netty on the class path is grpc-netty's 4.1.
    assertThat(
            Collections.list(
                ClassLoader.getSystemClassLoader()
                    .getResources("META-INF/io.netty.versions.properties")))
        .isNotEmpty()
        .allMatch(url -> url.toString().contains("-4.1."), "is a Netty 4.1 jar");
  }

  @Test
  void usersGetTernCoreOnly() throws Exception {
    String pom = System.getProperty("tern.test.shadedPom");
    assertThat(pom).as("system property tern.test.shadedPom (set by the build)").isNotNull();
    NodeList dependencies =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(Path.of(pom).toFile())
            .getElementsByTagName("dependency");
    List<String> passedOn = new ArrayList<>();
    for (int i = 0; i < dependencies.getLength(); i++) {
      Element dependency = (Element) dependencies.item(i);
      String scope = text(dependency, "scope");
      boolean optional = "true".equals(text(dependency, "optional"));
      if (!optional && (scope == null || scope.equals("compile") || scope.equals("runtime"))) {
        passedOn.add(text(dependency, "groupId") + ":" + text(dependency, "artifactId"));
      }
    }

    assertThat(passedOn).containsExactly("dev.tern:tern-core");
  }

  private static String text(Element parent, String tag) {
    NodeList found = parent.getElementsByTagName(tag);
    return found.getLength() == 0 ? null : found.item(0).getTextContent().trim();
  }
}
