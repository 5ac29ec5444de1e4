//! `dynalab serve`: the engine behind DynamoDB's HTTP API until Ctrl-C or SIGTERM.

use dynalab_engine::{Engine, SystemClock};
use dynalab_server::access::Access;
use dynalab_server::admission::Admission;
use dynalab_server::persistence::WriteLog;
use dynalab_server::{AppState, Limits, Settings};
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::watch;

/// What `dynalab serve` was asked for.
pub struct Options {
    pub host: String,
    pub port: u16,
    pub data_dir: Option<PathBuf>,
    pub cors_origins: Vec<String>,
    pub limits: Limits,
    /// `(access key, secret)` to verify every request's signature with.
    pub credentials: Option<(String, String)>,
}

/// Runs the server: one thread per core, each with its own one-thread runtime taking connections
/// from the shared listener. A connection stays on the thread that accepted it: every operation
/// takes the engine's one lock anyway, and tokio's work-stealing runtime measured ~20% more CPU
/// per request than threads that keep their connections.
pub fn run(options: Options) -> std::io::Result<()> {
    let listener = listen((options.host.as_str(), options.port))?;
    let address = listener.local_addr()?;
    let (log, engine) = match &options.data_dir {
        None => (None, Engine::new(Arc::new(SystemClock))),
        Some(dir) => {
            let (log, engine) = WriteLog::open(dir).map_err(std::io::Error::other)?;
            (Some(log), engine)
        }
    };
    let loopback = address.ip().is_loopback();
    if !loopback {
        eprintln!(
            "dynalab: WARNING: listening on {address}, not a loopback address: anyone who can reach it can read, change and delete every table, with any credentials"
        );
    }
    let settings = Settings {
        address: Some(address.to_string()),
        access: Access { loopback_only: loopback, cors_origins: options.cors_origins },
        limits: options.limits,
        credentials: options.credentials,
    };
    let state = AppState::with_log(engine, log, settings);
    let admission = Admission::default();
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let (stop, stopped) = watch::channel(false);
    let mut workers = Vec::new();
    for n in 1..threads {
        let (listener, state, admission, stopped) =
            (listener.try_clone()?, state.clone(), admission.clone(), stopped.clone());
        let worker = std::thread::Builder::new().name(format!("dynalab-serve-{n}")).spawn(move || {
            one_thread_runtime()?.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener)?;
                dynalab_server::serve(listener, state, admission, stopped, false).await
            })
        })?;
        workers.push(worker);
    }
    crate::stdout(&format!("dynalab serving DynamoDB on http://{address}\n"));
    // This thread also watches for signals and runs the TTL sweep.
    let outcome = one_thread_runtime()?.block_on(async move {
        let mut signals = Signals::new()?;
        tokio::spawn(async move {
            signals.next().await;
            eprintln!("dynalab: stopping (finishing requests in flight; a second Ctrl-C stops at once)");
            let _ = stop.send(true);
            signals.next().await;
            eprintln!("dynalab: stopped at once");
            // Every acknowledged write is already in the log; the lock goes with the process.
            std::process::exit(130);
        });
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let served = dynalab_server::serve(listener, state, admission, stopped, true).await;
        // The other threads may still be finishing their requests in flight: wait for them here,
        // on this runtime, so the signal task above still answers a second signal meanwhile.
        let joined = tokio::task::spawn_blocking(move || {
            workers.into_iter().try_for_each(|worker| {
                worker.join().unwrap_or_else(|_| Err(std::io::Error::other("a server thread panicked")))
            })
        })
        .await
        .unwrap_or_else(|_| Err(std::io::Error::other("a server thread panicked")));
        served.and(joined)
    });
    outcome
}

fn one_thread_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    // Requests that may run long (Scans, batches) run on the blocking pool; a few threads per
    // core keep the answers being built at once, and so their memory, bounded.
    tokio::runtime::Builder::new_current_thread().enable_all().max_blocking_threads(8).build()
}

/// Ctrl-C or SIGTERM, as a stream: the same listeners see the first signal and the second, so a
/// second one sent at once is not missed.
struct Signals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> std::io::Result<Self> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(Self { interrupt: signal(SignalKind::interrupt())?, terminate: signal(SignalKind::terminate())? })
        }
        #[cfg(not(unix))]
        Ok(Self {})
    }

    async fn next(&mut self) {
        #[cfg(unix)]
        tokio::select! {
            _ = self.interrupt.recv() => {},
            _ = self.terminate.recv() => {},
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// A listener on `address` with room for 1,024 connections waiting to be accepted: with std's 128,
/// a burst of connections (a pool opening, a flood being evicted) has its SYNs dropped and waits a
/// second for the retry.
fn listen(address: impl std::net::ToSocketAddrs) -> std::io::Result<std::net::TcpListener> {
    let mut last_error = None;
    for address in address.to_socket_addrs()? {
        let socket = socket2::Socket::new(socket2::Domain::for_address(address), socket2::Type::STREAM, None)?;
        socket.set_reuse_address(true)?;
        socket.set_nonblocking(true)?;
        match socket.bind(&address.into()).and_then(|()| socket.listen(1024)) {
            Ok(()) => return Ok(socket.into()),
            Err(e) => last_error = Some(e),
        }
    }
    Err(last_error.unwrap_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no address to listen on")))
}
