package dev.tern.compiler;

import static dev.tern.compiler.ServiceGenerator.STUB;
import static dev.tern.compiler.ServiceGenerator.TERN;
import static dev.tern.compiler.ServiceGenerator.deprecated;

/**
 * Writes the blocking server side nested in a {@code <Service>Tern} class: the {@code
 * BlockingService} interface (unary methods return the response, streaming ones read from a {@code
 * BlockingServerReader} and write to a {@code BlockingServerWriter}; every method answers {@code
 * UNIMPLEMENTED} until overridden) and the two {@code bindBlockingService} methods. One instance
 * per class, one thread.
 */
final class BlockingServiceWriter {
  private static final String CALLS = STUB + "BlockingServerCalls";

  private final ServiceModel model;

  BlockingServiceWriter(ServiceModel model) {
    this.model = model;
  }

  void writeBlockingService(SourceWriter out) {
    out.blank();
    out.javadoc(
        "The server side of {@code "
            + model.fullServiceName
            + "} in blocking style, each call on a thread of its own (a virtual thread where the"
            + " JDK has them): every method answers {@code UNIMPLEMENTED} until overridden. Add an"
            + " implementation to a server as it is ({@link #bindService()}) or with an executor"
            + " of your choice ({@code bindBlockingService}).",
        model.serviceComment);
    out.open("public interface BlockingService extends " + TERN + "BindableService");
    for (ServiceModel.Method method : model.methods) {
      out.javadoc("Handles {@code " + method.protoName() + "}.", method.comment());
      deprecated(out, method);
      out.open(
          "default "
              + (method.serverStreaming() ? "void" : method.responseType())
              + " "
              + method.javaName()
              + "("
              + parameters(method)
              + ") throws java.lang.Exception");
      out.line("throw " + CALLS + ".unimplemented(" + model.staticCall(method.getterName()) + ");");
      out.close();
      out.blank();
    }
    out.javadoc(
        "Returns the definition serving this implementation, each call on {@code"
            + " dev.tern.stub.BlockingExecutors.defaultExecutor()}.",
        "");
    out.line("@java.lang.Override");
    out.open("default " + TERN + "ServerServiceDefinition bindService()");
    out.line(
        "return "
            + model.className
            + ".bindBlockingService(this, "
            + STUB
            + "BlockingExecutors.defaultExecutor());");
    out.close();
    out.close();
  }

  private String parameters(ServiceModel.Method method) {
    String reader = STUB + "BlockingServerReader<" + method.requestType() + "> " + model.requests;
    String writer = STUB + "BlockingServerWriter<" + method.responseType() + "> " + model.responses;
    String request = method.clientStreaming() ? reader : method.requestType() + " " + model.request;
    return method.serverStreaming() ? request + ", " + writer : request;
  }

  void writeBindBlockingService(SourceWriter out) {
    ServiceGenerator.writeBindMethod(
        out,
        model,
        "/** Returns the definition that serves {@code "
            + model.serviceParameter
            + "}, each call on {@code "
            + model.executor
            + "}. */",
        "bindBlockingService",
        "BlockingService",
        CALLS,
        "");
  }
}
