//! A `dynalab serve` process for the CLI's tests, killed when dropped.
// Each test binary compiles this module and uses part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// One signed-looking DynamoDB request to `127.0.0.1:port`; the raw HTTP response.
pub fn post(port: u16, operation: &str, body: &str) -> String {
    post_to(port, &format!("DynamoDB_20120810.{operation}"), body)
}

/// One signed-looking request with a whole `X-Amz-Target` (`DynamoDBStreams_20120810.GetRecords`).
pub fn post_to(port: u16, target: &str, body: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let request = format!(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: {target}\r\nX-Amz-Date: 20261202T000000Z\r\nAuthorization: AWS4-HMAC-SHA256 Credential=lab/20261202/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("write");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    response
}

pub struct Server {
    pub child: Child,
    /// `http://127.0.0.1:PORT`, from the ready line.
    pub endpoint: String,
    pub port: u16,
}

impl Server {
    /// Starts `dynalab serve --port 0` and waits for its ready line.
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// Starts `dynalab serve --port 0` with more flags and waits for its ready line.
    pub fn start_with(flags: &[&str]) -> Self {
        Self::start_with_env(flags, &[])
    }

    /// The same with environment variables set for the server.
    pub fn start_with_env(flags: &[&str], env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dynalab"))
            .args(["serve", "--port", "0"])
            .args(flags)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .spawn()
            .expect("dynalab starts");
        let mut ready = String::new();
        BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut ready).expect("ready line");
        let endpoint = ready.trim().rsplit(' ').next().expect("address").to_string();
        let port = endpoint.rsplit(':').next().and_then(|p| p.parse().ok()).expect("port");
        Self { child, endpoint, port }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
