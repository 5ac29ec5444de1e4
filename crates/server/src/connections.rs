//! Accepting and serving connections, bounded: a cap on open connections (one more is answered 503
//! and closed), a time limit for a request's headers that also closes idle keep-alive connections,
//! answers to clients that half-close after sending, and a graceful stop that finishes what is in
//! flight within a deadline.

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tower::ServiceExt;

/// How long things may take, and how many connections may be open.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Open connections across all threads; one more is answered 503.
    pub max_connections: usize,
    /// A request's headers must arrive within this, and an idle connection is closed after it.
    pub idle_timeout: Duration,
    /// A request's body must arrive within this once its headers have.
    pub body_timeout: Duration,
    /// After a stop is asked for, in-flight requests have this long to finish.
    pub shutdown_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            // Below the usual 1,024 open files a process may have, with room for the log and the listener.
            max_connections: 768,
            idle_timeout: Duration::from_secs(60),
            body_timeout: Duration::from_secs(60),
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// Counts the open connections of every thread of one server.
#[derive(Debug, Clone, Default)]
pub struct ConnectionCount(Arc<AtomicUsize>);

/// One open connection, counted until dropped.
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl ConnectionCount {
    fn admit(&self, max: usize) -> Option<Counted> {
        let admitted = self.0.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < max).then_some(n + 1)).is_ok();
        admitted.then(|| Counted(self.0.clone()))
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/x-amz-json-1.0\r\nconnection: close\r\ncontent-length: 144\r\n\r\n{\"__type\":\"com.amazon.coral.service#ServiceUnavailableException\",\"message\":\"dynalab serve has too many open connections; try again in a moment\"}";

/// Serves `router` on `listener` until `stop` turns true; then stops accepting, lets in-flight
/// requests finish within the grace period, and returns.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    count: ConnectionCount,
    mut stop: watch::Receiver<bool>,
) -> std::io::Result<()> {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else {
                    // Out of file descriptors or a connection reset before it was accepted: keep
                    // serving the connections already open, and try again shortly.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                };
                match count.admit(limits.max_connections) {
                    Some(counted) => {
                        let (router, limits, stop) = (router.clone(), limits.clone(), stop.clone());
                        connections.spawn(serve_one(stream, router, limits, stop, counted));
                    }
                    None => {
                        connections.spawn(refuse(stream));
                    }
                }
            }
            () = stopped(&mut stop) => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    let drained =
        tokio::time::timeout(limits.shutdown_grace, async { while connections.join_next().await.is_some() {} }).await;
    if drained.is_err() {
        eprintln!("dynalab: {} connection(s) still busy after the grace period; closing them", connections.len());
        connections.abort_all();
    }
    Ok(())
}

async fn serve_one(
    stream: TcpStream,
    router: Router,
    limits: Limits,
    mut stop: watch::Receiver<bool>,
    _counted: Counted,
) {
    let _ = stream.set_nodelay(true);
    // Requests whose headers have arrived and whose answer is not yet sent: at a stop, a
    // connection with none (idle, or still sending headers) is closed at once, not waited for.
    let in_flight = Arc::new(AtomicUsize::new(0));
    let counter = in_flight.clone();
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let guard = InFlight::enter(&counter);
        let answer = router.clone().oneshot(request);
        async move {
            // The guard lives in the answer's body: it counts until the last byte is handed on.
            let response = answer.await?;
            Ok::<_, std::convert::Infallible>(response.map(|body| {
                axum::body::Body::new(http_body_util::BodyExt::map_err(body, move |error| {
                    let _held = &guard;
                    error
                }))
            }))
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(limits.idle_timeout).half_close(true).keep_alive(true);
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(connection);
    tokio::select! {
        _ = connection.as_mut() => {}
        () = stopped(&mut stop) => {
            if in_flight.load(Ordering::SeqCst) == 0 {
                // Nothing was asked that could be answered: dropping the connection closes it.
                return;
            }
            // Finish the request in flight, then close.
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
    }
}

/// One request being answered, counted while it lives.
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn enter(counter: &Arc<AtomicUsize>) -> Self {
        counter.fetch_add(1, Ordering::SeqCst);
        Self(counter.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Waits until a stop is asked for (the guard `wait_for` returns must not be held across awaits).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|stop| *stop).await;
}

async fn refuse(mut stream: TcpStream) {
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = stream.write_all(BUSY).await;
        let _ = stream.shutdown().await;
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_busy_answer_is_well_formed() {
        let text = std::str::from_utf8(BUSY).expect("ascii");
        let (head, body) = text.split_once("\r\n\r\n").expect("head and body");
        let length: usize =
            head.lines().find_map(|l| l.strip_prefix("content-length: ")).and_then(|n| n.parse().ok()).expect("length");
        assert_eq!(length, body.len());
        serde_json::from_str::<serde_json::Value>(body).expect("json body");
    }

    #[test]
    fn the_count_admits_up_to_the_cap_and_frees_on_drop() {
        let count = ConnectionCount::default();
        let first = count.admit(2).expect("first");
        let _second = count.admit(2).expect("second");
        assert!(count.admit(2).is_none());
        drop(first);
        assert!(count.admit(2).is_some());
    }
}
