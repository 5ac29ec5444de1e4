//! Real clients against `dynalab serve`: boto3, the AWS CLI and the AWS SDK for JavaScript v3 (the
//! scenarios are in tests/sdk/; `scripts/test` installs them from tests/sdk/requirements.txt and
//! tests/package.json).

mod common;

use std::path::Path;
use std::process::Command;

/// Runs a scenario script against a fresh server; it must exit 0 and report no failure.
fn run_scenario(program: &str, script: &str) {
    run_scenario_with(program, script, &[]);
}

/// The same against a server started with `flags`.
fn run_scenario_with(program: &str, script: &str, flags: &[&str]) {
    run_scenario_on(program, script, common::Server::start_with(flags));
}

/// The same against `server`.
fn run_scenario_on(program: &str, script: &str, server: common::Server) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/sdk").join(script);
    let output = Command::new(program).arg(script).arg(&server.endpoint).output().expect("scenario runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{program} scenario failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}

#[test]
fn a_boto3_session_works_against_dynalab_serve() {
    run_scenario("python3", "boto3_scenario.py");
}

#[test]
fn an_aws_cli_session_works_against_dynalab_serve() {
    run_scenario("bash", "awscli_scenario.sh");
}

#[test]
fn an_aws_sdk_for_javascript_session_works_against_dynalab_serve() {
    run_scenario("node", "js_scenario.mjs");
}

/// The clients' own signatures, verified: every scenario's credentials are lab/lab.
const VERIFIED: [&str; 2] = ["--credentials", "lab:lab"];

#[test]
fn signatures_of_boto3_the_aws_cli_and_the_javascript_sdk_verify_and_wrong_ones_are_refused() {
    run_scenario_with("python3", "boto3_credentials.py", &VERIFIED);
    run_scenario_with("python3", "boto3_scenario.py", &VERIFIED);
    run_scenario_with("bash", "awscli_scenario.sh", &VERIFIED);
    run_scenario_with("node", "js_scenario.mjs", &VERIFIED);
}

/// The secret need not be on the command line: from a file, or from the environment.
#[test]
fn credentials_come_from_a_file_or_the_environment_as_well() {
    let file = std::env::temp_dir().join(format!("dynalab-credentials-{}", std::process::id()));
    std::fs::write(&file, "lab:lab\n").expect("credentials file");
    let path = file.to_string_lossy().into_owned();
    run_scenario_on("python3", "boto3_credentials.py", common::Server::start_with(&["--credentials-file", &path]));
    run_scenario_on(
        "python3",
        "boto3_credentials.py",
        common::Server::start_with_env(&[], &[("DYNALAB_CREDENTIALS", "lab:lab")]),
    );
    let _ = std::fs::remove_file(&file);
    let refused = Command::new(env!("CARGO_BIN_EXE_dynalab"))
        .args(["serve", "--port", "0", "--credentials-file", "/nonexistent/credentials"])
        .output()
        .expect("runs");
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).starts_with("dynalab: --credentials-file /nonexistent/credentials: ")
    );
}

#[test]
fn a_boto3_streams_consumer_reads_every_record_once_in_order() {
    run_scenario("python3", "boto3_streams.py");
}

#[test]
fn a_partiql_session_works_through_the_aws_sdk_for_javascript() {
    run_scenario("node", "js_partiql.mjs");
}

#[test]
fn the_aws_sdk_for_javascript_works_from_a_browser_page_on_another_origin() {
    run_scenario("node", "js_browser.mjs");
}

/// The npm package's in-process engine (packages/dynalab, built by `scripts/npm-package`) answers
/// the same SDK scenarios exactly as `dynalab serve` does: each call's output or error compared
/// (values the wall clock makes are placeholders in both transcripts).
#[test]
fn the_npm_packages_in_process_handler_answers_the_sdk_scenarios_as_dynalab_serve_does() {
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../packages/dynalab/wasm/dynalab_bg.wasm");
    assert!(package.exists(), "the npm package is not built: run scripts/npm-package (scripts/test does)");
    same_answers_in_process("node", &["js_scenario.mjs", "js_partiql.mjs", "js_streams.mjs"], 8);
}

/// Runs each scenario against a fresh `dynalab serve` and in process (its first argument
/// `in-process`), each writing a transcript (TRANSCRIPT=FILE) of every call's answer; the two
/// transcripts must have at least `min_calls` calls and be equal call by call.
fn same_answers_in_process(program: &str, scripts: &[&str], min_calls: usize) {
    let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/sdk");
    let dir = std::env::temp_dir().join(format!("dynalab-transcripts-{program}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for script in scripts {
        let server = common::Server::start_with(&[]);
        let mut transcripts = Vec::new();
        for (label, target) in [("serve", server.endpoint.as_str()), ("in-process", "in-process")] {
            let file = dir.join(format!("{script}.{label}.json"));
            let output = Command::new(program)
                .arg(sdk.join(script))
                .arg(target)
                .env("TRANSCRIPT", &file)
                .output()
                .expect("the scenario runs");
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                output.status.success(),
                "{script} against {label}:\n{stdout}\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
            assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
            let text = std::fs::read_to_string(&file).expect("transcript written");
            let calls: Vec<serde_json::Value> = serde_json::from_str(&text).expect("transcript is JSON");
            transcripts.push(calls);
        }
        assert!(transcripts[0].len() >= min_calls, "{script}: {} calls recorded", transcripts[0].len());
        assert_eq!(transcripts[0].len(), transcripts[1].len(), "{script}: as many calls");
        for (served, in_process) in transcripts[0].iter().zip(&transcripts[1]) {
            assert_eq!(served, in_process, "{script}: a call answered differently in-process");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_javascript_streams_consumer_reads_every_change_in_order() {
    run_scenario("node", "js_streams.mjs");
}

/// The Python package's in-process mock (python/, installed by `scripts/test`) answers the boto3
/// scenarios exactly as `dynalab serve` does: each call's status and parsed answer compared (values
/// the wall clock makes are placeholders in both transcripts).
#[test]
fn the_python_packages_in_process_mock_answers_the_boto3_scenarios_as_dynalab_serve_does() {
    let installed = Command::new("python3").args(["-c", "import dynalab"]).output().expect("python3 runs");
    assert!(
        installed.status.success(),
        "the Python package is not installed: scripts/test builds and installs it ({})",
        String::from_utf8_lossy(&installed.stderr)
    );
    same_answers_in_process("python3", &["boto3_scenario.py", "boto3_streams.py"], 20);
}
