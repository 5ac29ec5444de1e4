//! `dynalab check --endpoint URL`: the same workbook against a real DynamoDB-compatible endpoint
//! (DynamoDB itself, DynamoDB Local, `dynalab serve`), signed with SigV4. Tables the run creates
//! are deleted between patterns and at the end; a table that already exists there is never touched:
//! the run refuses to start instead.

use dynalab_engine::explain::Step;
use dynalab_lab::workbook::runner::Target;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
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

    fn call(&mut self, operation: &str, request: &Value) -> (Result<Value, (String, String)>, Vec<Step>) {
        let outcome = self.send(operation, request);
        if let (Ok(_), "CreateTable") = (&outcome, operation) {
            let table = request["TableName"].as_str().unwrap_or_default().to_string();
            self.created.push(table.clone());
            if let Err(e) = self.wait(&table, false) {
                return (Err(("TableNotActive".into(), e)), Vec::new());
            }
        }
        (outcome, Vec::new())
    }
}

impl Drop for EndpointTarget {
    fn drop(&mut self) {
        if let Err(e) = self.clean_up() {
            eprintln!("dynalab: could not delete the tables this check created: {e}");
        }
    }
}

type HmacSha256 = Hmac<Sha256>;

fn hmac(key: &[u8], data: &str) -> Vec<u8> {
    let mut mac =
        HmacSha256::new_from_slice(key).unwrap_or_else(|_| HmacSha256::new_from_slice(&[]).expect("empty key"));
    mac.update(data.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

/// The `Authorization` header of AWS Signature Version 4 for a POST to `/`.
fn sign(
    credentials: &Credentials,
    region: &str,
    amz_date: &str,
    date: &str,
    headers: &[(&str, String)],
    body: &[u8],
) -> String {
    let canonical_headers = headers.iter().fold(String::new(), |mut out, (n, v)| {
        let _ = writeln!(out, "{n}:{}", v.trim());
        out
    });
    let signed_headers = headers.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(";");
    let canonical_request = format!("POST\n/\n\n{canonical_headers}\n{signed_headers}\n{}", hex(&Sha256::digest(body)));
    let scope = format!("{date}/{region}/dynamodb/aws4_request");
    let string_to_sign =
        format!("AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}", hex(&Sha256::digest(canonical_request.as_bytes())));
    let key = ["dynamodb", "aws4_request"]
        .iter()
        .fold(hmac(&hmac(format!("AWS4{}", credentials.secret_access_key).as_bytes(), date), region), |key, part| {
            hmac(&key, part)
        });
    let signature = hex(&hmac(&key, &string_to_sign));
    format!(
        "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders={signed_headers}, Signature={signature}",
        credentials.access_key_id
    )
}

/// `(20261202T130501Z, 20261202)` for seconds since the epoch.
fn timestamp(seconds: u64) -> (String, String) {
    let t = dynalab_engine::Utc::of_millis(seconds.saturating_mul(1000));
    let date = format!("{:04}{:02}{:02}", t.year, t.month, t.day);
    (format!("{date}T{:02}{:02}{:02}Z", t.hour, t.minute, t.second), date)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_utc_calendar_dates() {
        assert_eq!(timestamp(0), ("19700101T000000Z".into(), "19700101".into()));
        assert_eq!(timestamp(1_764_676_201), ("20251202T115001Z".into(), "20251202".into()));
        assert_eq!(timestamp(951_782_400), ("20000229T000000Z".into(), "20000229".into()));
    }

    #[test]
    fn the_signature_matches_the_sigv4_test_suite_derivation() {
        // AWS's documented example key derivation: secret wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY,
        // 20120215, us-east-1, iam → f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d.
        let key = ["iam", "aws4_request"].iter().fold(
            hmac(&hmac(b"AWS4wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20120215"), "us-east-1"),
            |key, part| hmac(&key, part),
        );
        assert_eq!(hex(&key), "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d");
    }
}
