//! DynamoDB's JSON 1.0 protocol over HTTP: `POST /` with `X-Amz-Target: DynamoDB_20120810.<Operation>`,
//! answered by the engine, with the headers SDKs check (`x-amz-crc32`, `x-amzn-RequestId`).
#![forbid(unsafe_code)]

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use dynalab_engine::{DynamoError, Engine, ErrorKind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

pub mod persistence;

use persistence::WriteLog;

/// The largest request body accepted: DynamoDB's own request limit is 16 MB.
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

const TARGET_PREFIX: &str = "DynamoDB_20120810.";
/// The DynamoDB Streams API's target prefix; its operations share the endpoint here.
const STREAMS_TARGET_PREFIX: &str = "DynamoDBStreams_20120810.";
const STREAMS_OPERATIONS: [&str; 4] = ["ListStreams", "DescribeStream", "GetShardIterator", "GetRecords"];

/// What every request shares: the engine (one lock makes every operation atomic and every
/// transaction isolated) and a counter for request ids.
#[derive(Clone)]
pub struct AppState {
    engine: Arc<Mutex<Store>>,
    requests: Arc<AtomicU64>,
}

/// The engine and, with `--data-dir`, the log its writes go to, under one lock so the log's order
/// is the order the writes were applied in.
struct Store {
    engine: Engine,
    log: Option<WriteLog>,
}

impl AppState {
    /// An in-memory endpoint.
    pub fn new(engine: Engine) -> Self {
        Self::with_log(engine, None)
    }

    /// An endpoint whose acknowledged writes are logged (see [`persistence`]).
    pub fn with_log(engine: Engine, log: Option<WriteLog>) -> Self {
        Self { engine: Arc::new(Mutex::new(Store { engine, log })), requests: Arc::new(AtomicU64::new(0)) }
    }
}

/// The endpoint: DynamoDB's protocol on `POST /`, a health answer on `GET /`, CORS for browsers.
pub fn app(state: AppState) -> Router {
    Router::new()
        .route("/", post(dynamodb).get(health).options(preflight))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
}

/// What a browser page on any origin may read of an answer: the body and the headers SDKs check.
/// Added only when the request came from a page (it has an Origin): tower-http's CORS layer, which
/// answered every request, measured ~5 µs of CPU per request (benches/serve.sh).
fn allow_origin(from_page: bool, response: &mut Response) {
    if from_page {
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
        headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static("x-amz-crc32,x-amzn-requestid"));
    }
}

/// A CORS preflight: any origin, the three methods, and the requested headers listed back — a `*`
/// would not cover Authorization, which every SDK sends.
async fn preflight(headers: HeaderMap) -> Response {
    let mut response = StatusCode::OK.into_response();
    let answer = response.headers_mut();
    answer.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    answer.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET,POST,OPTIONS"));
    if let Some(requested) = headers.get(header::ACCESS_CONTROL_REQUEST_HEADERS) {
        answer.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, requested.clone());
    }
    answer.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
    answer.insert(
        header::VARY,
        HeaderValue::from_static("origin, access-control-request-method, access-control-request-headers"),
    );
    response
}

async fn health(headers: HeaderMap) -> Response {
    let mut response = "healthy: dynalab".into_response();
    allow_origin(headers.contains_key(header::ORIGIN), &mut response);
    response.headers_mut().insert(header::VARY, HeaderValue::from_static("origin"));
    response
}

/// The request headers the protocol reads, taken one by one: the `HeaderMap` extractor copies the
/// whole map.
struct ProtocolHeaders {
    target: Option<HeaderValue>,
    authorization: Option<HeaderValue>,
    /// X-Amz-Date or Date is there.
    dated: bool,
    host: Option<HeaderValue>,
    /// An Origin header: a browser page sent it.
    from_page: bool,
}

impl<S: Send + Sync> FromRequestParts<S> for ProtocolHeaders {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let headers = &parts.headers;
        Ok(Self {
            target: headers.get("x-amz-target").cloned(),
            authorization: headers.get(header::AUTHORIZATION).cloned(),
            dated: headers.contains_key("x-amz-date") || headers.contains_key(header::DATE),
            host: headers.get(header::HOST).cloned(),
            from_page: headers.contains_key(header::ORIGIN),
        })
    }
}

async fn dynamodb(
    State(state): State<AppState>,
    headers: ProtocolHeaders,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let mut response = answer(&state, &headers, body);
    allow_origin(headers.from_page, &mut response);
    response
}

fn answer(state: &AppState, headers: &ProtocolHeaders, body: Result<Bytes, BytesRejection>) -> Response {
    let id = state.requests.fetch_add(1, Ordering::Relaxed);
    let request_id = format!("{id:08X}DYNALAB{:020X}", u128::from(id).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    // The limit stops reading at 16 MiB, so an oversized body never sits in memory whole.
    let body = match body {
        Ok(body) => body,
        Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            let message = format!("Request body exceeds the limit of {MAX_BODY_BYTES} bytes (16 MiB)");
            return respond(&request_id, Err(DynamoError::new(ErrorKind::RequestEntityTooLarge, message)));
        }
        Err(rejection) => {
            return respond(&request_id, Err(DynamoError::serialization(rejection.body_text())));
        }
    };
    if let Err(error) = check_authorization(headers) {
        return respond(&request_id, Err(error));
    }
    let target = headers.target.as_ref().and_then(|v| v.to_str().ok()).unwrap_or("");
    let operation = match (target.strip_prefix(TARGET_PREFIX), target.strip_prefix(STREAMS_TARGET_PREFIX)) {
        (Some(operation), _) if !STREAMS_OPERATIONS.contains(&operation) => operation,
        (None, Some(operation)) if STREAMS_OPERATIONS.contains(&operation) => operation,
        _ => return respond(&request_id, Err(DynamoError::new(ErrorKind::UnknownOperation, ""))),
    };
    if operation == "DescribeEndpoints" {
        // Endpoint discovery must lead back here, not to AWS.
        let host = headers.host.as_ref().and_then(|h| h.to_str().ok()).unwrap_or("127.0.0.1");
        let body = serde_json::json!({"Endpoints": [{"Address": host, "CachePeriodInMinutes": 1440}]});
        return respond(&request_id, Ok(body.to_string()));
    }
    let Ok(text) = std::str::from_utf8(&body) else {
        return respond(&request_id, Err(DynamoError::serialization("Request body is not valid UTF-8")));
    };
    let outcome = match state.engine.lock() {
        Ok(mut store) => {
            let outcome = store.engine.execute(operation, text);
            match (&outcome, store.log.as_mut()) {
                // Durable before it is acknowledged.
                (Ok(_), Some(log)) if persistence::is_write(operation) => match log.append(operation, text) {
                    Ok(()) => outcome,
                    Err(e) => Err(DynamoError::new(
                        ErrorKind::InternalServerError,
                        format!("The write could not be logged: {e}"),
                    )),
                },
                _ => outcome,
            }
        }
        Err(_) => Err(DynamoError::new(ErrorKind::InternalServerError, "The engine stopped after an earlier failure")),
    };
    respond(&request_id, outcome)
}

/// SigV4 must be there and complete; its signature is never verified (any credentials work, as
/// with DynamoDB Local). The wording is the real service's, as dynoxide recorded it.
fn check_authorization(headers: &ProtocolHeaders) -> Result<(), DynamoError> {
    let authorization = headers.authorization.as_ref().and_then(|v| v.to_str().ok());
    let Some(auth) = authorization.filter(|a| a.starts_with("AWS4-")) else {
        return Err(DynamoError::new(ErrorKind::MissingAuthenticationToken, "Request is missing Authentication Token"));
    };
    let mut missing: Vec<String> =
        [("Credential", "Credential="), ("Signature", "Signature="), ("SignedHeaders", "SignedHeaders=")]
            .iter()
            .filter(|(_, marker)| !auth.contains(marker))
            .map(|(part, _)| format!("Authorization header requires '{part}' parameter."))
            .collect();
    if !headers.dated {
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

/// DynamoDB's TTL process: removes expired items, each removal logged (with `--data-dir`) as the
/// DeleteItem that replays it. Returns how many items went.
pub fn sweep_expired(state: &AppState) -> usize {
    let Ok(mut store) = state.engine.lock() else { return 0 };
    let removed = store.engine.expire_items();
    if let Some(log) = store.log.as_mut() {
        for (table, key) in &removed {
            let request = serde_json::json!({"TableName": table, "Key": key}).to_string();
            if let Err(e) = log.append("DeleteItem", &request) {
                eprintln!("dynalab: a TTL removal could not be logged: {e}");
            }
        }
    }
    removed.len()
}

/// Serves `app` on `listener` until `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let sweeper = state.clone();
    let sweeps = tokio::spawn(async move {
        let mut interval = tokio::time::interval(SWEEP_EVERY);
        loop {
            interval.tick().await;
            sweep_expired(&sweeper);
        }
    });
    let served = serve_connections(listener, state, shutdown).await;
    sweeps.abort();
    served
}

/// Serves `app` on `listener` until `shutdown` completes, without the TTL sweep: for the extra
/// threads of a server whose first thread runs [`serve`] on the same listening socket.
pub async fn serve_connections(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, app(state)).with_graceful_shutdown(shutdown).await
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
        assert_eq!(response.headers()["access-control-allow-origin"], "*");
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
        assert_eq!(response.headers()["access-control-allow-origin"], "*");
        assert_eq!(response.headers()["access-control-expose-headers"], "x-amz-crc32,x-amzn-requestid");
        let response = app.clone().oneshot(request(None)).await.expect("response");
        assert!(!response.headers().contains_key("access-control-allow-origin"));
        let unsigned = Request::post("/").header("origin", "http://x").body(Body::from("{}")).expect("request");
        let response = app.oneshot(unsigned).await.expect("response");
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        assert_eq!(response.headers()["access-control-allow-origin"], "*", "errors are readable by the page too");
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
        let app = app(state());
        let request = Request::post("/")
            .header("host", "127.0.0.1:8123")
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
