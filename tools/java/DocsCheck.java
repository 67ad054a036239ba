import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Fails the build when a doc names something the tree does not have, or a package has no map.
 *
 * <p>Run once per build by the parent POM's {@code verify} as {@code java tools/java/DocsCheck.java
 * REPO_ROOT}; {@code --self-test FIXTURE} runs the rules on {@code FIXTURE/tree} and compares what
 * they report with {@code FIXTURE/expected.txt} (the build runs it first, on {@code
 * tools/java/testdata/docs-check}). Each finding is one line, {@code file:line: `name`: why}, and
 * the exit status is 1 when there is any.
 *
 * <p>The docs: {@code README.md}, {@code docs/*.md} and every other {@code README.md} in the tree
 * (not under {@code target}, {@code node_modules} or hidden directories). {@code
 * docs/performance-log.md} is skipped: it is history, and records names that once were. Fenced code
 * blocks are skipped too; the rules read inline code spans (text in backticks) and links.
 *
 * <ul>
 *   <li>A span with a space in it is prose or a command, out of scope, except a command that starts
 *       with {@code bin/}: its program must exist in {@code bin/} and each of its {@code --flags}
 *       must be one of the program's flags.
 *   <li>{@code bin/NAME}: a file {@code bin/NAME} exists.
 *   <li>{@code --flag} or {@code --flag=value}, in a sentence (or list item, or table row) that
 *       names {@code bin/} programs: the flag appears in one of those programs' sources ({@code
 *       --flag} or {@code "flag"} in the bin script, in the Java package of the main class it
 *       launches, or in the Python scripts it runs). A flag in a sentence that names no bin program
 *       belongs to another tool (curl, Envoy, protoc): out of scope.
 *   <li>{@code -Dtern.x} or {@code -Ddev.tern.x}, Tern's own system properties: the name appears in
 *       some source, POM or script of the tree.
 *   <li>A path (has a {@code /}, or ends in a known extension such as {@code .java} or {@code
 *       .md}): exists relative to the repository root or to the doc's directory, or is the end of a
 *       path that exists (a bare file name: some file of that name). Out of scope: absolute paths
 *       (gRPC method paths, {@code /proc}), placeholders ({@code <x>}, {@code $X}, {@code *},
 *       {@code ...}, {@code ~}), URLs and {@code host:port} (and paths that start with a host
 *       name), MIME types, gRPC method names ({@code pkg.Service/Method}), alternatives ({@code
 *       keepAliveTime/Timeout}), versions ({@code http/1.1}), files inside jars ({@code
 *       META-INF/...}) and build output (a {@code target}, {@code .venv} or {@code node_modules}
 *       directory). A file that the doc's own {@code <!-- quickstart-file: PATH -->} blocks create
 *       exists.
 *   <li>{@code dev.tern...}: the package exists (or packages below it do, or the name is a module,
 *       a logger or a proto's {@code java_package}: a whole token in some source or POM); a class
 *       after it exists in that package, and a member after the class in it. Names under a POM's
 *       {@code shadedPattern} (Netty relocated into the shaded jar) are out of scope.
 *   <li>A type name (CamelCase with an inner capital, like {@code ServerCall}, optionally {@code @}
 *       for an annotation or {@code ()} after it): some {@code .java}, {@code .kt} or {@code .py}
 *       file declares a type of that name (nested types count), or a {@code .proto} file declares
 *       it or the service or message it is generated from ({@code GreeterTern}, {@code
 *       GreeterGrpc}, ...), or {@code tools/java/docs-external-names.txt} lists it (JDK, Netty,
 *       grpc-java and other names the docs cite; each entry a real name outside the tree). Names
 *       that start with {@code Foo} or {@code Bar} are placeholders.
 *   <li>{@code Type.member}, {@code Type#member}, {@code Type::member}, with or without arguments:
 *       when the type is the tree's (a single-word type too, like {@code Status}), a file declaring
 *       it has the member as a method, field, record component or constant, or the nested type; an
 *       external type's members are not checked; an unknown type is reported as above. A one-letter
 *       member ({@code Builder.x}) or one ending in a lone {@code X} ({@code CallOptions.withX}) is
 *       a placeholder. The external list may name a {@code Type.member} whose type has a namesake
 *       in the tree (grpc-java's {@code PickFirstLoadBalancer.processSubchannelState}), and paths
 *       of other projects.
 *   <li>All-capital names ({@code CANCELLED}), lower-case words ({@code max-age}) and single
 *       capitalised words that are not the tree's types are out of scope.
 *   <li>A relative link ({@code [text](target)}) points at a file that exists; when it points at a
 *       Markdown heading ({@code doc.md#anchor} or {@code #anchor}), the heading exists (GitHub's
 *       anchors).
 * </ul>
 *
 * <p>And every directory under {@code tern-*}{@code /src/main/java} with Java files has a {@code
 * package-info.java}, the package's map.
 *
 * <p>A single-file program, like {@code PackageCycles.java} beside it: it needs nothing but the
 * JDK.
 */
public final class DocsCheck {
  static final String EXTERNAL_NAMES = "tools/java/docs-external-names.txt";
  static final String SKIPPED_DOC = "docs/performance-log.md";
  static final Set<String> SKIPPED_DIRS =
      Set.of("target", "node_modules", "__pycache__", ".git", ".venv", ".gen", ".cifuzz-corpus");

  /** The fixture of the self-test: its names must not count as the tree's. */
  static final String FIXTURE_DIR = "tools/java/testdata";

  static final Set<String> EXTENSIONS =
      Set.of(
          ("java kt md proto sh py txt xml json yaml yml toml properties go rs c html js ts png pem"
                  + " key crt csv cfg lock mod sum conf")
              .split(" "));

  /** Suffixes of the Java classes protoc's plugins generate from a proto service or message. */
  static final List<String> GENERATED_SUFFIXES =
      List.of(
          (",Tern,Grpc,GrpcKt,ImplBase,Stub,BlockingStub,BlockingV2Stub,FutureStub,CoroutineStub,"
                  + "CoroutineImplBase,OrBuilder,Proto,OuterClass")
              .split(",", -1));

  static final Pattern TYPE_DECL =
      Pattern.compile("\\b(?:class|interface|enum|record|@interface|object)\\s+([A-Z]\\w*)");
  static final Pattern PROTO_DECL =
      Pattern.compile("^\\s*(?:message|service|enum|rpc)\\s+([A-Z]\\w*)", Pattern.MULTILINE);
  static final Pattern PACKAGE_DECL =
      Pattern.compile("^package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
  static final Pattern CAMEL_TYPE =
      Pattern.compile("[A-Z]\\w*[a-z0-9][A-Z]\\w*|[A-Z][A-Z0-9]+[a-z]\\w*");
  static final Pattern MEMBER_REF =
      Pattern.compile("([A-Z]\\w*)(?:\\.|#|::)([A-Za-z_]\\w*)(?:\\(.*\\)(?:[.#].*)?)?");
  static final Pattern QUALIFIED = Pattern.compile("dev\\.tern(?:\\.\\w+)*(?:\\(.*\\))?");
  static final Pattern FLAG = Pattern.compile("--([a-z][a-z0-9_-]*)(?:=.*)?");
  static final Pattern SENTENCE_END = Pattern.compile("[.;!?](?=\\s)|\\n\\s*[-*|] ");
  static final Pattern QUICKSTART_FILE = Pattern.compile("<!-- quickstart-file: (\\S+) -->");
  static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1", Pattern.DOTALL);
  static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
  static final Pattern BIN_NAME = Pattern.compile("(?<![\\w/.-])(?:\\./)?bin/([\\w-]+)");
  static final Pattern GRPC_METHOD = Pattern.compile("(?:[a-z][\\w.]*\\.)?[A-Z]\\w*/[A-Z*]\\w*");
  static final Pattern PLACEHOLDER = Pattern.compile("(?:Foo|Bar)(?:[A-Z.#]|$)");
  static final Pattern PLACEHOLDER_MEMBER = Pattern.compile("[a-z]|[a-z]+X");
  static final Pattern NOT_A_PATH_SEGMENT =
      Pattern.compile(
          "[a-z]+[A-Z]\\w*|[A-Z]\\w*\\.[a-z]\\w*|[\\w-]+(?:\\.[\\w-]+)*\\.(?:com|org|io|dev|net)|\\d[\\d.]*");
  static final Set<String> MIME_TYPES =
      Set.of("application", "text", "image", "multipart", "audio", "video");

  private final Path root;
  private final Set<String> files = new TreeSet<>();
  private final Set<String> dirs = new HashSet<>();
  private final Map<String, List<Path>> typeFiles = new HashMap<>();
  private final Set<String> protoNames = new HashSet<>();
  private final Set<String> packages = new HashSet<>();
  private final Set<String> externalNames = new HashSet<>();
  private final Map<Path, String> texts = new HashMap<>();
  private final List<String> findings = new ArrayList<>();

  /** Files the doc being checked makes in a new project (its quickstart-file blocks). */
  private final Set<String> createdFiles = new HashSet<>();

  DocsCheck(Path root) {
    this.root = root;
  }

  public static void main(String[] args) throws IOException {
    if (args.length == 2 && args[0].equals("--self-test")) {
      System.exit(selfTest(Path.of(args[1])));
    }
    if (args.length != 1) {
      System.err.println("usage: java DocsCheck.java REPO_ROOT | --self-test FIXTURE_DIR");
      System.exit(2);
    }
    List<String> found = new DocsCheck(Path.of(args[0])).run();
    if (found.isEmpty()) {
      System.out.println(
          "[docs-check] every name, path, program, flag and link the docs cite exists");
      return;
    }
    found.forEach(f -> System.err.println("[docs-check] " + f));
    System.err.println(
        "[docs-check] " + found.size() + " stale or missing (rules: tools/java/DocsCheck.java)");
    System.exit(1);
  }

  static int selfTest(Path fixture) throws IOException {
    List<String> expected =
        Files.readAllLines(fixture.resolve("expected.txt")).stream()
            .filter(l -> !l.isBlank() && !l.startsWith("#"))
            .toList();
    List<String> actual = new DocsCheck(fixture.resolve("tree")).run();
    if (actual.equals(expected)) {
      System.out.println("[docs-check] self-test: " + actual.size() + " findings, as expected");
      return 0;
    }
    System.err.println("[docs-check] self-test failed; expected:");
    expected.forEach(l -> System.err.println("  " + l));
    System.err.println("but the rules reported:");
    actual.forEach(l -> System.err.println("  " + l));
    return 1;
  }

  List<String> run() throws IOException {
    index();
    for (String doc : docs()) {
      checkDoc(doc);
    }
    checkPackageInfos();
    return List.copyOf(new LinkedHashSet<>(findings));
  }

  // ---- the tree -------------------------------------------------------------------------------

  private void index() throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      walk.filter(p -> !skipped(p))
          .forEach(
              p -> {
                String rel = rel(p);
                if (Files.isDirectory(p)) {
                  dirs.add(rel);
                } else {
                  files.add(rel);
                }
              });
    }
    for (String f : files) {
      String ext = extension(f);
      if (!Set.of("java", "kt", "py", "proto", "sh", "xml", "properties").contains(ext)
          && !f.startsWith("bin/")
          && !f.startsWith(".ci/")) {
        continue;
      }
      String text = read(root.resolve(f));
      texts.put(root.resolve(f), text);
      if (ext.equals("proto")) {
        Matcher m = PROTO_DECL.matcher(text);
        while (m.find()) {
          protoNames.add(m.group(1));
        }
      } else if (Set.of("java", "kt", "py").contains(ext)) {
        Matcher m = TYPE_DECL.matcher(text);
        while (m.find()) {
          typeFiles.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(root.resolve(f));
        }
        Matcher pkg = PACKAGE_DECL.matcher(text);
        if (pkg.find()) {
          packages.add(pkg.group(1));
        }
      }
    }
    Path names = root.resolve(EXTERNAL_NAMES);
    if (Files.exists(names)) {
      for (String line : Files.readAllLines(names)) {
        String name = line.replaceAll("#.*", "").trim();
        if (!name.isEmpty()) {
          externalNames.add(name);
        }
      }
    }
  }

  private boolean skipped(Path p) {
    String rel = rel(p);
    if (rel.equals(FIXTURE_DIR) || rel.startsWith(FIXTURE_DIR + "/")) {
      return true;
    }
    for (Path part : root.relativize(p)) {
      String name = part.toString();
      if (SKIPPED_DIRS.contains(name) || name.startsWith("target-")) {
        return true;
      }
    }
    return false;
  }

  private List<String> docs() {
    List<String> docs = new ArrayList<>();
    for (String f : files) {
      boolean topDoc = f.startsWith("docs/") && f.endsWith(".md") && f.indexOf('/', 5) < 0;
      boolean readme = f.equals("README.md") || f.endsWith("/README.md");
      boolean hidden = f.startsWith(".") || f.contains("/.");
      if ((topDoc || readme) && !hidden && !f.equals(SKIPPED_DOC)) {
        docs.add(f);
      }
    }
    return docs;
  }

  // ---- one doc --------------------------------------------------------------------------------

  private void checkDoc(String doc) {
    String raw = read(root.resolve(doc));
    createdFiles.clear();
    Matcher created = QUICKSTART_FILE.matcher(raw);
    while (created.find()) {
      for (String path = created.group(1);
          path.contains("/");
          path = path.substring(0, path.lastIndexOf('/'))) {
        createdFiles.add(path);
      }
      createdFiles.add(created.group(1).replaceAll("/.*", ""));
    }
    String text = withoutFences(raw);
    String[] paragraphs = text.split("\n\\s*\n", -1);
    int offset = 0;
    for (String paragraph : paragraphs) {
      int start = text.indexOf(paragraph, offset);
      offset = start + paragraph.length();
      Matcher span = CODE_SPAN.matcher(paragraph);
      while (span.find()) {
        int line = lineOf(text, start + span.start());
        String code = span.group(2).replace('\n', ' ').trim();
        for (String why : checkSpan(doc, code, programsOfSentence(paragraph, span.start()))) {
          findings.add(doc + ":" + line + ": `" + code + "`: " + why);
        }
      }
      String prose = CODE_SPAN.matcher(paragraph).replaceAll("");
      Matcher link = LINK.matcher(paragraph);
      while (link.find()) {
        if (prose.contains(link.group(0))) {
          String why = checkLink(doc, link.group(1));
          if (why != null) {
            findings.add(
                doc
                    + ":"
                    + lineOf(text, start + link.start())
                    + ": ("
                    + link.group(1)
                    + "): "
                    + why);
          }
        }
      }
    }
  }

  /** The bin programs named in the sentence around {@code offset}: whose flags it may name. */
  static Set<String> programsOfSentence(String paragraph, int offset) {
    Matcher end = SENTENCE_END.matcher(paragraph);
    int from = 0;
    int to = paragraph.length();
    while (end.find()) {
      if (end.end() <= offset) {
        from = end.end();
      } else {
        to = end.start();
        break;
      }
    }
    Set<String> programs = new LinkedHashSet<>();
    Matcher bin = BIN_NAME.matcher(paragraph.substring(from, to));
    while (bin.find()) {
      programs.add(bin.group(1));
    }
    return programs;
  }

  /** The text with each fenced block's lines blanked, so that line numbers stay right. */
  static String withoutFences(String text) {
    StringBuilder out = new StringBuilder();
    boolean fenced = false;
    for (String line : text.split("\n", -1)) {
      boolean fence = line.trim().startsWith("```") || line.trim().startsWith("~~~");
      out.append(fenced || fence ? "" : line).append('\n');
      if (fence) {
        fenced = !fenced;
      }
    }
    return out.toString();
  }

  private List<String> checkSpan(String doc, String code, Set<String> programs) {
    List<String> why = new ArrayList<>();
    String command = code.startsWith("./") ? code.substring(2) : code;
    if (command.startsWith("bin/")) {
      String[] words = command.split("\\s+");
      String program = words[0].substring(4);
      if (program.isEmpty()) {
        return why;
      }
      if (!files.contains("bin/" + program)) {
        why.add("no program bin/" + program);
        return why;
      }
      for (int i = 1; i < words.length; i++) {
        Matcher flag = FLAG.matcher(words[i].replaceAll("[\\[\\]]", ""));
        if (flag.matches() && !hasFlag(program, flag.group(1))) {
          why.add("bin/" + program + " has no flag --" + flag.group(1));
        }
      }
      return why;
    }
    if (code.isEmpty() || code.matches(".*\\s.*")) {
      return why;
    }
    Matcher flag = FLAG.matcher(code);
    if (flag.matches()) {
      if (!programs.isEmpty() && programs.stream().noneMatch(p -> hasFlag(p, flag.group(1)))) {
        why.add(
            "not a flag of " + String.join(", ", programs.stream().map(p -> "bin/" + p).toList()));
      }
      return why;
    }
    if (code.startsWith("-Dtern.") || code.startsWith("-Ddev.tern.")) {
      String property = code.substring(2).replaceAll("=.*", "");
      if (texts.values().stream().noneMatch(t -> t.contains(property))) {
        why.add("no source, POM or script reads the property " + property);
      }
      return why;
    }
    if (QUALIFIED.matcher(code).matches()) {
      return relocated(code) ? why : checkQualified(code);
    }
    if (looksLikePath(code)) {
      if (!pathExists(doc, code)) {
        why.add("no such file or directory");
      }
      return why;
    }
    String name = code.startsWith("@") ? code.substring(1) : code;
    name = name.replaceAll("\\(\\)$", "");
    if (externalNames.contains(name) || PLACEHOLDER.matcher(name).lookingAt()) {
      return why;
    }
    Matcher member = MEMBER_REF.matcher(name);
    if (member.matches()) {
      String type = member.group(1);
      if (typeFiles.containsKey(type)) {
        if (!PLACEHOLDER_MEMBER.matcher(member.group(2)).matches()
            && !hasMember(type, member.group(2))) {
          why.add(type + " has no member " + member.group(2));
        }
      } else if (CAMEL_TYPE.matcher(type).matches() && !knownName(type)) {
        why.add("no type " + type + " in the tree (nor in " + EXTERNAL_NAMES + ")");
      }
      return why;
    }
    if (CAMEL_TYPE.matcher(name).matches() && !knownName(name)) {
      why.add("no type of that name in the tree (nor in " + EXTERNAL_NAMES + ")");
    }
    return why;
  }

  private boolean knownName(String name) {
    if (typeFiles.containsKey(name) || externalNames.contains(name)) {
      return true;
    }
    for (String suffix : GENERATED_SUFFIXES) {
      if (name.endsWith(suffix)
          && protoNames.contains(name.substring(0, name.length() - suffix.length()))) {
        return true;
      }
    }
    return false;
  }

  private boolean hasMember(String type, String member) {
    String quoted = Pattern.quote(member);
    Pattern declared =
        Character.isUpperCase(member.charAt(0)) && !member.equals(member.toUpperCase(Locale.ROOT))
            ? Pattern.compile("\\b(?:class|interface|enum|record|@interface)\\s+" + quoted + "\\b")
            : Pattern.compile(
                "\\b" + quoted + "\\b\\s*[(,;=)]|\\b" + quoted + "\\s*$", Pattern.MULTILINE);
    return typeFiles.get(type).stream().anyMatch(f -> declared.matcher(texts.get(f)).find());
  }

  /** {@code dev.tern.pkg}, {@code dev.tern.pkg.Type}, {@code dev.tern.pkg.Type.member}. */
  private List<String> checkQualified(String code) {
    String[] parts = code.replaceAll("\\(.*\\)$", "").split("\\.");
    int first = 0;
    while (first < parts.length && !Character.isUpperCase(parts[first].charAt(0))) {
      first++;
    }
    String pkg = String.join(".", List.of(parts).subList(0, first));
    boolean parent = packages.stream().anyMatch(p -> p.startsWith(pkg + "."));
    if (!packages.contains(pkg) && !parent && !namedInSources(pkg)) {
      return List.of("no package " + pkg + " in the tree");
    }
    if (first == parts.length) {
      return List.of();
    }
    String type = parts[first];
    String packageDir = "/" + pkg.replace('.', '/') + "/";
    boolean inPackage =
        typeFiles.getOrDefault(type, List.of()).stream()
            .anyMatch(
                f ->
                    rel(f).contains(packageDir)
                        && rel(f).indexOf('/', rel(f).indexOf(packageDir) + packageDir.length())
                            < 0);
    if (!inPackage) {
      return List.of("no type " + type + " in " + pkg);
    }
    if (first + 1 < parts.length && !hasMember(type, parts[first + 1])) {
      return List.of(type + " has no member " + parts[first + 1]);
    }
    return List.of();
  }

  /** A name under a POM's {@code shadedPattern}: a third-party class, moved into the shaded jar. */
  private boolean relocated(String name) {
    Matcher pattern = Pattern.compile("<shadedPattern>([\\w.]+)</shadedPattern>").matcher("");
    for (Map.Entry<Path, String> text : texts.entrySet()) {
      if (text.getKey().endsWith("pom.xml")) {
        pattern.reset(text.getValue());
        while (pattern.find()) {
          if (name.startsWith(pattern.group(1) + ".")) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /**
   * A module, a logger, a shaded package or a proto's java_package: the name as a whole token (in
   * quotes, in a POM element or after a keyword) in some source, POM, proto or script.
   */
  private boolean namedInSources(String name) {
    Pattern token = Pattern.compile("[\"> ]" + Pattern.quote(name) + "[\"<; ]");
    return texts.values().stream().anyMatch(t -> t.contains(name) && token.matcher(t).find());
  }

  static boolean looksLikePath(String code) {
    if (code.matches(".*[<>$*{}:|?=@,~'\"\\\\].*") || code.contains("...")) {
      return false;
    }
    if (code.startsWith("/")
        || code.startsWith("-")
        || code.startsWith("#")
        || code.startsWith("META-INF/")) {
      return false;
    }
    int dot = code.lastIndexOf('.');
    boolean extension = dot > 0 && EXTENSIONS.contains(code.substring(dot + 1));
    if (code.contains("/")) {
      String head = code.substring(0, code.indexOf('/'));
      if (MIME_TYPES.contains(head) || GRPC_METHOD.matcher(code).matches()) {
        return false;
      }
      // keepAliveTime/Timeout, Builder.forTarget/forAddress: alternatives, not a path; and a
      // path that starts with a host name (github.com/...) is a URL without its scheme.
      for (String segment : code.split("/")) {
        if (NOT_A_PATH_SEGMENT.matcher(segment).matches() && (!extension || segment == head)) {
          return false;
        }
      }
      return true;
    }
    return extension && code.matches("[\\w.-]+");
  }

  private boolean pathExists(String doc, String path) {
    String clean = path.replaceAll("/+$", "");
    if (createdFiles.contains(clean) || externalNames.contains(clean)) {
      return true;
    }
    for (String segment : clean.split("/")) {
      if (SKIPPED_DIRS.contains(segment) || segment.startsWith("target-")) {
        return true;
      }
    }
    Path docDir = root.resolve(doc).getParent();
    if (Files.exists(root.resolve(clean)) || Files.exists(docDir.resolve(clean))) {
      return true;
    }
    String tail = "/" + clean;
    return files.stream().anyMatch(f -> ("/" + f).endsWith(tail))
        || dirs.stream().anyMatch(d -> ("/" + d).endsWith(tail));
  }

  // ---- programs and their flags ---------------------------------------------------------------

  private final Map<String, String> programSources = new HashMap<>();

  private boolean hasFlag(String program, String flag) {
    String sources = programSources.computeIfAbsent(program, this::programSources);
    return sources.contains("--" + flag)
        || sources.contains("\"" + flag + "\"")
        || sources.contains("'" + flag + "'");
  }

  /** The bin script, the Java package of the class it launches and the Python scripts it runs. */
  private String programSources(String program) {
    String script = read(root.resolve("bin/" + program));
    StringBuilder all = new StringBuilder(script);
    Matcher launch = Pattern.compile("launch\\.sh\"?\\s+([\\w-]+)\\s+([\\w.]+)").matcher(script);
    while (launch.find()) {
      String mainClass = launch.group(2);
      String dir = mainClass.substring(0, mainClass.lastIndexOf('.')).replace('.', '/');
      String sourceDir = launch.group(1) + "/src/main/java/" + dir + "/";
      texts.forEach(
          (f, t) -> {
            String r = rel(f);
            if (r.startsWith(sourceDir) && r.indexOf('/', sourceDir.length()) < 0) {
              all.append(t);
            }
          });
    }
    Matcher python = Pattern.compile("([\\w/$\"{}.-]+)/[\\w-]+\\.py").matcher(script);
    Matcher scriptsDir = Pattern.compile("scripts=\"([^\"]+)\"").matcher(script);
    if (python.find() && scriptsDir.find()) {
      String dir = scriptsDir.group(1) + "/";
      texts.forEach(
          (f, t) -> {
            if (rel(f).startsWith(dir) && rel(f).endsWith(".py")) {
              all.append(t);
            }
          });
    }
    return all.toString();
  }

  // ---- links ----------------------------------------------------------------------------------

  private String checkLink(String doc, String target) {
    if (target.matches("[a-zA-Z][\\w+.-]*:.*")) {
      return null;
    }
    int hash = target.indexOf('#');
    String file = hash < 0 ? target : target.substring(0, hash);
    String anchor = hash < 0 ? null : target.substring(hash + 1);
    Path resolved =
        file.isEmpty()
            ? root.resolve(doc)
            : root.resolve(doc).getParent().resolve(file).normalize();
    if (!Files.exists(resolved)) {
      return "links to a file that does not exist";
    }
    if (anchor != null
        && resolved.toString().endsWith(".md")
        && !anchors(resolved).contains(anchor)) {
      return "no heading with the anchor #" + anchor + " in " + rel(resolved);
    }
    return null;
  }

  /** GitHub's anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
  static Set<String> anchors(Path doc) {
    Set<String> anchors = new HashSet<>();
    for (String line : withoutFences(read(doc)).split("\n")) {
      if (!line.matches("#{1,6}\\s.*")) {
        continue;
      }
      String slug =
          line.replaceFirst("#+\\s+", "")
              .trim()
              .toLowerCase(Locale.ROOT)
              .replaceAll("[^\\p{L}\\p{N} _-]", "")
              .replace(' ', '-');
      String unique = slug;
      for (int n = 1; anchors.contains(unique); n++) {
        unique = slug + "-" + n;
      }
      anchors.add(unique);
    }
    return anchors;
  }

  // ---- package maps ---------------------------------------------------------------------------

  private void checkPackageInfos() {
    Map<String, Boolean> javaDirs = new HashMap<>();
    for (String f : files) {
      int src = f.indexOf("/src/main/java/");
      if (!f.startsWith("tern-") || src < 0 || !f.endsWith(".java") || f.indexOf('/') != src) {
        continue;
      }
      String dir = f.substring(0, f.lastIndexOf('/'));
      String name = f.substring(f.lastIndexOf('/') + 1);
      if (!name.equals("module-info.java")) {
        javaDirs.merge(dir, name.equals("package-info.java"), Boolean::logicalOr);
      }
    }
    new TreeSet<>(javaDirs.keySet())
        .stream()
            .filter(dir -> !javaDirs.get(dir))
            .forEach(dir -> findings.add(dir + ": no package-info.java (the package's map)"));
  }

  // ---- small helpers --------------------------------------------------------------------------

  private String rel(Path p) {
    return root.relativize(p).toString().replace('\\', '/');
  }

  static String extension(String file) {
    int dot = file.lastIndexOf('.');
    return dot < file.lastIndexOf('/') + 1 ? "" : file.substring(dot + 1);
  }

  static int lineOf(String text, int offset) {
    int line = 1;
    for (int i = 0; i < offset; i++) {
      if (text.charAt(i) == '\n') {
        line++;
      }
    }
    return line;
  }

  static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }
}
