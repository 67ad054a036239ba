//! Generates the messages and the server side of grpc.testing.BenchmarkService from tern-interop's
//! protos (the same files Tern's and grpc-java's qps tools are built from), with the protoc that
//! the protoc-bin-vendored crate ships.
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protos =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tern-interop/src/main/proto");
    let service = protos.join("grpc/testing/benchmark_service.proto");
    // Cargo runs a build script on one thread: nothing reads the environment concurrently.
    std::env::set_var("PROTOC", protoc_bin_vendored::protoc_bin_path()?);
    tonic_prost_build::configure()
        .build_client(false)
        // UnaryCall and StreamingCall are served; the service's other methods answer UNIMPLEMENTED.
        .generate_default_stubs(true)
        .compile_protos(&[service], &[protos])?;
    Ok(())
}
