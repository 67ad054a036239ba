/**
 * {@code protoc-gen-tern}, the protoc plugin that writes a {@code <Service>Tern} class for each
 * proto service.
 *
 * <pre>
 * ProtocGenTern          main: CodeGeneratorRequest from stdin, CodeGeneratorResponse to stdout
 *   -> TernCodeGenerator a Java file per service of each file to generate; problems go
 *                        into the response's error field (GenerationException), never thrown
 *   -> JavaTypeResolver  the Java class java_out makes of every message (java_package,
 *                        java_multiple_files, java_outer_classname, the default outer class)
 *   -> ServiceModel      every name the class uses, chosen and mangled once (JavaNames)
 *   -> ServiceGenerator  descriptors, AsyncService, ImplBase, bindService
 *        BlockingServiceWriter   the blocking server interface
 *        StubWriter              the async, blocking, blocking V2 and future stubs
 *   SourceWriter, SourceComments   indentation; the proto's comments as Javadoc
 * </pre>
 *
 * <p>Threads: one, protoc's single call of the plugin. The writers and {@code SourceWriter} hold
 * state for one class and are not thread-safe; {@code TernCodeGenerator} is stateless.
 */
package dev.tern.compiler;
