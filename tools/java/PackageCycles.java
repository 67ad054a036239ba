import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

/**
 * Fails the build when the packages of one module import each other in a circle.
 *
 * <p>Run by every module's {@code verify} (see the parent POM) as {@code java
 * tools/java/PackageCycles.java CLASSES_DIR MODULE_NAME}. It asks the JDK's own {@code jdeps} for
 * the package-level dependencies of the compiled classes, keeps the edges between the module's own
 * packages, and finds the strongly connected components (Tarjan). Every component of more than one
 * package is a cycle: each is printed with the class-level references that make it, and the exit
 * status is 1. A module with no classes (a POM) passes.
 *
 * <p>It also enforces the import rules listed in {@code package-rules.txt} beside it (lines {@code
 * FROM -> TO}: no class of package FROM may refer to package TO, or to TO and every package below
 * it when TO ends in {@code .**}; a FROM ending in {@code .**} stands for that package and every
 * package below it too), which hold the layering that is not a cycle today but must never become
 * one, such as "the transport SPI does not import the runtime".
 *
 * <p>A single-file program on purpose: it needs nothing but the JDK, so it runs before anything is
 * installed and on every JDK the build supports.
 */
public final class PackageCycles {
  /** Enough class references to see which imports close the circle without flooding the log. */
  private static final int MAX_EDGES_SHOWN = 40;

  private PackageCycles() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: java PackageCycles.java CLASSES_DIR MODULE_NAME RULES_FILE");
      System.exit(2);
    }
    Path classes = Path.of(args[0]);
    String module = args[1];
    if (!Files.isDirectory(classes) || !hasClassFiles(classes)) {
      return;
    }
    Path copy = Files.createTempDirectory("package-cycles");
    int status;
    try {
      status = check(withoutDescriptor(classes, copy), module, Path.of(args[2]));
    } finally {
      deleteTree(copy);
    }
    if (status != 0) {
      System.exit(status);
    }
  }

  /**
   * Checks the classes in {@code input} (as jdeps reads them): prints the verdict, returns 1 if
   * bad.
   */
  private static int check(Path input, String module, Path rules) throws Exception {
    String packageEdges = jdeps("-verbose:package", input);
    Map<String, Set<String>> graph = packageGraph(packageEdges);
    List<List<String>> cycles = stronglyConnected(graph);
    List<String> broken = brokenRules(packageEdges, Files.readAllLines(rules));
    if (cycles.isEmpty() && broken.isEmpty()) {
      System.out.println(
          "[package-cycles] " + module + ": " + graph.size() + " packages, no cycles, rules kept");
      return 0;
    }
    for (String rule : broken) {
      System.err.println("[package-cycles] " + module + ": forbidden import " + rule);
    }
    if (cycles.isEmpty()) {
      return 1;
    }
    String classEdges = jdeps("-verbose:class", input);
    System.err.println("[package-cycles] " + module + ": packages import each other in a circle:");
    for (List<String> cycle : cycles) {
      System.err.println("  cycle: " + String.join(" <-> ", cycle));
      List<String> edges = edgesWithin(classEdges, Set.copyOf(cycle));
      edges.stream().limit(MAX_EDGES_SHOWN).forEach(line -> System.err.println("    " + line));
      if (edges.size() > MAX_EDGES_SHOWN) {
        System.err.println("    ... and " + (edges.size() - MAX_EDGES_SHOWN) + " more references");
      }
    }
    return 1;
  }

  /**
   * {@code classes} as jdeps reads it: one directory, less {@code module-info.class}. Given the
   * descriptor, jdeps would resolve the module's dependencies, which are not at hand here, and the
   * package graph does not depend on it; so a module with one is copied, without it, to a temporary
   * directory ({@code copy}). One directory is one archive to jdeps, where a list of the class
   * files is an archive each: tern-xds's 2,735 took 25 s that way, and 2 s as a directory.
   */
  private static Path withoutDescriptor(Path classes, Path copy) throws Exception {
    if (!Files.exists(classes.resolve("module-info.class"))) {
      return classes;
    }
    try (Stream<Path> files = Files.walk(classes)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Path target = copy.resolve(classes.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(target);
        } else if (!file.equals(classes.resolve("module-info.class"))) {
          Files.copy(file, target);
        }
      }
    }
    return copy;
  }

  private static void deleteTree(Path dir) throws Exception {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(file);
      }
    }
  }

  private static boolean hasClassFiles(Path dir) throws Exception {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.anyMatch(p -> p.toString().endsWith(".class"));
    }
  }

  private static String jdeps(String verbosity, Path input) throws Exception {
    ToolProvider jdeps =
        ToolProvider.findFirst("jdeps")
            .orElseThrow(() -> new IllegalStateException("this JDK has no jdeps tool"));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status =
        jdeps.run(
            new PrintWriter(out),
            new PrintWriter(err),
            verbosity,
            "-filter:none",
            input.toString());
    if (status != 0) {
      throw new IllegalStateException("jdeps failed (" + status + "): " + err);
    }
    return out.toString();
  }

  /**
   * Parses jdeps' " FROM -> TO WHERE" lines into edges between the module's own packages (those
   * that appear as a FROM: classes outside the module are not followed).
   */
  static Map<String, Set<String>> packageGraph(String jdepsOutput) {
    Map<String, Set<String>> graph = new TreeMap<>();
    List<String[]> edges = new ArrayList<>();
    for (String line : jdepsOutput.split("\n")) {
      String[] parts = line.trim().split("\\s+");
      if (line.startsWith(" ") && parts.length >= 3 && parts[1].equals("->")) {
        graph.computeIfAbsent(parts[0], k -> new TreeSet<>());
        edges.add(parts);
      }
    }
    for (String[] edge : edges) {
      if (!edge[0].equals(edge[2]) && graph.containsKey(edge[2])) {
        graph.get(edge[0]).add(edge[2]);
      }
    }
    return graph;
  }

  /** The rules ("FROM -> TO") that some edge of the module breaks, each with that edge. */
  static List<String> brokenRules(String jdepsOutput, List<String> rules) {
    List<String> broken = new ArrayList<>();
    for (String rule : rules) {
      String text = rule.strip();
      if (text.isEmpty() || text.startsWith("#")) {
        continue;
      }
      String[] sides = text.split("\\s*->\\s*");
      if (sides.length != 2) {
        throw new IllegalArgumentException("package rule is not 'FROM -> TO': " + rule);
      }
      for (String line : jdepsOutput.split("\n")) {
        String[] parts = line.trim().split("\\s+");
        if (line.startsWith(" ")
            && parts.length >= 3
            && parts[1].equals("->")
            && targets(sides[0], parts[0])
            && targets(sides[1], parts[2])) {
          broken.add(parts[0] + " -> " + parts[2] + " (rule: " + text + ")");
        }
      }
    }
    return broken;
  }

  /**
   * Whether {@code pkg} is {@code target}, or below it when the target ends in {@code .**} (used
   * for both sides of a rule).
   */
  private static boolean targets(String target, String pkg) {
    if (target.endsWith(".**")) {
      String base = target.substring(0, target.length() - 3);
      return pkg.equals(base) || pkg.startsWith(base + ".");
    }
    return pkg.equals(target);
  }

  /** Tarjan's algorithm, iterative; returns the components of two or more packages. */
  static List<List<String>> stronglyConnected(Map<String, Set<String>> graph) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new TreeSet<>();
    List<List<String>> components = new ArrayList<>();
    int[] counter = {0};
    for (String root : graph.keySet()) {
      if (index.containsKey(root)) {
        continue;
      }
      Deque<Frame> work = new ArrayDeque<>();
      enter(root, index, low, stack, onStack, counter);
      work.push(new Frame(root, graph.get(root).iterator()));
      while (!work.isEmpty()) {
        Frame frame = work.peek();
        String node = frame.node();
        if (frame.successors().hasNext()) {
          String succ = frame.successors().next();
          if (!index.containsKey(succ)) {
            enter(succ, index, low, stack, onStack, counter);
            work.push(new Frame(succ, graph.get(succ).iterator()));
          } else if (onStack.contains(succ)) {
            low.put(node, Math.min(low.get(node), index.get(succ)));
          }
          continue;
        }
        work.pop();
        if (!work.isEmpty()) {
          String parent = work.peek().node();
          low.put(parent, Math.min(low.get(parent), low.get(node)));
        }
        if (low.get(node).equals(index.get(node))) {
          List<String> component = new ArrayList<>();
          String member;
          do {
            member = stack.pop();
            onStack.remove(member);
            component.add(member);
          } while (!member.equals(node));
          if (component.size() > 1) {
            component.sort(null);
            components.add(component);
          }
        }
      }
    }
    return components;
  }

  /** A node of the depth-first search and the successors it has yet to visit. */
  private record Frame(String node, Iterator<String> successors) {}

  private static void enter(
      String node,
      Map<String, Integer> index,
      Map<String, Integer> low,
      Deque<String> stack,
      Set<String> onStack,
      int[] counter) {
    index.put(node, counter[0]);
    low.put(node, counter[0]);
    counter[0]++;
    stack.push(node);
    onStack.add(node);
  }

  /** The class-level references ("a.B -> c.D") between packages of one cycle. */
  private static List<String> edgesWithin(String classEdges, Set<String> packages) {
    List<String> found = new ArrayList<>();
    for (String line : classEdges.split("\n")) {
      String[] parts = line.trim().split("\\s+");
      if (!line.startsWith(" ") || parts.length < 3 || !parts[1].equals("->")) {
        continue;
      }
      String from = packageOf(parts[0]);
      String to = packageOf(parts[2]);
      if (!from.equals(to) && packages.contains(from) && packages.contains(to)) {
        found.add(parts[0] + " -> " + parts[2]);
      }
    }
    return found;
  }

  private static String packageOf(String className) {
    int dot = className.lastIndexOf('.');
    return dot < 0 ? "" : className.substring(0, dot);
  }
}
