//! The AWS CLI against `dynalab serve` (the scenario is tests/sdk/awscli_scenario.sh; `scripts/test`
//! installs awscli from tests/sdk/requirements.txt).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

#[test]
fn the_aws_cli_works_against_dynalab_serve() {
    let mut server = Command::new(env!("CARGO_BIN_EXE_dynalab"))
        .args(["serve", "--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("dynalab starts");
    let mut ready = String::new();
    BufReader::new(server.stdout.take().expect("stdout")).read_line(&mut ready).expect("ready line");
    let endpoint = ready.trim().rsplit(' ').next().expect("address").to_string();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/sdk/awscli_scenario.sh");
    let output = Command::new("bash").arg(script).arg(&endpoint).output();
    let _ = server.kill();
    let _ = server.wait();
    let output = output.expect("bash runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "AWS CLI scenario failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}
