//! DynamoDB's JSON 1.0 protocol over HTTP: `POST /` with `X-Amz-Target: DynamoDB_20120810.<Operation>`,
//! answered by the engine, with the headers SDKs check (`x-amz-crc32`, `x-amzn-RequestId`).
//!
//! A request is parsed outside the engine's lock ([`Request::parse`]); the lock is held only while
//! the engine applies it and, with `--data-dir`, while a change is made durable ([`persistence`]).
#![forbid(unsafe_code)]

pub mod access;
pub mod connections;
pub mod persistence;

use access::Access;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use dynalab_engine::{DynamoError, Engine, ErrorKind, Operation, Request};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use persistence::record::Entry;
use persistence::WriteLog;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

pub use connections::Limits;

/// The largest request body accepted: DynamoDB's own request limit is 16 MB.
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// Requests larger than this are parsed and run on tokio's blocking pool rather than on the
/// thread that serves their connection.
const RUN_ASIDE_BYTES: usize = 256 * 1024;

/// What every request shares: the engine (one lock makes every operation atomic and every
/// transaction isolated), the server's own address and access rules, and a request counter.
#[derive(Clone)]
pub struct AppState {
    store: Arc<Mutex<Store>>,
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
            store: Arc::new(Mutex::new(Store { engine, log, failed: None })),
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

/// A CORS preflight from an allowed page: the three methods, and the requested headers listed
/// back (a `*` would not cover Authorization, which every SDK sends).
async fn preflight(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(refusal) = state.settings.access.refusal(&headers) {
        return (StatusCode::FORBIDDEN, refusal).into_response();
    }
    let mut response = StatusCode::OK.into_response();
    Access::allow_page(&headers, &mut response);
    let answer = response.headers_mut();
    answer.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET,POST,OPTIONS"));
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

async fn health(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(refusal) = state.settings.access.refusal(&headers) {
        return (StatusCode::FORBIDDEN, refusal).into_response();
    }
    let mut response = "healthy: dynalab".into_response();
    Access::allow_page(&headers, &mut response);
    response
}

async fn dynamodb(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Response {
    let request_id = request_id(&state);
    if let Some(refusal) = state.settings.access.refusal(&headers) {
        // Refused before it runs: a page on another site must not Scan or DeleteTable here.
        return respond(&request_id, Err(DynamoError::new(ErrorKind::Forbidden, refusal)));
    }
    let body = read_body(body, state.settings.limits.body_timeout).await;
    let large = body.as_ref().is_ok_and(|b| b.len() > RUN_ASIDE_BYTES);
    let mut response = if large {
        // Parsing megabytes takes milliseconds: off this thread, whose other connections wait
        // for it otherwise.
        let (state, headers, id) = (state.clone(), headers.clone(), request_id.clone());
        tokio::task::spawn_blocking(move || answer(&state, &headers, body, &id)).await.unwrap_or_else(|_| {
            respond(&request_id, Err(DynamoError::new(ErrorKind::InternalServerError, "The request failed")))
        })
    } else {
        answer(&state, &headers, body, &request_id)
    };
    Access::allow_page(&headers, &mut response);
    response
}

fn request_id(state: &AppState) -> String {
    let id = state.requests.fetch_add(1, Ordering::Relaxed);
    format!("{id:08X}DYNALAB{:020X}", u128::from(id).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// The body, read whole within the time limit; the size limit stops reading at 16 MiB, so an
/// oversized body never sits in memory whole.
async fn read_body(body: Body, timeout: std::time::Duration) -> Result<Bytes, DynamoError> {
    let collected = tokio::time::timeout(timeout, Limited::new(body, MAX_BODY_BYTES).collect()).await;
    match collected {
        Err(_) => Err(DynamoError::new(ErrorKind::RequestTimeout, "Timed out reading the request body")),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(error)) if error.downcast_ref::<LengthLimitError>().is_some() => Err(DynamoError::new(
            ErrorKind::RequestEntityTooLarge,
            format!("Request body exceeds the limit of {MAX_BODY_BYTES} bytes (16 MiB)"),
        )),
        Ok(Err(error)) => Err(DynamoError::serialization(format!("The request body could not be read: {error}"))),
    }
}

fn answer(state: &AppState, headers: &HeaderMap, body: Result<Bytes, DynamoError>, request_id: &str) -> Response {
    let body = match body {
        Ok(body) => body,
        Err(error) => return respond(request_id, Err(error)),
    };
    if let Err(error) = check_authorization(headers) {
        return respond(request_id, Err(error));
    }
    let target = headers.get("x-amz-target").and_then(|v| v.to_str().ok()).unwrap_or("");
    let Some(operation) = Operation::from_target(target) else {
        let name = target.split_once('.').map_or("", |(_, name)| name);
        return respond(request_id, Err(dynalab_engine::unknown_operation(name)));
    };
    if operation == Operation::DescribeEndpoints {
        // Endpoint discovery must lead back here, to the address this server listens on.
        let address = state.settings.address.as_deref().unwrap_or("127.0.0.1");
        let body = serde_json::json!({"Endpoints": [{"Address": address, "CachePeriodInMinutes": 1440}]});
        return respond(request_id, Ok(body.to_string()));
    }
    let Ok(text) = std::str::from_utf8(&body) else {
        return respond(request_id, Err(DynamoError::serialization("Request body is not valid UTF-8")));
    };
    // Parsing and its checks run before the lock is taken: a huge request delays no one else.
    let request = match Request::parse(operation, text) {
        Ok(request) => request,
        Err(error) => return respond(request_id, Err(error)),
    };
    respond(request_id, apply(state, request, text))
}

/// Applies a parsed request under the lock; a change is made durable before it is acknowledged,
/// and one that cannot be is undone.
fn apply(state: &AppState, request: Request, text: &str) -> Result<String, DynamoError> {
    let Ok(mut store) = state.store.lock() else {
        return Err(DynamoError::new(ErrorKind::InternalServerError, "The engine stopped after an earlier failure"));
    };
    if let Some(reason) = &store.failed {
        return Err(DynamoError::new(ErrorKind::InternalServerError, reason.clone()));
    }
    let operation = request.operation();
    let at = store.log.as_ref().map(WriteLog::hold_time);
    let applied = store.engine.apply(request);
    if let (Some(at), true) = (at, applied.changed) {
        let entry = Entry::Request { operation: operation.name().to_string(), body: text.to_string() };
        store.log_or_undo(at, vec![entry])?;
    }
    if let Some(log) = &store.log {
        log.release_time();
    }
    applied.response
}

impl Store {
    /// Appends what the engine just did; if that fails, rebuilds the engine from the log so the
    /// change is undone, and says so.
    fn log_or_undo(&mut self, at_millis: u64, entries: Vec<Entry>) -> Result<(), DynamoError> {
        let Some(log) = self.log.as_mut() else { return Ok(()) };
        let outcome = log.append(at_millis, entries);
        log.release_time();
        let Err(error) = outcome else {
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
    let mut missing: Vec<String> =
        [("Credential", "Credential="), ("Signature", "Signature="), ("SignedHeaders", "SignedHeaders=")]
            .iter()
            .filter(|(_, marker)| !auth.contains(marker))
            .map(|(part, _)| format!("Authorization header requires '{part}' parameter."))
            .collect();
    if !headers.contains_key("x-amz-date") && !headers.contains_key(header::DATE) {
        missing.push("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.".into());
    }
    if missing.is_empty() {
        return Ok(());
    }
    missing.push(format!("Authorization={auth}"));
    Err(DynamoError::new(ErrorKind::IncompleteSignature, missing.join(" ")))
}

/// A response as DynamoDB sends it: JSON 1.0 body, its CRC32, the request id.
fn respond(request_id: &str, outcome: Result<String, DynamoError>) -> Response {
    let (status, body) = match outcome {
        Ok(body) => (StatusCode::OK, body),
        Err(error) => (
            StatusCode::from_u16(error.kind.http_status()).unwrap_or(StatusCode::BAD_REQUEST),
            error.to_json().to_string(),
        ),
    };
    let crc = crc32fast::hash(body.as_bytes());
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/x-amz-json-1.0"));
    headers.insert("x-amz-crc32", HeaderValue::from(crc));
    if let Ok(value) = HeaderValue::from_str(request_id) {
        headers.insert("x-amzn-requestid", value);
    }
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
    let Ok(mut store) = state.store.lock() else { return (0, true) };
    if store.failed.is_some() {
        return (0, true);
    }
    let at = store.log.as_ref().map(WriteLog::hold_time);
    let slice = store.engine.expire_items_slice(SWEEP_SLICE);
    if let Some(log) = &store.log {
        log.release_time();
    }
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
    count: connections::ConnectionCount,
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
    let served = connections::serve(listener, app(state), limits, count, stop).await;
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
}
