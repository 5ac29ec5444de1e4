//! The smallest client that speaks DynamoDB's JSON 1.0 protocol over loopback HTTP/1.1.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A DynamoDB response: HTTP status and parsed body.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub body: serde_json::Value,
}

/// POSTs one operation to `127.0.0.1:port`. The access key picks DynamoDB Local's database.
pub fn call(port: u16, access_key: &str, operation: &str, body: &str) -> std::io::Result<Response> {
    call_target(port, access_key, &format!("DynamoDB_20120810.{operation}"), body)
}

/// [`call`] with the full `X-Amz-Target` (e.g. `DynamoDBStreams_20120810.GetRecords`).
pub fn call_target(port: u16, access_key: &str, target: &str, body: &str) -> std::io::Result<Response> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let request = format!(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Target: {target}\r\nAuthorization: AWS4-HMAC-SHA256 Credential={access_key}/20261202/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000\r\nX-Amz-Date: 20261202T000000Z\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw);
    let (head, payload) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let payload = if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        dechunk(payload)
    } else {
        payload.to_string()
    };
    let body = serde_json::from_str(&payload).unwrap_or(serde_json::Value::String(payload));
    Ok(Response { status, body })
}

fn dechunk(mut text: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = text.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        text = rest[size..].trim_start_matches("\r\n");
    }
    out
}
