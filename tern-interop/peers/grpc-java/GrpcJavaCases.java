import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs several of grpc-java's interop cases in one JVM: {@code --test_case=a,b,c} and otherwise the
 * flags of grpc-java's {@code io.grpc.testing.integration.TestServiceClient}, which takes one case
 * a run. Each case gets a client of its own, set up, run and torn down as that program's main does
 * it, and one line: {@code PASS <case>} or {@code FAIL <case>: <why>}. The exit status is 1 if a
 * case failed.
 *
 * <p>Launched by {@code ../grpc-java-cases.sh} with the source launcher, on grpc-java's class path
 * ({@code ../grpc-java-classpath.sh}). The client's steps are not public, so they are called by
 * reflection; a new grpc-java that renames them fails every case with that message. A case that has
 * not ended after {@value #CASE_TIMEOUT_S} s ends the run (its line says so), since its client can
 * no longer be torn down.
 */
public final class GrpcJavaCases {
  private static final String CLIENT = "io.grpc.testing.integration.TestServiceClient";
  private static final long CASE_TIMEOUT_S = 170;

  private GrpcJavaCases() {}

  public static void main(String[] args) throws Exception {
    List<String> flags = new ArrayList<>();
    List<String> cases = new ArrayList<>();
    for (String arg : args) {
      if (arg.startsWith("--test_case=")) {
        for (String name : arg.substring("--test_case=".length()).split(",")) {
          if (!name.isEmpty()) {
            cases.add(name);
          }
        }
      } else {
        flags.add(arg);
      }
    }
    if (cases.isEmpty()) {
      System.err.println(
          "usage: GrpcJavaCases --test_case=NAME[,NAME...] [TestServiceClient flags]");
      System.exit(2);
    }
    ExecutorService runner =
        Executors.newSingleThreadExecutor(
            task -> {
              Thread thread = new Thread(task, "grpc-java-case");
              thread.setDaemon(true);
              return thread;
            });
    boolean failed = false;
    for (String name : cases) {
      List<String> caseArgs = new ArrayList<>(flags);
      caseArgs.add("--test_case=" + name);
      Future<?> run = runner.submit(() -> runCase(caseArgs.toArray(new String[0])));
      try {
        run.get(CASE_TIMEOUT_S, TimeUnit.SECONDS);
        System.out.println("PASS " + name);
      } catch (TimeoutException e) {
        System.out.println("FAIL " + name + ": no end after " + CASE_TIMEOUT_S + " s");
        System.out.flush();
        System.exit(1);
      } catch (java.util.concurrent.ExecutionException e) {
        failed = true;
        System.out.println("FAIL " + name + ": " + describe(e.getCause()));
      }
      System.out.flush();
    }
    System.exit(failed ? 1 : 0);
  }

  /** One case, as TestServiceClient's main runs it: parse, set up, run, then tear down. */
  private static Void runCase(String[] args) throws Exception {
    Class<?> type = Class.forName(CLIENT);
    Object client = type.getConstructor().newInstance();
    call(type, client, "parseArgs", (Object) args);
    call(type, client, "setUp");
    try {
      call(type, client, "run");
    } finally {
      call(type, client, "tearDown");
    }
    return null;
  }

  private static void call(Class<?> type, Object client, String name, Object... args)
      throws Exception {
    Method method =
        args.length == 0
            ? type.getDeclaredMethod(name)
            : type.getDeclaredMethod(name, String[].class);
    method.setAccessible(true);
    try {
      method.invoke(client, args);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception exception) {
        throw exception;
      }
      throw (Error) cause;
    }
  }

  private static String describe(Throwable failure) {
    String text = String.valueOf(failure);
    Throwable cause = failure.getCause();
    return cause == null ? text : text + " (caused by " + cause + ")";
  }
}
