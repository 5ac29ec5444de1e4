//! `dynalab serve`: the engine behind DynamoDB's HTTP API until Ctrl-C or SIGTERM.

use dynalab_engine::{Engine, SystemClock};
use dynalab_server::persistence::WriteLog;
use dynalab_server::AppState;
use std::sync::Arc;
use tokio::sync::watch;

/// Runs the server: one thread per core, each with its own one-thread runtime taking connections
/// from the shared listener. A connection stays on the thread that accepted it: every operation
/// takes the engine's one lock anyway, and tokio's work-stealing runtime measured ~20% more CPU
/// per request than threads that keep their connections.
pub fn run(host: &str, port: u16, data_dir: Option<&std::path::Path>) -> std::io::Result<()> {
    let state = match data_dir {
        None => AppState::new(Engine::new(Arc::new(SystemClock))),
        Some(dir) => {
            let (log, engine) = WriteLog::open(dir).map_err(std::io::Error::other)?;
            AppState::with_log(engine, Some(log))
        }
    };
    let listener = std::net::TcpListener::bind((host, port))?;
    listener.set_nonblocking(true)?;
    let address = listener.local_addr()?;
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let (stop, stopped) = watch::channel(false);
    let mut workers = Vec::new();
    for n in 1..threads {
        let (listener, state, stopped) = (listener.try_clone()?, state.clone(), stopped.clone());
        let worker = std::thread::Builder::new().name(format!("dynalab-serve-{n}")).spawn(move || {
            one_thread_runtime()?.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener)?;
                dynalab_server::serve_connections(listener, state, stop_requested(stopped)).await
            })
        })?;
        workers.push(worker);
    }
    println!("dynalab serving DynamoDB on http://{address}");
    // This thread also watches for the signal and runs the TTL sweep.
    let mut outcome = one_thread_runtime()?.block_on(async move {
        tokio::spawn(async move {
            shutdown_signal().await;
            let _ = stop.send(true);
        });
        let listener = tokio::net::TcpListener::from_std(listener)?;
        dynalab_server::serve(listener, state, stop_requested(stopped)).await
    });
    for worker in workers {
        let finished = worker.join().unwrap_or_else(|_| Err(std::io::Error::other("a server thread panicked")));
        outcome = outcome.and(finished);
    }
    outcome
}

fn one_thread_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_all().build()
}

async fn stop_requested(mut stopped: watch::Receiver<bool>) {
    let _ = stopped.wait_for(|stop| *stop).await;
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
