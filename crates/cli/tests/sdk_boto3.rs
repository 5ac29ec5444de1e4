//! boto3, the AWS SDK for Python, against `dynalab serve` (the scenario is tests/sdk/boto3_scenario.py;
//! `scripts/test` installs boto3 from tests/sdk/requirements.txt).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

#[test]
fn a_boto3_session_works_against_dynalab_serve() {
    let mut server = Command::new(env!("CARGO_BIN_EXE_dynalab"))
        .args(["serve", "--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("dynalab starts");
    let mut ready = String::new();
    BufReader::new(server.stdout.take().expect("stdout")).read_line(&mut ready).expect("ready line");
    let endpoint = ready.trim().rsplit(' ').next().expect("address").to_string();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/sdk/boto3_scenario.py");
    let output = Command::new("python3").arg(script).arg(&endpoint).output();
    let _ = server.kill();
    let _ = server.wait();
    let output = output.expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "boto3 scenario failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}
