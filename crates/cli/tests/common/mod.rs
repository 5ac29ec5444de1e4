//! A `dynalab serve` process for the CLI's tests, killed when dropped.
// Each test binary compiles this module and uses part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

pub struct Server {
    pub child: Child,
    /// `http://127.0.0.1:PORT`, from the ready line.
    pub endpoint: String,
    pub port: u16,
}

impl Server {
    /// Starts `dynalab serve --port 0` and waits for its ready line.
    pub fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dynalab"))
            .args(["serve", "--port", "0"])
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
