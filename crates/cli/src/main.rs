//! `dynalab`: the command line. `dynalab serve` is a DynamoDB-compatible endpoint on the engine.
#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};
use dynalab_engine::{Engine, SystemClock};
use dynalab_server::persistence::WriteLog;
use dynalab_server::AppState;
use std::sync::Arc;

#[derive(Parser)]
#[command(name = "dynalab", version, about = "A DynamoDB lab: the engine as an endpoint, a checker, a playground")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve DynamoDB's HTTP API (JSON 1.0) from memory. Any well-formed SigV4 credentials are
    /// accepted and none are checked, as with DynamoDB Local.
    Serve {
        /// Address to bind; the default keeps the endpoint on this machine.
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// Port to listen on (0 picks a free one; the ready line says which).
        #[arg(long, default_value_t = 8000)]
        port: u16,
        /// Keep the data in this directory: every acknowledged write is fsynced to its log and
        /// replayed at the next start. Without it, everything is in memory.
        #[arg(long, value_name = "DIR")]
        data_dir: Option<std::path::PathBuf>,
    },
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    // One thread: every operation takes the engine's one lock anyway, and on a small machine the
    // load generator needs the other core; measured ~20% less CPU per request than work stealing.
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("dynalab: cannot start: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Serve { host, port, data_dir } => serve(&host, port, data_dir.as_deref()).await,
        }
    });
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("dynalab: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn serve(host: &str, port: u16, data_dir: Option<&std::path::Path>) -> std::io::Result<()> {
    let state = match data_dir {
        None => AppState::new(Engine::new(Arc::new(SystemClock))),
        Some(dir) => {
            let (log, engine) = WriteLog::open(dir).map_err(std::io::Error::other)?;
            AppState::with_log(engine, Some(log))
        }
    };
    let listener = tokio::net::TcpListener::bind((host, port)).await?;
    let address = listener.local_addr()?;
    println!("dynalab serving DynamoDB on http://{address}");
    dynalab_server::serve(listener, state, shutdown_signal()).await
}

/// Ctrl-C or SIGTERM: stop accepting, finish what is in flight, exit.
async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
}
