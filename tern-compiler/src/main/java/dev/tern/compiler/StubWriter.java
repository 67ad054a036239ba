package dev.tern.compiler;

import static dev.tern.compiler.ServiceGenerator.STUB;
import static dev.tern.compiler.ServiceGenerator.TERN;
import static dev.tern.compiler.ServiceGenerator.deprecated;
import static dev.tern.compiler.ServiceGenerator.observer;

/**
 * Writes the client stubs nested in a {@code <Service>Tern} class: the async stub (every method),
 * the blocking stub (unary and server-streaming methods), the blocking V2 stub (every method) and
 * the future stub (unary methods), each extending the matching {@code dev.tern.stub} base class.
 * One instance per class, one thread.
 */
final class StubWriter {
  private final ServiceModel model;

  StubWriter(ServiceModel model) {
    this.model = model;
  }

  private void writeStubClass(SourceWriter out, String stubClass, String base, String summary) {
    out.blank();
    out.javadoc(summary, model.serviceComment);
    out.open(
        "public static final class "
            + stubClass
            + " extends "
            + STUB
            + base
            + "<"
            + stubClass
            + ">");
    String params =
        TERN + "Channel " + model.channel + ", " + TERN + "CallOptions " + model.callOptions;
    out.open("private " + stubClass + "(" + params + ")");
    out.line("super(" + model.channel + ", " + model.callOptions + ");");
    out.close();
    out.blank();
    out.line("@java.lang.Override");
    out.open("protected " + stubClass + " build(" + params + ")");
    out.line("return new " + stubClass + "(" + model.channel + ", " + model.callOptions + ");");
    out.close();
  }

  void writeAsyncStub(SourceWriter out) {
    writeStubClass(
        out,
        model.nested("Stub"),
        "AbstractAsyncStub",
        "Calls {@code "
            + model.fullServiceName
            + "} asynchronously, reporting to {@code StreamObserver}s.");
    for (ServiceModel.Method method : model.methods) {
      out.blank();
      out.javadoc("Calls {@code " + method.protoName() + "}.", method.comment());
      deprecated(out, method);
      String call = newCall(method);
      if (method.clientStreaming()) {
        out.open(
            "public "
                + observer(method.requestType())
                + " "
                + method.javaName()
                + "("
                + observer(method.responseType())
                + " "
                + model.responseObserver
                + ")");
        String helper =
            method.serverStreaming() ? "asyncBidiStreamingCall" : "asyncClientStreamingCall";
        out.line("return " + STUB + "ClientCalls." + helper + "(");
        out.indent().line(call + ", " + model.responseObserver + ");").outdent();
      } else {
        out.open(
            "public void "
                + method.javaName()
                + "("
                + method.requestType()
                + " "
                + model.request
                + ", "
                + observer(method.responseType())
                + " "
                + model.responseObserver
                + ")");
        String helper = method.serverStreaming() ? "asyncServerStreamingCall" : "asyncUnaryCall";
        out.line(STUB + "ClientCalls." + helper + "(");
        out.indent()
            .line(call + ", " + model.request + ", " + model.responseObserver + ");")
            .outdent();
      }
      out.close();
    }
    out.close();
  }

  void writeBlockingStub(SourceWriter out) {
    writeStubClass(
        out,
        model.nested("BlockingStub"),
        "AbstractBlockingStub",
        "Calls the unary and server-streaming methods of {@code "
            + model.fullServiceName
            + "}, blocking the calling thread.");
    for (ServiceModel.Method method : model.methods) {
      if (method.clientStreaming()) {
        continue; // a blocking API cannot stream requests while waiting for responses
      }
      out.blank();
      out.javadoc("Calls {@code " + method.protoName() + "}.", method.comment());
      deprecated(out, method);
      String returnType =
          method.serverStreaming()
              ? "java.util.Iterator<" + method.responseType() + ">"
              : method.responseType();
      String helper =
          method.serverStreaming() ? "blockingServerStreamingCall" : "blockingUnaryCall";
      openRequestMethod(out, returnType, method, "");
      out.line("return " + STUB + "ClientCalls." + helper + "(");
      out.indent();
      out.line(
          "getChannel(), "
              + model.className
              + "."
              + method.getterName()
              + "(), getCallOptions(), "
              + model.request
              + ");");
      out.outdent();
      out.close();
    }
    out.close();
  }

  void writeBlockingV2Stub(SourceWriter out) {
    writeStubClass(
        out,
        model.nested("BlockingV2Stub"),
        "AbstractBlockingStub",
        "Calls every method of {@code "
            + model.fullServiceName
            + "} in blocking style: unary methods return the response, streaming ones a {@code"
            + " BlockingClientCall} to write and read through (cheap to block on a virtual"
            + " thread).");
    for (ServiceModel.Method method : model.methods) {
      out.blank();
      out.javadoc("Calls {@code " + method.protoName() + "}.", method.comment());
      deprecated(out, method);
      String getter = model.className + "." + method.getterName() + "()";
      String call =
          STUB + "BlockingClientCall<" + method.requestType() + ", " + method.responseType() + ">";
      if (!method.clientStreaming() && !method.serverStreaming()) {
        openRequestMethod(
            out, method.responseType(), method, " throws " + TERN + "StatusException");
        out.line("return " + STUB + "ClientCalls.blockingV2UnaryCall(");
        out.indent()
            .line("getChannel(), " + getter + ", getCallOptions(), " + model.request + ");")
            .outdent();
      } else if (!method.clientStreaming()) {
        openRequestMethod(out, call, method, "");
        out.line("return " + STUB + "ClientCalls.blockingV2ServerStreamingCall(");
        out.indent()
            .line("getChannel(), " + getter + ", getCallOptions(), " + model.request + ");")
            .outdent();
      } else {
        String helper =
            method.serverStreaming() ? "blockingBidiStreamingCall" : "blockingClientStreamingCall";
        out.open("public " + call + " " + method.javaName() + "()");
        out.line(
            "return "
                + STUB
                + "ClientCalls."
                + helper
                + "(getChannel(), "
                + getter
                + ", getCallOptions());");
      }
      out.close();
    }
    out.close();
  }

  void writeFutureStub(SourceWriter out) {
    writeStubClass(
        out,
        model.nested("FutureStub"),
        "AbstractFutureStub",
        "Calls the unary methods of {@code "
            + model.fullServiceName
            + "}, returning {@code CompletableFuture}s.");
    for (ServiceModel.Method method : model.methods) {
      if (method.clientStreaming() || method.serverStreaming()) {
        continue; // a future holds exactly one response
      }
      out.blank();
      out.javadoc("Calls {@code " + method.protoName() + "}.", method.comment());
      deprecated(out, method);
      out.open(
          "public java.util.concurrent.CompletableFuture<"
              + method.responseType()
              + "> "
              + method.javaName()
              + "("
              + method.requestType()
              + " "
              + model.request
              + ")");
      out.line(
          "return "
              + STUB
              + "ClientCalls.futureUnaryCall("
              + newCall(method)
              + ", "
              + model.request
              + ");");
      out.close();
    }
    out.close();
  }

  /** Opens {@code public <returnType> <name>(<Request> request)<throwsClause>}. */
  private void openRequestMethod(
      SourceWriter out, String returnType, ServiceModel.Method method, String throwsClause) {
    out.open(
        "public "
            + returnType
            + " "
            + method.javaName()
            + "("
            + method.requestType()
            + " "
            + model.request
            + ")"
            + throwsClause);
  }

  private String newCall(ServiceModel.Method method) {
    return "getChannel().newCall("
        + model.className
        + "."
        + method.getterName()
        + "(), getCallOptions())";
  }
}
