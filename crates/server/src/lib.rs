//! DynamoDB's JSON 1.0 protocol over HTTP: `POST /` with `X-Amz-Target: DynamoDB_20120810.<Operation>`,
//! answered by the engine, with the headers SDKs check (`x-amz-crc32`, `x-amzn-RequestId`).
//!
//! A request is parsed outside the engine's lock ([`Request::parse`]); the lock is held only while
//! the engine applies it and, with `--data-dir`, while a change is made durable ([`persistence`]).
#![forbid(unsafe_code)]

pub mod access;
pub mod admission;
pub mod connections;
pub mod encoding;
pub mod held_answers;
pub mod persistence;
pub mod sigv4;

use access::Access;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use dynalab_engine::{DynamoError, Engine, ErrorKind, Operation, Request};
use held_answers::HeldAnswers;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use hyper::body::Incoming;
use persistence::record::Entry;
use persistence::WriteLog;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

pub use connections::Limits;

/// The largest request body accepted: DynamoDB's own request limit is 16 MB.
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// Requests larger than this are parsed and run on tokio's blocking pool rather than on the
/// thread that serves their connection.
const RUN_ASIDE_BYTES: usize = 256 * 1024;

/// The AWS headers every request reads or every answer carries, named once: a name given as text
/// is parsed and checked again at each use (~600 instructions a time).
static X_AMZ_TARGET: HeaderName = HeaderName::from_static("x-amz-target");
static X_AMZ_DATE: HeaderName = HeaderName::from_static("x-amz-date");
static X_AMZ_CONTENT_SHA256: HeaderName = HeaderName::from_static("x-amz-content-sha256");
static X_AMZ_CRC32: HeaderName = HeaderName::from_static("x-amz-crc32");
static X_AMZN_REQUESTID: HeaderName = HeaderName::from_static("x-amzn-requestid");

/// What every request shares: the engine (one lock makes every operation atomic and every
/// transaction isolated; requests that only read share it, so a long Scan holds up no GetItem),
/// the memory held by answers not yet sent, the server's own address and access rules, and a
/// request counter.
#[derive(Clone)]
pub struct AppState {
    store: Arc<RwLock<Store>>,
    answers: Arc<HeldAnswers>,
    requests: Arc<AtomicU64>,
    settings: Arc<Settings>,
}

/// What a server knows of itself.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The address it listens on, as DescribeEndpoints answers it (`127.0.0.1:8000`).
    pub address: Option<String>,
    pub access: Access,
    pub limits: Limits,
    /// `(access key, secret)`: with them, every request's SigV4 signature is verified; without,
    /// any well-formed signature is accepted, as DynamoDB Local does.
    pub credentials: Option<(String, String)>,
}

/// The engine and, with `--data-dir`, the log its changes go to, under one lock so the log's order
/// is the order the changes were applied in.
struct Store {
    engine: Engine,
    log: Option<WriteLog>,
    /// Set when a failed append left memory ahead of the log and the log could not be replayed:
    /// every request is refused rather than answered from a state the disk does not hold.
    failed: Option<String>,
}

impl AppState {
    /// An in-memory endpoint with default settings.
    pub fn new(engine: Engine) -> Self {
        Self::with_log(engine, None, Settings::default())
    }

    /// An endpoint whose changes are logged (see [`persistence`]).
    pub fn with_log(engine: Engine, log: Option<WriteLog>, settings: Settings) -> Self {
        Self {
            store: Arc::new(RwLock::new(Store { engine, log, failed: None })),
            answers: HeldAnswers::new(settings.limits.answer_memory),
            requests: Arc::new(AtomicU64::new(0)),
            settings: Arc::new(settings),
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }
}

/// The endpoint: DynamoDB's protocol on `POST /`, a health answer on `GET /`, CORS preflights.
pub fn app(state: AppState) -> Router {
    Router::new().route("/", post(dynamodb).get(health).options(preflight)).with_state(state)
}

/// What `serve` answers each request with: [`app`]'s answer. DynamoDB's calls (`POST /`, nearly
/// every request) go straight to their handler; routing them through the `Router` cost more
/// instructions than a GetItem's lookup (its service layers, a boxed future, extensions).
fn answerer(
    state: AppState,
) -> impl Fn(axum::http::Request<Incoming>) -> std::pin::Pin<Box<dyn std::future::Future<Output = Response> + Send>> + Clone
{
    let shared = Arc::new((state.clone(), app(state)));
    move |request: axum::http::Request<Incoming>| {
        let shared = Arc::clone(&shared);
        Box::pin(async move {
            let (state, router) = &*shared;
            if request.method() == Method::POST && request.uri().path() == "/" {
                return dynamodb(State(state.clone()), request.map(Body::new)).await;
            }
            match tower::ServiceExt::oneshot(router.clone(), request).await {
                Ok(response) => response,
                Err(never) => match never {},
            }
        })
    }
}

/// A CORS preflight from an allowed page, shaped as DynamoDB answers one: the requested method
/// and headers echoed as allowed (a `*` would not cover Authorization, which every SDK sends), a
/// max age; without an Origin, no CORS headers at all.
async fn preflight(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(refusal) = state.settings.access.refusal(&headers) {
        return (StatusCode::FORBIDDEN, refusal).into_response();
    }
    let mut response = StatusCode::OK.into_response();
    response.headers_mut().insert(header::SERVER, HeaderValue::from_static("Server"));
    if !headers.contains_key(header::ORIGIN) {
        return response;
    }
    Access::allow_page(&headers, &mut response);
    let answer = response.headers_mut();
    let method = headers.get(header::ACCESS_CONTROL_REQUEST_METHOD).cloned();
    answer.insert(header::ACCESS_CONTROL_ALLOW_METHODS, method.unwrap_or(HeaderValue::from_static("GET,POST,OPTIONS")));
    if let Some(requested) = headers.get(header::ACCESS_CONTROL_REQUEST_HEADERS) {
        answer.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, requested.clone());
    }
    answer.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
    answer.append(
        header::VARY,
        HeaderValue::from_static("access-control-request-method, access-control-request-headers"),
    );
    response
}

/// `GET /`: DynamoDB answers `healthy: <its host name>`; here, the address served.
async fn health(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(refusal) = state.settings.access.refusal(&headers) {
        return (StatusCode::FORBIDDEN, refusal).into_response();
    }
    let address = state.settings.address.as_deref().unwrap_or("127.0.0.1");
    let mut response = format!("healthy: {address}").into_response();
    response.headers_mut().insert(header::SERVER, HeaderValue::from_static("Server"));
    Access::allow_page(&headers, &mut response);
    response
}

async fn dynamodb(State(state): State<AppState>, request: axum::extract::Request) -> Response {
    // Taken apart, not extracted piece by piece: the HeaderMap extractor copies the whole map.
    let (parts, body) = request.into_parts();
    let request_id = request_id(&state);
    let coding =
        encoding::choose(parts.headers.get_all(header::ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok()));
    if let Some(refusal) = state.settings.access.refusal(&parts.headers) {
        // Refused before it runs: a page on another site must not Scan or DeleteTable here.
        return respond(&state, &request_id, Err(DynamoError::new(ErrorKind::Forbidden, refusal)), coding);
    }
    let body = read_body(body, state.settings.limits.body_timeout).await;
    let large = body.as_ref().is_ok_and(|b| b.len() > RUN_ASIDE_BYTES);
    let answered = if large {
        // Decoding and parsing megabytes takes milliseconds: off this thread, whose other
        // connections wait for it otherwise.
        let state = state.clone();
        aside(move || {
            let prepared = prepare(&state, &parts.uri, &parts.headers, body);
            (prepared.and_then(|prepared| run(&state, prepared)), parts.headers)
        })
        .await
    } else {
        match prepare(&state, &parts.uri, &parts.headers, body) {
            // A Scan, a filtered Query, a batch or a transaction may take long: on the blocking
            // pool, so the runtime's threads go on answering the short requests of others.
            Ok(Prepared::Parsed { request, body }) if request.may_run_long() => {
                let state = state.clone();
                aside(move || (run(&state, Prepared::Parsed { request, body }), parts.headers)).await
            }
            prepared => Some((prepared.and_then(|prepared| run(&state, prepared)), parts.headers)),
        }
    };
    let Some((outcome, headers)) = answered else {
        let failed = DynamoError::new(ErrorKind::InternalServerError, "The request failed");
        return respond(&state, &request_id, Err(failed), coding);
    };
    let mut response = respond(&state, &request_id, outcome, coding);
    Access::allow_page(&headers, &mut response);
    response
}

fn request_id(state: &AppState) -> HeaderValue {
    let id = state.requests.fetch_add(1, Ordering::Relaxed);
    // Written digit by digit on the stack: `format!` with hex widths cost more than a GetItem's
    // lookup. At most 16 + 7 + 32 characters.
    let mut text = [0u8; 64];
    let mut end = write_hex(&mut text, 0, u128::from(id), 8);
    text[end..end + 7].copy_from_slice(b"DYNALAB");
    end = write_hex(&mut text, end + 7, u128::from(id).wrapping_mul(0x9E37_79B9_7F4A_7C15), 20);
    // Hexadecimal digits and letters only: always a valid header value.
    HeaderValue::from_bytes(&text[..end]).unwrap_or(HeaderValue::from_static("DYNALAB"))
}

/// Writes `value` in upper-case hexadecimal, zero-padded to at least `width` digits
/// (`{value:0width$X}`), into `text` from `at`; returns where it ends.
fn write_hex(text: &mut [u8; 64], at: usize, value: u128, width: u32) -> usize {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    let significant = (u128::BITS - value.leading_zeros()).div_ceil(4);
    let count = significant.max(width).max(1) as usize;
    for (place, slot) in text[at..at + count].iter_mut().rev().enumerate() {
        *slot = DIGITS[((value >> (place * 4)) & 0xF) as usize];
    }
    at + count
}

/// The body as sent, read whole within the time limit; the size limit stops reading at 16 MiB, so
/// an oversized body never sits in memory whole.
async fn read_body(body: Body, timeout: std::time::Duration) -> Result<Bytes, DynamoError> {
    let mut collecting = std::pin::pin!(Limited::new(body, MAX_BODY_BYTES).collect());
    // A small body has usually arrived with its headers: read it without arming a timer.
    let at_once =
        std::future::poll_fn(|cx| std::task::Poll::Ready(std::future::Future::poll(collecting.as_mut(), cx))).await;
    let collected = match at_once {
        std::task::Poll::Ready(collected) => collected,
        std::task::Poll::Pending => match tokio::time::timeout(timeout, collecting).await {
            Ok(collected) => collected,
            Err(_) => return Err(DynamoError::new(ErrorKind::RequestTimeout, "Timed out reading the request body")),
        },
    };
    match collected {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(error) if error.downcast_ref::<LengthLimitError>().is_some() => Err(DynamoError::new(
            ErrorKind::RequestEntityTooLarge,
            format!("Request body exceeds the limit of {MAX_BODY_BYTES} bytes (16 MiB)"),
        )),
        Err(error) => Err(DynamoError::serialization(format!("The request body could not be read: {error}"))),
    }
}

/// What runs before the engine: the checks of the protocol in DynamoDB's order, the body decoded
/// and parsed into a request.
enum Prepared {
    /// Answered without the engine.
    Answered(String),
    /// A request for the engine, with the body it was parsed from (a write's log entry).
    Parsed { request: Request, body: Bytes },
}

fn prepare(
    state: &AppState,
    uri: &axum::http::Uri,
    headers: &HeaderMap,
    body: Result<Bytes, DynamoError>,
) -> Result<Prepared, DynamoError> {
    let body = body?;
    check_authorization(headers)?;
    if let Some((access_key, secret)) = &state.settings.credentials {
        check_signature(uri, headers, &body, access_key, secret)?;
    }
    let content_encoding = headers.get(header::CONTENT_ENCODING).map(|v| v.to_str().unwrap_or("unreadable"));
    let body = encoding::decode(content_encoding, body, MAX_BODY_BYTES)?;
    let target = headers.get(&X_AMZ_TARGET).and_then(|v| v.to_str().ok()).unwrap_or("");
    let operation = Operation::for_target(target)?;
    if operation == Operation::DescribeEndpoints {
        // Endpoint discovery must lead back here, to the address this server listens on.
        let address = state.settings.address.as_deref().unwrap_or("127.0.0.1");
        let endpoints = serde_json::json!({"Endpoints": [{"Address": address, "CachePeriodInMinutes": 1440}]});
        return Ok(Prepared::Answered(endpoints.to_string()));
    }
    // Parsing and the checks that need no table run before the lock is taken: a huge request
    // delays no one else.
    let request = Request::parse(operation, body_text(&body)?)?;
    Ok(Prepared::Parsed { request, body })
}

fn body_text(body: &Bytes) -> Result<&str, DynamoError> {
    std::str::from_utf8(body).map_err(|_| DynamoError::serialization("Request body is not valid UTF-8"))
}

/// The engine's answer to a prepared request.
fn run(state: &AppState, prepared: Prepared) -> Result<String, DynamoError> {
    match prepared {
        Prepared::Answered(answer) => Ok(answer),
        Prepared::Parsed { request, body } => apply(state, request, &body),
    }
}

/// Runs `work` on the blocking pool; `None` if it panicked there.
async fn aside<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    tokio::task::spawn_blocking(work).await.ok()
}

/// Applies a parsed request: one that only reads under the shared lock, beside other reads; any
/// other under the exclusive lock, where a change is made durable before it is acknowledged, and
/// one that cannot be is undone.
fn apply(state: &AppState, request: Request, body: &Bytes) -> Result<String, DynamoError> {
    let stopped = || DynamoError::new(ErrorKind::InternalServerError, "The engine stopped after an earlier failure");
    // Writes go straight to the exclusive lock: no shared one is taken and dropped first.
    let request = if request.only_reads() {
        let store = state.store.read().map_err(|_| stopped())?;
        if let Some(reason) = &store.failed {
            return Err(DynamoError::new(ErrorKind::InternalServerError, reason.clone()));
        }
        match store.engine.read(request) {
            Ok(read) => return read.response.and_then(|body| room_for(state, body)),
            Err(other) => other,
        }
    } else {
        request
    };
    let mut store = state.store.write().map_err(|_| stopped())?;
    if let Some(reason) = &store.failed {
        return Err(DynamoError::new(ErrorKind::InternalServerError, reason.clone()));
    }
    let operation = request.operation();
    let (at, applied) = store.with_held_clock(|engine| engine.apply(request));
    if let (Some(at), true) = (at, applied.changed) {
        // The body parsed as UTF-8 already: nothing is replaced.
        let body = String::from_utf8_lossy(body).into_owned();
        let entry = Entry::Request { operation: operation.name().to_string(), body };
        store.log_or_undo(at, vec![entry])?;
    }
    applied.response
}

/// A read's answer, unless answers not yet taken by their clients already hold the memory allowed
/// (see [`held_answers`]).
fn room_for(state: &AppState, body: String) -> Result<String, DynamoError> {
    if state.answers.has_room_for(body.len()) {
        return Ok(body);
    }
    Err(DynamoError::new(
        ErrorKind::ServiceUnavailable,
        format!(
            "dynalab serve holds {} MiB of answers its clients have not read yet (the limit is {} MiB); try again in a moment",
            state.answers.held() / (1024 * 1024),
            state.settings.limits.answer_memory / (1024 * 1024)
        ),
    ))
}

impl Store {
    /// Runs `f` on the engine with its clock held at one millisecond (with a log), so what the
    /// engine read of the clock is the time its records replay at. Returns that time.
    fn with_held_clock<T>(&mut self, f: impl FnOnce(&mut Engine) -> T) -> (Option<u64>, T) {
        let at = self.log.as_ref().map(WriteLog::hold_time);
        let outcome = f(&mut self.engine);
        if let Some(log) = &self.log {
            log.release_time();
        }
        (at, outcome)
    }

    /// Appends what the engine just did; if that fails, rebuilds the engine from the log so the
    /// change is undone, and says so.
    fn log_or_undo(&mut self, at_millis: u64, entries: Vec<Entry>) -> Result<(), DynamoError> {
        let Some(log) = self.log.as_mut() else { return Ok(()) };
        let Err(error) = log.append(at_millis, entries) else {
            log.compact_if_grown(&self.engine);
            return Ok(());
        };
        match log.rebuild() {
            Ok(engine) => self.engine = engine,
            Err(reason) => {
                self.failed = Some(format!(
                    "A write could not be logged ({error}) and the state could not be restored from the log ({reason}); restart the server"
                ));
            }
        }
        eprintln!("dynalab: a change could not be written to the log ({error}); it was undone");
        Err(DynamoError::new(
            ErrorKind::InternalServerError,
            format!("The change could not be made durable ({error}); nothing was applied"),
        ))
    }
}

/// SigV4 must be there and complete; its signature is never verified (any credentials work, as
/// with DynamoDB Local). The wording is the real service's, as dynoxide recorded it.
fn check_authorization(headers: &HeaderMap) -> Result<(), DynamoError> {
    let authorization = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
    let Some(auth) = authorization.filter(|a| a.starts_with("AWS4-")) else {
        return Err(DynamoError::new(ErrorKind::MissingAuthenticationToken, "Request is missing Authentication Token"));
    };
    const PARTS: [(&str, &str); 3] =
        [("Credential", "Credential="), ("Signature", "Signature="), ("SignedHeaders", "SignedHeaders=")];
    let dated = headers.contains_key(&X_AMZ_DATE) || headers.contains_key(header::DATE);
    // Every request passes here: the message is made only for one that lacks something.
    if dated && PARTS.iter().all(|(_, marker)| auth.contains(marker)) {
        return Ok(());
    }
    let mut missing: Vec<String> = PARTS
        .iter()
        .filter(|(_, marker)| !auth.contains(marker))
        .map(|(part, _)| format!("Authorization header requires '{part}' parameter."))
        .collect();
    if !dated {
        missing.push("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.".into());
    }
    missing.push(format!("Authorization={auth}"));
    Err(DynamoError::new(ErrorKind::IncompleteSignature, missing.join(" ")))
}

/// Verifies the request's SigV4 signature (over the body as sent, before any decoding).
fn check_signature(
    uri: &axum::http::Uri,
    headers: &HeaderMap,
    body: &[u8],
    access_key: &str,
    secret: &str,
) -> Result<(), DynamoError> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("");
    let authorization = text("authorization");
    let signed: Vec<(String, String)> = sigv4::parse_authorization(authorization)
        .map(|auth| {
            auth.signed_headers
                .iter()
                .map(|name| {
                    let values: Vec<&str> = headers.get_all(*name).iter().filter_map(|v| v.to_str().ok()).collect();
                    ((*name).to_string(), values.join(","))
                })
                .collect()
        })
        .unwrap_or_default();
    let payload_hash = match headers.get(&X_AMZ_CONTENT_SHA256).and_then(|v| v.to_str().ok()) {
        Some(hash) => hash.to_string(),
        None => sigv4::payload_hash(body),
    };
    let canonical = sigv4::Canonical {
        method: "POST",
        path: uri.path(),
        query: uri.query().unwrap_or(""),
        headers: &signed,
        payload_hash: &payload_hash,
    };
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let received = sigv4::Received { authorization, amz_date: text("x-amz-date"), canonical };
    sigv4::verify(&received, access_key, secret, now)
}

/// A response as DynamoDB sends it: JSON 1.0 body, its CRC32, the request id.
fn respond(
    state: &AppState,
    request_id: &HeaderValue,
    outcome: Result<String, DynamoError>,
    coding: Option<encoding::Coding>,
) -> Response {
    let (status, body) = match outcome {
        Ok(body) => (StatusCode::OK, body),
        Err(error) => (
            StatusCode::from_u16(error.kind.http_status()).unwrap_or(StatusCode::BAD_REQUEST),
            error.to_json().to_string(),
        ),
    };
    let body = match coding {
        Some(coding) => coding.encode(body.as_bytes()),
        None => body.into_bytes(),
    };
    // Over the bytes sent: compressed when compressed, as the SDKs check it.
    let crc = crc32fast::hash(&body);
    // Built directly, its header map sized once: `into_response` would set a content type to be
    // replaced and grow the map insert by insert.
    let length = body.len();
    let mut response = Response::new(Body::from(state.answers.hold(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.reserve(8);
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/x-amz-json-1.0"));
    headers.insert(&X_AMZ_CRC32, HeaderValue::from(crc));
    if let Some(coding) = coding {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(coding.name()));
    }
    headers.insert(&X_AMZN_REQUESTID, request_id.clone());
    headers.insert(header::SERVER, HeaderValue::from_static("Server"));
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    response
}

/// How often the TTL sweep runs. DynamoDB promises only "within a few days"; a lab wants to see it.
pub const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// How many items one slice of the TTL sweep examines while it holds the lock.
const SWEEP_SLICE: usize = 2_000;

/// One slice of DynamoDB's TTL process: removes the expired items among the next few thousand,
/// each removal logged (with `--data-dir`) as a TTL deletion. Returns how many went and whether
/// the pass over every table is complete.
pub fn sweep_slice(state: &AppState) -> (usize, bool) {
    let Ok(mut store) = state.store.write() else { return (0, true) };
    if store.failed.is_some() {
        return (0, true);
    }
    let (at, slice) = store.with_held_clock(|engine| engine.expire_items_slice(SWEEP_SLICE));
    let entries: Vec<Entry> = slice
        .removed
        .iter()
        .map(|(table, key)| Entry::Expired {
            table: table.clone(),
            key: serde_json::to_string(key).unwrap_or_default(),
        })
        .collect();
    let removed = entries.len();
    if let (Some(at), false) = (at, entries.is_empty()) {
        if store.log_or_undo(at, entries).is_err() {
            return (0, true);
        }
    }
    (removed, slice.finished)
}

/// A whole TTL pass, slice by slice, letting other requests in between. Returns how many items went.
pub async fn sweep_expired(state: &AppState) -> usize {
    let mut removed = 0;
    loop {
        let (count, finished) = sweep_slice(state);
        removed += count;
        if finished {
            return removed;
        }
        tokio::task::yield_now().await;
    }
}

/// Serves `app` on `listener` until `stop` turns true, with the TTL sweep when `sweeps` is set
/// (one thread of a server sweeps; the others share its listener).
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    admission: admission::Admission,
    stop: tokio::sync::watch::Receiver<bool>,
    sweeps: bool,
) -> std::io::Result<()> {
    let sweeper = state.clone();
    let sweeping = sweeps.then(|| {
        tokio::spawn(async move {
            let mut interval = tokio::time::interval(SWEEP_EVERY);
            loop {
                interval.tick().await;
                sweep_expired(&sweeper).await;
            }
        })
    });
    let limits = state.settings.limits.clone();
    let served = connections::serve(listener, answerer(state), limits, admission, stop).await;
    if let Some(sweeping) = sweeping {
        sweeping.abort();
    }
    served
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::{Method, Request};
    use dynalab_engine::FixedClock;
    use tower::ServiceExt;

    fn state() -> AppState {
        AppState::new(Engine::new(Arc::new(FixedClock::at(0))))
    }

    #[test]
    fn hex_digits_are_written_as_format_writes_them() {
        for value in [0u128, 9, 10, 0xABC, u128::from(u32::MAX), u128::from(u32::MAX) + 1, u128::MAX] {
            for width in [0, 8, 20] {
                let mut text = [0u8; 64];
                let end = write_hex(&mut text, 3, value, width);
                assert_eq!(&text[3..end], format!("{value:0width$X}", width = width as usize).as_bytes());
            }
        }
    }

    async fn call(app: Router, target: Option<&str>, body: &str) -> (StatusCode, HeaderMap, serde_json::Value) {
        let mut request = Request::post("/")
            .header("content-type", "application/x-amz-json-1.0")
            .header("x-amz-date", "20261202T000000Z")
            .header("authorization", "AWS4-HMAC-SHA256 Credential=lab/20261202/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0");
        if let Some(target) = target {
            request = request.header("x-amz-target", target);
        }
        let response =
            app.oneshot(request.body(Body::from(body.to_string())).expect("request")).await.expect("response");
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("body");
        (status, headers, serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null))
    }

    #[tokio::test]
    async fn dispatches_on_the_target_and_signs_the_body_with_crc32() {
        let app = app(state());
        let (status, headers, body) = call(app.clone(), Some("DynamoDB_20120810.ListTables"), "{}").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body, serde_json::json!({"TableNames": []}));
        assert_eq!(headers["content-type"], "application/x-amz-json-1.0");
        assert_eq!(headers["x-amz-crc32"].to_str().expect("crc"), crc32fast::hash(br#"{"TableNames":[]}"#).to_string());
        assert!(headers.contains_key("x-amzn-requestid"));
    }

    #[tokio::test]
    async fn errors_have_dynamodb_shape_and_status() {
        let app = app(state());
        let (status, _, body) = call(app.clone(), Some("DynamoDB_20120810.GetItem"), "{not json").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["__type"], "com.amazon.coral.service#SerializationException");
        let (status, _, body) =
            call(app.clone(), Some("DynamoDB_20120810.DescribeTable"), r#"{"TableName":"nope"}"#).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(
            body,
            serde_json::json!({"__type": "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException",
                "message": "Requested resource not found: Table: nope not found"})
        );
        // A member sent twice keeps its last value, as DynamoDB's parser does: no parser's wording.
        let twice = r#"{"TableName":"things","TableName":"nope"}"#;
        let (_, _, body) = call(app.clone(), Some("DynamoDB_20120810.DescribeTable"), twice).await;
        assert_eq!(body["message"], "Requested resource not found: Table: nope not found");
        let (_, _, body) = call(app.clone(), Some("DynamoDB_20120810.Nope"), "{}").await;
        assert_eq!(body["__type"], "com.amazon.coral.service#UnknownOperationException");
        let (_, _, body) = call(app, None, "{}").await;
        assert_eq!(body["__type"], "com.amazon.coral.service#UnknownOperationException");
    }

    #[tokio::test]
    async fn requires_sigv4_but_never_checks_the_signature() {
        let app = app(state());
        let unsigned = Request::post("/")
            .header("x-amz-target", "DynamoDB_20120810.ListTables")
            .body(Body::from("{}"))
            .expect("request");
        let response = app.clone().oneshot(unsigned).await.expect("response");
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("body");
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&bytes).expect("json"),
            serde_json::json!({"__type": "com.amazon.coral.service#MissingAuthenticationTokenException",
                "message": "Request is missing Authentication Token"})
        );
        let partial = Request::post("/")
            .header("x-amz-target", "DynamoDB_20120810.ListTables")
            .header("authorization", "AWS4-HMAC-SHA256 Credential=a/b")
            .body(Body::from("{}"))
            .expect("request");
        let response = app.oneshot(partial).await.expect("response");
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("body");
        let body: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
        assert_eq!(body["__type"], "com.amazon.coral.service#IncompleteSignatureException");
        assert_eq!(
            body["message"],
            "Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization=AWS4-HMAC-SHA256 Credential=a/b"
        );
    }

    #[tokio::test]
    async fn answers_health_checks_and_cors_preflights() {
        let app = app(state());
        let response =
            app.clone().oneshot(Request::get("/").body(Body::empty()).expect("request")).await.expect("response");
        assert_eq!(response.status(), StatusCode::OK);
        let preflight = Request::builder()
            .method(Method::OPTIONS)
            .uri("/")
            .header("origin", "http://localhost:8080")
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", "x-amz-target,content-type,authorization")
            .body(Body::empty())
            .expect("request");
        let response = app.oneshot(preflight).await.expect("response");
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["access-control-allow-origin"], "http://localhost:8080");
        assert_eq!(
            response.headers()["access-control-allow-headers"],
            "x-amz-target,content-type,authorization",
            "listed: a `*` would not cover Authorization"
        );
    }

    #[tokio::test]
    async fn answers_from_a_page_say_which_headers_it_may_read_and_others_carry_no_cors() {
        let app = app(state());
        let request = |origin: Option<&str>| {
            let mut request = Request::post("/")
                .header("x-amz-target", "DynamoDB_20120810.ListTables")
                .header("x-amz-date", "20261202T000000Z")
                .header("authorization", "AWS4-HMAC-SHA256 Credential=lab/20261202/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0");
            if let Some(origin) = origin {
                request = request.header("origin", origin);
            }
            request.body(Body::from("{}")).expect("request")
        };
        let response = app.clone().oneshot(request(Some("http://127.0.0.1:8080"))).await.expect("response");
        assert_eq!(response.headers()["access-control-allow-origin"], "http://127.0.0.1:8080");
        assert_eq!(response.headers()["access-control-expose-headers"], "x-amz-crc32,x-amzn-requestid");
        let response = app.clone().oneshot(request(None)).await.expect("response");
        assert!(!response.headers().contains_key("access-control-allow-origin"));
        let unsigned = Request::post("/").header("origin", "http://localhost").body(Body::from("{}")).expect("request");
        let response = app.clone().oneshot(unsigned).await.expect("response");
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        assert_eq!(
            response.headers()["access-control-allow-origin"],
            "http://localhost",
            "errors are readable by the page too"
        );
        let elsewhere =
            Request::post("/").header("origin", "https://x.example").body(Body::from("{}")).expect("request");
        let response = app.oneshot(elsewhere).await.expect("response");
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "a page elsewhere is refused before anything runs");
        assert!(!response.headers().contains_key("access-control-allow-origin"));
    }

    #[tokio::test]
    async fn refuses_bodies_over_16_mib_with_a_dynamodb_shaped_413() {
        let app = app(state());
        let at_limit = format!(r#"{{"Limit":1,"Pad":"{}"}}"#, "a".repeat(MAX_BODY_BYTES - 30));
        assert!(at_limit.len() <= MAX_BODY_BYTES);
        let (status, _, _) = call(app.clone(), Some("DynamoDB_20120810.ListTables"), &at_limit).await;
        assert_eq!(status, StatusCode::OK, "read whole; unknown members are ignored, as DynamoDB Local does");
        let over = "a".repeat(MAX_BODY_BYTES + 1);
        let (status, headers, body) = call(app, Some("DynamoDB_20120810.ListTables"), &over).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(body["__type"], "com.amazon.coral.service#RequestEntityTooLargeException");
        assert!(headers.contains_key("x-amz-crc32"));
    }

    #[tokio::test]
    async fn endpoint_discovery_points_back_here_and_cloud_only_operations_say_so() {
        let settings = Settings { address: Some("127.0.0.1:8123".into()), ..Settings::default() };
        let app = app(AppState::with_log(Engine::new(Arc::new(FixedClock::at(0))), None, settings));
        let request = Request::post("/")
            .header("host", "localhost:9999")
            .header("x-amz-target", "DynamoDB_20120810.DescribeEndpoints")
            .header("x-amz-date", "20261202T000000Z")
            .header("authorization", "AWS4-HMAC-SHA256 Credential=lab/20261202/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0")
            .body(Body::from("{}"))
            .expect("request");
        let response = app.clone().oneshot(request).await.expect("response");
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("body");
        let body: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
        assert_eq!(
            body,
            serde_json::json!({"Endpoints": [{"Address": "127.0.0.1:8123", "CachePeriodInMinutes": 1440}]})
        );
        let (status, _, body) =
            call(app, Some("DynamoDB_20120810.CreateBackup"), r#"{"TableName":"t","BackupName":"b"}"#).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["__type"], "com.amazon.coral.service#UnknownOperationException");
        assert!(body["message"].as_str().unwrap_or_default().contains("on-demand backups"), "{body}");
    }

    fn signed(target: &str) -> axum::http::request::Builder {
        Request::post("/").header("x-amz-target", target).header("x-amz-date", "20261202T000000Z").header(
            "authorization",
            "AWS4-HMAC-SHA256 Credential=lab/20261202/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0",
        )
    }

    async fn send(app: &Router, request: Request<Body>) -> (StatusCode, HeaderMap, Vec<u8>) {
        let response = app.clone().oneshot(request).await.expect("response");
        let (status, headers) = (response.status(), response.headers().clone());
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("body");
        (status, headers, bytes.to_vec())
    }

    #[tokio::test]
    async fn compressed_requests_are_read_and_answers_compressed_for_clients_that_accept_it() {
        use std::io::Read;
        let app = app(state());
        let create = r#"{"TableName":"things","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}]}"#;
        let gzipped = encoding::Coding::Gzip.encode(create.as_bytes());
        let request = signed("DynamoDB_20120810.CreateTable")
            .header("content-encoding", "gzip")
            .body(Body::from(gzipped))
            .expect("request");
        let (status, _, _) = send(&app, request).await;
        assert_eq!(status, StatusCode::OK);
        let put = r#"{"TableName":"things","Item":{"id":{"S":"a"}}}"#;
        let deflated = encoding::Coding::Deflate.encode(put.as_bytes());
        let request = signed("DynamoDB_20120810.PutItem")
            .header("content-encoding", "deflate")
            .body(Body::from(deflated))
            .expect("request");
        assert_eq!(send(&app, request).await.0, StatusCode::OK);
        // An encoding the server cannot read: HTTP 500, and nothing is applied.
        let other = r#"{"TableName":"things","Item":{"id":{"S":"b"}}}"#;
        for coding in ["garbage", "gzip", "deflate"] {
            let request = signed("DynamoDB_20120810.PutItem")
                .header("content-encoding", coding)
                .body(Body::from(other))
                .expect("request");
            let (status, _, body) = send(&app, request).await;
            assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{coding}");
            let body: serde_json::Value = serde_json::from_slice(&body).expect("json");
            assert_eq!(body["__type"], "com.amazon.coral.service#InternalFailure");
        }
        // A small gzip that decodes past 16 MiB: 413, as a plain body that size would be.
        let bomb = encoding::Coding::Gzip.encode(&vec![b' '; MAX_BODY_BYTES + 1]);
        let request = signed("DynamoDB_20120810.PutItem")
            .header("content-encoding", "gzip")
            .body(Body::from(bomb))
            .expect("request");
        assert_eq!(send(&app, request).await.0, StatusCode::PAYLOAD_TOO_LARGE);
        // The answer, gzipped, with its CRC32 over the bytes sent.
        let scan = r#"{"TableName":"things"}"#;
        let request = signed("DynamoDB_20120810.Scan")
            .header("accept-encoding", "gzip, deflate")
            .body(Body::from(scan))
            .expect("request");
        let (status, headers, body) = send(&app, request).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(headers["content-encoding"], "gzip");
        assert_eq!(headers["x-amz-crc32"].to_str().expect("crc"), crc32fast::hash(&body).to_string());
        let mut text = String::new();
        flate2::read::GzDecoder::new(&body[..]).read_to_string(&mut text).expect("gzip answer");
        let answer: serde_json::Value = serde_json::from_str(&text).expect("json");
        assert_eq!(answer["Count"], 1, "b was never applied: {answer}");
        let request = signed("DynamoDB_20120810.Scan").body(Body::from(scan)).expect("request");
        let (_, headers, _) = send(&app, request).await;
        assert!(!headers.contains_key("content-encoding"), "only for clients that ask");
        assert_eq!(headers["server"], "Server");
    }

    #[tokio::test]
    async fn cors_headers_only_for_pages_and_preflights_echo_what_was_asked() {
        let app = app(state());
        for method in [Method::OPTIONS, Method::GET, Method::POST] {
            let request = Request::builder().method(method.clone()).uri("/").body(Body::empty()).expect("request");
            let (_, headers, _) = send(&app, request).await;
            assert!(
                headers.keys().all(|h| !h.as_str().starts_with("access-control-")),
                "{method}: no CORS headers without an Origin: {headers:?}"
            );
        }
        let preflight = Request::builder()
            .method(Method::OPTIONS)
            .uri("/")
            .header("origin", "http://localhost:3000")
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", "x-amz-target, authorization")
            .body(Body::empty())
            .expect("request");
        let (_, headers, _) = send(&app, preflight).await;
        assert_eq!(headers["access-control-allow-methods"], "POST");
        assert_eq!(headers["access-control-allow-headers"], "x-amz-target, authorization");
        assert!(
            headers.contains_key("access-control-expose-headers") && headers.contains_key("access-control-max-age")
        );
        let get = Request::get("/").header("origin", "http://localhost:3000").body(Body::empty()).expect("request");
        let (_, headers, body) = send(&app, get).await;
        assert!(
            headers.contains_key("access-control-expose-headers") && !headers.contains_key("access-control-max-age")
        );
        assert!(String::from_utf8_lossy(&body).starts_with("healthy: "));
    }
}
