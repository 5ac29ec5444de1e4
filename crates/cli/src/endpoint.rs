//! `dynalab check --endpoint URL`: the same workbook against a real DynamoDB-compatible endpoint
//! (DynamoDB itself, DynamoDB Local, `dynalab serve`), signed with SigV4. Tables the run creates
//! are deleted between patterns and at the end; a table that already exists there is never touched:
//! the run refuses to start instead.

use dynalab_engine::explain::{Step, StepKind};
use dynalab_engine::{Operation, Tally};
use dynalab_lab::workbook::analysis::UNKNOWN_PARTITION;
use dynalab_lab::workbook::runner::CallOutcome;
use dynalab_lab::workbook::runner::Target;
use dynalab_server::sigv4::{self, timestamp};
use serde_json::{json, Value};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Credentials from the standard places: the environment, then the shared credentials file.
pub struct Credentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

impl Credentials {
    /// `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN`, else the profile
    /// `AWS_PROFILE` (or `default`) of `~/.aws/credentials` (`AWS_SHARED_CREDENTIALS_FILE`).
    pub fn from_environment() -> Result<Self, String> {
        if let (Ok(id), Ok(secret)) = (std::env::var("AWS_ACCESS_KEY_ID"), std::env::var("AWS_SECRET_ACCESS_KEY")) {
            return Ok(Self {
                access_key_id: id,
                secret_access_key: secret,
                session_token: std::env::var("AWS_SESSION_TOKEN").ok(),
            });
        }
        let path = std::env::var("AWS_SHARED_CREDENTIALS_FILE")
            .ok()
            .or_else(|| std::env::var("HOME").ok().map(|h| format!("{h}/.aws/credentials")))
            .ok_or("no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile in ~/.aws/credentials")?;
        let profile = std::env::var("AWS_PROFILE").unwrap_or_else(|_| "default".into());
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("no AWS credentials in the environment, and {path}: {e}"))?;
        let mut in_profile = false;
        let (mut id, mut secret, mut token) = (None, None, None);
        for line in text.lines().map(str::trim) {
            if line.starts_with('[') {
                in_profile = line.trim_matches(['[', ']']).trim() == profile;
            } else if let (true, Some((key, value))) = (in_profile, line.split_once('=')) {
                let value = Some(value.trim().to_string());
                match key.trim() {
                    "aws_access_key_id" => id = value,
                    "aws_secret_access_key" => secret = value,
                    "aws_session_token" => token = value,
                    _ => {}
                }
            }
        }
        match (id, secret) {
            (Some(access_key_id), Some(secret_access_key)) => {
                Ok(Self { access_key_id, secret_access_key, session_token: token })
            }
            _ => Err(format!("profile `{profile}` in {path} has no aws_access_key_id / aws_secret_access_key")),
        }
    }
}

pub struct EndpointTarget {
    url: String,
    host: String,
    region: String,
    credentials: Credentials,
    agent: ureq::Agent,
    created: Vec<String>,
}

impl EndpointTarget {
    /// Connects to `url`; refuses when any of `tables` already exists there.
    pub fn new(url: &str, region: &str, credentials: Credentials, tables: &[String]) -> Result<Self, String> {
        let host = url
            .split_once("://")
            .map(|(_, rest)| rest.split('/').next().unwrap_or(rest).to_string())
            .ok_or_else(|| format!("--endpoint {url}: expected http://host:port or https://host"))?;
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(30)))
            .http_status_as_error(false)
            .build()
            .new_agent();
        let mut target =
            Self { url: url.to_string(), host, region: region.to_string(), credentials, agent, created: Vec::new() };
        let existing = target
            .send("ListTables", &json!({"Limit": 100}))
            .map_err(|(name, message)| format!("{url}: {name}: {message}"))?;
        let names: Vec<&str> =
            existing["TableNames"].as_array().map(|l| l.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        if let Some(clash) = tables.iter().find(|t| names.contains(&t.as_str())) {
            return Err(format!(
                "table `{clash}` already exists at {url}; dynalab check never touches existing tables"
            ));
        }
        Ok(target)
    }

    fn send(&mut self, operation: &str, request: &Value) -> Result<Value, (String, String)> {
        let body = request.to_string();
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let (amz_date, date) = timestamp(now);
        let target = format!("DynamoDB_20120810.{operation}");
        let mut headers: Vec<(&str, String)> = vec![
            ("content-type", "application/x-amz-json-1.0".into()),
            ("host", self.host.clone()),
            ("x-amz-date", amz_date.clone()),
            ("x-amz-target", target),
        ];
        if let Some(token) = &self.credentials.session_token {
            headers.push(("x-amz-security-token", token.clone()));
        }
        headers.sort_by(|a, b| a.0.cmp(b.0));
        let authorization = sign(&self.credentials, &self.region, &amz_date, &date, &headers, body.as_bytes());
        let mut call = self.agent.post(&self.url);
        for (name, value) in headers.iter().filter(|(n, _)| *n != "host") {
            call = call.header(*name, value);
        }
        let mut response = call
            .header("authorization", &authorization)
            .send(body.as_bytes())
            .map_err(|e| ("ConnectionError".to_string(), format!("{}: {e}", self.url)))?;
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().unwrap_or_default();
        let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        if status == 200 {
            return Ok(value);
        }
        let name = value["__type"].as_str().unwrap_or("HttpError").rsplit('#').next().unwrap_or_default().to_string();
        let message = value["message"].as_str().or_else(|| value["Message"].as_str()).unwrap_or_default().to_string();
        Err((name, if message.is_empty() { format!("HTTP {status}") } else { message }))
    }

    /// Waits until DescribeTable says ACTIVE (or, with `gone`, until the table no longer exists).
    fn wait(&mut self, table: &str, gone: bool) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(300);
        while Instant::now() < deadline {
            match self.send("DescribeTable", &json!({"TableName": table})) {
                Ok(d) if !gone && d["Table"]["TableStatus"] == "ACTIVE" => return Ok(()),
                Err((name, _)) if gone && name == "ResourceNotFoundException" => return Ok(()),
                Err((name, message)) if !gone => return Err(format!("{name}: {message}")),
                _ => std::thread::sleep(Duration::from_millis(500)),
            }
        }
        Err(format!("table `{table}` did not become {} within 5 minutes", if gone { "deleted" } else { "ACTIVE" }))
    }

    /// Deletes what this run created.
    pub fn clean_up(&mut self) -> Result<(), String> {
        for table in std::mem::take(&mut self.created) {
            match self.send("DeleteTable", &json!({"TableName": table})) {
                Ok(_) => self.wait(&table, true)?,
                Err((name, _)) if name == "ResourceNotFoundException" => {}
                Err((name, message)) => return Err(format!("deleting `{table}`: {name}: {message}")),
            }
        }
        Ok(())
    }
}

impl Target for EndpointTarget {
    fn reset(&mut self) -> Result<(), String> {
        self.clean_up()
    }

    fn call(&mut self, operation: Operation, request: &Value) -> CallOutcome {
        let outcome = self.send(operation.name(), request);
        if let (Ok(_), Operation::CreateTable) = (&outcome, operation) {
            let table = request["TableName"].as_str().unwrap_or_default().to_string();
            self.created.push(table.clone());
            if let Err(e) = self.wait(&table, false) {
                return CallOutcome { error: Some(("TableNotActive".into(), e)), ..CallOutcome::default() };
            }
        }
        match outcome {
            Err(error) => CallOutcome { error: Some(error), ..CallOutcome::default() },
            Ok(body) => CallOutcome {
                tally: tally(&body),
                steps: steps(&body, operation, request),
                body: Some(body.to_string()),
                error: None,
            },
        }
    }
}

/// The counts an HTTP response carries (only here is a response body read back).
fn tally(body: &Value) -> Tally {
    let items = if let Some(count) = body.get("Count").and_then(Value::as_u64) {
        count
    } else if body.get("Item").is_some() {
        1
    } else {
        match body.get("Responses") {
            Some(Value::Object(tables)) => tables.values().filter_map(Value::as_array).map(|l| l.len() as u64).sum(),
            Some(Value::Array(list)) => list.iter().filter(|r| r.get("Item").is_some()).count() as u64,
            _ => 0,
        }
    };
    let unprocessed = ["UnprocessedKeys", "UnprocessedItems"]
        .iter()
        .filter_map(|k| body.get(*k).and_then(Value::as_object))
        .flat_map(|tables| tables.values())
        .map(|v| {
            v.get("Keys").and_then(Value::as_array).map_or_else(|| v.as_array().map_or(0, Vec::len), Vec::len) as u64
        })
        .sum();
    Tally {
        items,
        scanned: body.get("ScannedCount").and_then(Value::as_u64),
        last_evaluated_key: body.get("LastEvaluatedKey").and_then(|k| serde_json::from_value(k.clone()).ok()),
        unprocessed,
    }
}

/// Charges from a response's ConsumedCapacity. An endpoint does not say which partition key took
/// them, so the hot-key check sees them on one key (its worst case) and says so.
fn steps(body: &Value, operation: Operation, request: &Value) -> Vec<Step> {
    let writes = operation.effect() == dynalab_engine::Effect::MayWrite;
    let consistent = request.get("ConsistentRead").and_then(Value::as_bool).unwrap_or(false)
        || matches!(operation, Operation::TransactGetItems);
    let kind = if writes { StepKind::Write } else { StepKind::Read { consistent } };
    let entries = match body.get("ConsumedCapacity") {
        Some(Value::Array(list)) => list.clone(),
        Some(one) => vec![one.clone()],
        None => Vec::new(),
    };
    let mut out = Vec::new();
    let step = |table: &str, index: Option<String>, units: f64| Step {
        table: table.to_string(),
        index,
        partition: Some(UNKNOWN_PARTITION.into()),
        kind,
        bytes: 0,
        units,
        why: "reported by the endpoint's ConsumedCapacity".into(),
    };
    let vector = |table: &str, index: &str, kind: StepKind, bytes: f64| Step {
        table: table.to_string(),
        index: Some(index.to_string()),
        partition: None,
        kind,
        bytes: bytes as usize,
        units: 0.0,
        why: "reported by the endpoint's ConsumedCapacity".into(),
    };
    for entry in entries {
        // A search reports bytes only, and no table: the request names it.
        if let Some(bytes) = entry["VectorSearchRequestBytes"].as_f64() {
            let table = request["TableName"].as_str().unwrap_or_default();
            let index = request["IndexName"].as_str().unwrap_or_default();
            out.push(vector(table, index, StepKind::VectorSearch, bytes));
            continue;
        }
        let table = entry["TableName"].as_str().unwrap_or_default().to_string();
        for (name, capacity) in entry["VectorIndexes"].as_object().cloned().unwrap_or_default() {
            let bytes = capacity["VectorWriteRequestBytes"].as_f64().unwrap_or(0.0);
            out.push(vector(&table, &name, StepKind::VectorWrite, bytes));
        }
        let total = entry["Table"]["CapacityUnits"].as_f64().or_else(|| entry["CapacityUnits"].as_f64()).unwrap_or(0.0);
        let mut indexes = 0.0;
        for member in ["GlobalSecondaryIndexes", "LocalSecondaryIndexes"] {
            for (name, capacity) in entry[member].as_object().cloned().unwrap_or_default() {
                let units = capacity["CapacityUnits"].as_f64().unwrap_or(0.0);
                indexes += units;
                out.push(step(&table, Some(name), units));
            }
        }
        let own = if entry.get("Table").is_some() { total } else { total - indexes };
        out.push(step(&table, None, own));
    }
    out
}

impl Drop for EndpointTarget {
    fn drop(&mut self) {
        if let Err(e) = self.clean_up() {
            eprintln!("dynalab: could not delete the tables this check created: {e}");
        }
    }
}

/// The `Authorization` header of AWS Signature Version 4 for a POST to `/` (`headers` sorted).
fn sign(
    credentials: &Credentials,
    region: &str,
    amz_date: &str,
    date: &str,
    headers: &[(&str, String)],
    body: &[u8],
) -> String {
    let headers: Vec<(String, String)> = headers.iter().map(|(n, v)| ((*n).to_string(), v.clone())).collect();
    let payload_hash = sigv4::payload_hash(body);
    let canonical =
        sigv4::Canonical { method: "POST", path: "/", query: "", headers: &headers, payload_hash: &payload_hash };
    let signature = canonical.signature(&credentials.secret_access_key, amz_date, date, region, "dynamodb");
    let signed_headers = headers.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(";");
    format!(
        "AWS4-HMAC-SHA256 Credential={}/{date}/{region}/dynamodb/aws4_request, SignedHeaders={signed_headers}, Signature={signature}",
        credentials.access_key_id
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_check_signs_serve_verifies() {
        let credentials =
            Credentials { access_key_id: "lab".into(), secret_access_key: "s3cret".into(), session_token: None };
        let now = 1_796_287_014;
        let (amz_date, date) = timestamp(now);
        let headers = vec![("host", "127.0.0.1:8000".to_string()), ("x-amz-date", amz_date.clone())];
        let authorization = sign(&credentials, "us-east-1", &amz_date, &date, &headers, b"{}");
        let owned: Vec<(String, String)> = headers.iter().map(|(n, v)| ((*n).to_string(), v.clone())).collect();
        let hash = sigv4::payload_hash(b"{}");
        let canonical = sigv4::Canonical { method: "POST", path: "/", query: "", headers: &owned, payload_hash: &hash };
        let received = sigv4::Received { authorization: &authorization, amz_date: &amz_date, canonical };
        sigv4::verify(&received, "lab", "s3cret", now).expect("verifies");
    }
}
