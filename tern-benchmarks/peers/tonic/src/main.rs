//! A tonic server of grpc.testing.BenchmarkService for bin/bench-compare's server-only part: the
//! qps benchmark's UnaryCall (answers a SimpleRequest with a SimpleResponse whose payload has
//! `response_size` zero bytes, as the qps servers of grpc-java and Tern do) and StreamingCall
//! (ping-pong: one such response per request, in order). Tokio's multi-threaded runtime, one
//! worker per CPU the process may run on unless `--worker_threads=N`; tonic's default server
//! settings otherwise. Prints one line once it listens; runs until SIGTERM or SIGINT.
//!
//!     tonic-bench-server --address=127.0.0.1:PORT [--worker_threads=N]

use std::net::SocketAddr;

use tokio::net::TcpListener;
use tokio::signal::unix::{signal, SignalKind};
use tokio_stream::StreamExt;
use tonic::codegen::BoxStream;
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status, Streaming};

// messages.proto also has the interop tests' messages, which this server never builds.
#[allow(dead_code)]
mod proto {
    tonic::include_proto!("grpc.testing");
}

use proto::benchmark_service_server::{BenchmarkService, BenchmarkServiceServer};
use proto::{Payload, SimpleRequest, SimpleResponse};

struct Benchmark;

/// The answer to one request: `response_size` zero bytes of the requested payload type.
fn answer(request: &SimpleRequest) -> Result<SimpleResponse, Status> {
    let size = usize::try_from(request.response_size)
        .map_err(|_| Status::invalid_argument("negative response_size"))?;
    Ok(SimpleResponse {
        payload: Some(Payload {
            r#type: request.response_type,
            body: vec![0; size],
        }),
        ..Default::default()
    })
}

#[tonic::async_trait]
impl BenchmarkService for Benchmark {
    async fn unary_call(
        &self,
        request: Request<SimpleRequest>,
    ) -> Result<Response<SimpleResponse>, Status> {
        answer(request.get_ref()).map(Response::new)
    }

    async fn streaming_call(
        &self,
        request: Request<Streaming<SimpleRequest>>,
    ) -> Result<Response<BoxStream<SimpleResponse>>, Status> {
        // Each request read becomes the next response; the call ends when the client half-closes.
        let responses = request
            .into_inner()
            .map(|received| received.and_then(|r| answer(&r)));
        Ok(Response::new(Box::pin(responses)))
    }
}

struct Flags {
    address: SocketAddr,
    worker_threads: Option<usize>,
}

fn parse_flags() -> Result<Flags, String> {
    let mut flags = Flags {
        address: SocketAddr::from(([127, 0, 0, 1], 0)),
        worker_threads: None,
    };
    for arg in std::env::args().skip(1) {
        let (name, value) = arg
            .split_once('=')
            .ok_or_else(|| format!("flag {arg} has no =VALUE"))?;
        match name {
            "--address" => {
                flags.address = value
                    .parse()
                    .map_err(|e| format!("--address={value}: {e}"))?
            }
            "--worker_threads" => match value.parse::<usize>() {
                Ok(n) if n >= 1 => flags.worker_threads = Some(n),
                _ => {
                    return Err(format!(
                        "--worker_threads={value}: not a count of 1 or more"
                    ))
                }
            },
            _ => return Err(format!("unknown flag {name}")),
        }
    }
    Ok(flags)
}

fn main() {
    let flags = parse_flags().unwrap_or_else(|message| {
        eprintln!("tonic-bench-server: {message}; flags: --address=HOST:PORT --worker_threads=N");
        std::process::exit(2);
    });
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = flags.worker_threads {
        runtime.worker_threads(n);
    }
    let runtime = runtime.enable_all().build().expect("tokio runtime");
    if let Err(e) = runtime.block_on(serve(flags.address)) {
        eprintln!("tonic-bench-server: {e}");
        std::process::exit(1);
    }
}

async fn serve(address: SocketAddr) -> Result<(), Box<dyn std::error::Error>> {
    let listener = TcpListener::bind(address).await?;
    println!(
        "tonic benchmark server listening on {}",
        listener.local_addr()?
    );
    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    let stopped = async move {
        tokio::select! {
            _ = terminate.recv() => {}
            _ = interrupt.recv() => {}
        }
    };
    // TCP_NODELAY on accepted sockets, as tonic's own serve(address) sets by default.
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    tonic::transport::Server::builder()
        .add_service(BenchmarkServiceServer::new(Benchmark))
        .serve_with_incoming_shutdown(incoming, stopped)
        .await?;
    Ok(())
}
