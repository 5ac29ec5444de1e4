//! `dynalab serve`: the engine behind DynamoDB's HTTP API until Ctrl-C or SIGTERM.

use dynalab_engine::{Engine, SystemClock};
use dynalab_server::persistence::WriteLog;
use dynalab_server::AppState;
use std::sync::Arc;

/// Runs the server on a one-thread runtime.
pub fn run(host: &str, port: u16, data_dir: Option<&std::path::Path>) -> std::io::Result<()> {
    // One thread: every operation takes the engine's one lock anyway, and on a small machine the
    // load generator needs the other core; measured ~20% less CPU per request than work stealing.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(serve(host, port, data_dir))
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
