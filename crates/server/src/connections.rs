//! Accepting and serving connections, bounded: a cap on open connections where idle ones make room
//! for new clients ([`crate::admission`]; 503 only when every place is busy), a time limit for a
//! request's headers that also closes idle keep-alive connections, an answer counted in flight
//! until the socket has taken its last byte, a write timeout for clients that stop reading their
//! answer, answers to clients that half-close after sending, and a graceful stop that finishes
//! what is in flight within a deadline.

use crate::admission::{Activity, Admission, Place};
use axum::response::Response;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

/// How long things may take, and how many connections may be open.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Open connections across all threads. Past it, a new one takes the place of an idle
    /// connection (see `admission`'s order); it is answered 503 only when all are busy.
    pub max_connections: usize,
    /// A connection with no request in flight for longer than this (idle between requests, or
    /// still sending a request's headers) is closed, within a quarter of it.
    pub idle_timeout: Duration,
    /// A request's body must arrive within this once its headers have.
    pub body_timeout: Duration,
    /// A connection whose answer makes no progress into the socket for this long (its client
    /// stopped reading) is closed, and the answer's memory given back.
    pub write_timeout: Duration,
    /// Bytes that answers not yet taken by their clients may hold before large reads are refused
    /// with a retryable 503 (see `held_answers`).
    pub answer_memory: usize,
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
            write_timeout: Duration::from_secs(30),
            answer_memory: 256 * 1024 * 1024,
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/x-amz-json-1.0\r\nconnection: close\r\ncontent-length: 144\r\n\r\n{\"__type\":\"com.amazon.coral.service#ServiceUnavailableException\",\"message\":\"dynalab serve has too many open connections; try again in a moment\"}";

/// Serves `answer` (a request's response, for every request) on `listener` until `stop` turns
/// true; then stops accepting, lets in-flight requests finish within the grace period, and returns.
pub async fn serve<A, F>(
    listener: TcpListener,
    answer: A,
    limits: Limits,
    admission: Admission,
    mut stop: watch::Receiver<bool>,
) -> std::io::Result<()>
where
    A: Fn(hyper::Request<Incoming>) -> F + Clone + Send + 'static,
    F: Future<Output = Response> + Send + 'static,
{
    let mut connections = JoinSet::new();
    let every = limits.idle_timeout.min(limits.write_timeout) / 4;
    let mut sweep = tokio::time::interval(every.clamp(Duration::from_millis(50), Duration::from_secs(1)));
    sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = sweep.tick() => admission.close_idle(limits.idle_timeout, limits.write_timeout),
            accepted = listener.accept() => {
                let Ok((stream, peer)) = accepted else {
                    // Out of file descriptors or a connection reset before it was accepted: keep
                    // serving the connections already open, and try again shortly.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                };
                match admission.admit(peer.ip(), limits.max_connections) {
                    Some(place) => {
                        let (answer, stop) = (answer.clone(), stop.clone());
                        connections.spawn(serve_one(stream, answer, stop, place));
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

async fn serve_one<A, F>(stream: TcpStream, answer: A, mut stop: watch::Receiver<bool>, place: Place)
where
    A: Fn(hyper::Request<Incoming>) -> F + Send + 'static,
    F: Future<Output = Response> + Send + 'static,
{
    let _ = stream.set_nodelay(true);
    let activity = place.activity.clone();
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        // Counted from its headers until its answer's last byte: a connection with no request in
        // flight (idle, or still sending headers) can be closed at once, at a stop or to make room.
        let busy = activity.request();
        let answered = answer(request);
        async move {
            let response = answered.await;
            Ok::<_, std::convert::Infallible>(response.map(|body| {
                axum::body::Body::new(http_body_util::BodyExt::map_err(body, move |error| {
                    let _held = &busy;
                    error
                }))
            }))
        }
    });
    // No header-read timer: hyper would arm and disarm one on every request. The idle sweep in
    // `serve` closes connections with no request in flight past `idle_timeout` instead.
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.half_close(true).keep_alive(true);
    let watched = Watched { stream, activity: place.activity.clone() };
    let connection = builder.serve_connection(TokioIo::new(watched), service);
    tokio::pin!(connection);
    // Asked to close: idle too long, another client needs the place, or the server stops.
    let asked = async {
        tokio::select! {
            () = place.activity.evicted() => {}
            () = stopped(&mut stop) => {}
        }
    };
    tokio::select! {
        _ = connection.as_mut() => {}
        () = asked => {
            if !place.activity.is_busy() || place.activity.is_abandoned() {
                // Nothing was asked that could be answered, or its client stopped reading the
                // answer: dropping the connection closes it.
                return;
            }
            // Finish the request in flight (one that raced in included), then close.
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
    }
}

/// A connection's socket, watched: hyper takes an answer's body whole and may still hold it, so
/// a request ends when the socket has taken the last byte (a completed flush), and a write the
/// socket takes nothing of starts the write timeout's clock.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Watched {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.activity.wrote(polled.is_pending());
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.activity.wrote(polled.is_pending());
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.stream).poll_flush(cx);
        if let Poll::Ready(Ok(())) = polled {
            self.activity.flushed();
        }
        polled
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
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
}
