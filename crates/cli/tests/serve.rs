//! `dynalab serve` as a user runs it: prints where it listens, answers DynamoDB requests, and
//! stops cleanly on SIGTERM.

mod common;

use common::post;
use std::process::Command;

#[test]
fn serves_on_loopback_and_stops_on_sigterm() {
    let mut server = common::Server::start();
    assert!(server.endpoint.starts_with("http://127.0.0.1:"), "binds loopback by default: {}", server.endpoint);
    let port = server.port;

    let created = post(
        port,
        "CreateTable",
        r#"{"TableName":"things","AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#,
    );
    assert!(created.starts_with("HTTP/1.1 200"), "{created}");
    let listed = post(port, "ListTables", "{}");
    assert!(listed.contains(r#"{"TableNames":["things"]}"#), "{listed}");
    assert!(listed.to_ascii_lowercase().contains("x-amz-crc32:"), "{listed}");

    let stopped = Command::new("kill").args(["-TERM", &server.child.id().to_string()]).status().expect("kill");
    assert!(stopped.success());
    let status = server.child.wait().expect("exit");
    assert!(status.success(), "exits cleanly on SIGTERM: {status}");
}

#[test]
fn explains_every_flag() {
    let help = Command::new(env!("CARGO_BIN_EXE_dynalab")).args(["serve", "--help"]).output().expect("help");
    let text = String::from_utf8_lossy(&help.stdout);
    for flag in ["--host", "--port"] {
        assert!(text.contains(flag), "{flag} missing from:\n{text}");
    }
}

/// `DYNALAB_CREDENTIALS` set but blank is refused, as an empty `--credentials-file` is: it must
/// never quietly turn signature checking off.
#[test]
fn blank_credentials_are_refused_as_an_empty_file_is() {
    let empty = std::env::temp_dir().join(format!("dynalab-empty-credentials-{}", std::process::id()));
    std::fs::write(&empty, "\n").expect("write");
    for (env, args) in [
        (Some(""), vec!["serve", "--port", "0"]),
        (Some("   "), vec!["serve", "--port", "0"]),
        (None, vec!["serve", "--port", "0", "--credentials-file", empty.to_str().expect("path")]),
    ] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_dynalab"));
        command.args(&args).env_remove("DYNALAB_CREDENTIALS");
        if let Some(value) = env {
            command.env("DYNALAB_CREDENTIALS", value);
        }
        let refused = command.output().expect("runs");
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success(), "{env:?} {args:?}: started");
        assert!(stderr.contains("expected KEY:SECRET"), "{env:?}: {stderr}");
        if env.is_some() {
            assert!(stderr.contains("DYNALAB_CREDENTIALS is set but blank"), "{stderr}");
        }
    }
    let _ = std::fs::remove_file(empty);
}
