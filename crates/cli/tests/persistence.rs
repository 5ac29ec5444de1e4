//! `--data-dir`: acknowledged writes survive `kill -9`, a torn last record is dropped, and a second
//! server on the same directory refuses to start.

mod common;

use common::{post, Server};
use std::io::Write;
use std::process::Command;

#[test]
fn acknowledged_writes_survive_kill_9_and_a_torn_tail() {
    let (dir, data_dir) = fresh_dir("dynalab-persistence");
    let mut first = Server::start_with(&["--data-dir", &data_dir]);
    let created = create_table(first.port, "things");
    assert!(created.starts_with("HTTP/1.1 200"), "{created}");
    for i in 0..50 {
        let put = post(
            first.port,
            "PutItem",
            &format!(r#"{{"TableName":"things","Item":{{"id":{{"S":"item-{i}"}},"n":{{"N":"{i}"}}}}}}"#),
        );
        assert!(put.starts_with("HTTP/1.1 200"), "{put}");
    }
    let deleted = post(first.port, "DeleteItem", r#"{"TableName":"things","Key":{"id":{"S":"item-0"}}}"#);
    assert!(deleted.starts_with("HTTP/1.1 200"));
    let refused = post(
        first.port,
        "PutItem",
        r#"{"TableName":"things","Item":{"id":{"S":"item-1"}},"ConditionExpression":"attribute_not_exists(id)"}"#,
    );
    assert!(refused.contains("ConditionalCheckFailedException"));

    // A second server on the same directory refuses, naming the problem.
    let second = Command::new(env!("CARGO_BIN_EXE_dynalab"))
        .args(["serve", "--port", "0", "--data-dir", &data_dir])
        .output()
        .expect("runs");
    assert!(!second.status.success());
    assert!(String::from_utf8_lossy(&second.stderr).contains("is in use by another dynalab process"));

    first.child.kill().expect("kill -9");
    first.child.wait().expect("gone");
    drop(first);
    // A crash in the middle of an append leaves half a record behind.
    let mut log = std::fs::OpenOptions::new().append(true).open(dir.join("writes.log")).expect("log");
    log.write_all(&[200, 0, 0, 0, 1, 2, 3, 4, b'x', b'y']).expect("torn tail");
    drop(log);

    let again = Server::start_with(&["--data-dir", &data_dir]);
    assert_eq!(scan_count_of(again.port, "things"), r#"{"Count":49,"ScannedCount":49}"#);
    let item = post(again.port, "GetItem", r#"{"TableName":"things","Key":{"id":{"S":"item-49"}}}"#);
    assert!(item.contains(r#""n":{"N":"49"}"#), "{item}");
    drop(again);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_long_log_is_compacted_at_start_without_losing_anything() {
    let (dir, data_dir) = fresh_dir("dynalab-compaction");
    let first = Server::start_with(&["--data-dir", &data_dir]);
    create_table(first.port, "things");
    for i in 0..1200 {
        post(
            first.port,
            "UpdateItem",
            &format!(
                r#"{{"TableName":"things","Key":{{"id":{{"S":"counter-{}"}}}},"UpdateExpression":"ADD n :one","ExpressionAttributeValues":{{":one":{{"N":"1"}}}}}}"#,
                i % 3
            ),
        );
    }
    drop(first);
    let long = std::fs::metadata(dir.join("writes.log")).expect("log").len();
    let again = Server::start_with(&["--data-dir", &data_dir]);
    let short = std::fs::metadata(dir.join("writes.log")).expect("log").len();
    assert!(short * 20 < long, "compacted from {long} to {short} bytes");
    let item = post(again.port, "GetItem", r#"{"TableName":"things","Key":{"id":{"S":"counter-1"}}}"#);
    assert!(item.contains(r#""n":{"N":"400"}"#), "{item}");
    drop(again);
    // The compacted log replays as well as the original did.
    let third = Server::start_with(&["--data-dir", &data_dir]);
    assert_eq!(scan_count_of(third.port, "things"), r#"{"Count":3,"ScannedCount":3}"#);
    drop(third);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_write_boto3_saw_acknowledged_survives_kill_9_mid_load() {
    let (dir, data_dir) = fresh_dir("dynalab-crash");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/sdk/crash_writer.py");
    let mut server = Server::start_with(&["--data-dir", &data_dir]);
    let created = Command::new("python3").arg(&script).args([&server.endpoint, "create"]).output().expect("python3");
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));

    // Four boto3 threads write until the server dies; kill it once enough writes were acknowledged,
    // so some requests are in flight at the moment of the kill.
    let mut writer = Command::new("python3")
        .arg(&script)
        .args([&server.endpoint, "write"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("writer starts");
    let mut acknowledged = Vec::new();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(writer.stdout.take().expect("stdout")));
    while acknowledged.len() < 300 {
        let line = lines.next().expect("the writer stopped early").expect("line");
        acknowledged.push(line);
    }
    server.child.kill().expect("kill -9");
    server.child.wait().expect("gone");
    acknowledged.extend(lines.map_while(Result::ok));
    writer.wait().expect("writer ends");
    drop(server);

    let again = Server::start_with(&["--data-dir", &data_dir]);
    for line in &acknowledged {
        let mut parts = line.split(' ').skip(1);
        let (id, version) = (parts.next().expect("id"), parts.next().expect("version"));
        let item = post(again.port, "GetItem", &format!(r#"{{"TableName":"crash","Key":{{"id":{{"S":"{id}"}}}}}}"#));
        assert!(item.contains(&format!(r#""v":{{"N":"{version}"}}"#)), "acknowledged {line} but after restart: {item}");
    }
    drop(again);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn expired_items_are_swept_and_stay_gone_after_a_restart() {
    let (dir, data_dir) = fresh_dir("dynalab-ttl");
    let first = Server::start_with(&["--data-dir", &data_dir]);
    create_table(first.port, "sessions");
    let enabled = post(
        first.port,
        "UpdateTimeToLive",
        r#"{"TableName":"sessions","TimeToLiveSpecification":{"AttributeName":"exp","Enabled":true}}"#,
    );
    assert!(enabled.starts_with("HTTP/1.1 200"), "{enabled}");
    post(first.port, "PutItem", r#"{"TableName":"sessions","Item":{"id":{"S":"old"},"exp":{"N":"1764633600"}}}"#);
    post(first.port, "PutItem", r#"{"TableName":"sessions","Item":{"id":{"S":"new"},"exp":{"N":"4102444800"}}}"#);
    // Still readable until the sweep runs (every 5 s), as on DynamoDB.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(12);
    while scan_count_of(first.port, "sessions") != r#"{"Count":1,"ScannedCount":1}"# {
        assert!(std::time::Instant::now() < deadline, "the expired item was not swept");
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    drop(first);
    let again = Server::start_with(&["--data-dir", &data_dir]);
    assert_eq!(scan_count_of(again.port, "sessions"), r#"{"Count":1,"ScannedCount":1}"#);
    let ttl = post(again.port, "DescribeTimeToLive", r#"{"TableName":"sessions"}"#);
    assert!(ttl.contains(r#""TimeToLiveStatus":"ENABLED""#), "{ttl}");
    drop(again);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An empty directory for a test's `--data-dir`, and its path as a flag value.
fn fresh_dir(name: &str) -> (std::path::PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let data_dir = dir.to_string_lossy().to_string();
    (dir, data_dir)
}

/// Creates an on-demand table keyed by `id`; the raw response.
fn create_table(port: u16, name: &str) -> String {
    let request = format!(
        r#"{{"TableName":"{name}","AttributeDefinitions":[{{"AttributeName":"id","AttributeType":"S"}}],"KeySchema":[{{"AttributeName":"id","KeyType":"HASH"}}],"BillingMode":"PAY_PER_REQUEST"}}"#
    );
    post(port, "CreateTable", &request)
}

fn scan_count_of(port: u16, table: &str) -> String {
    let response = post(port, "Scan", &format!(r#"{{"TableName":"{table}","Select":"COUNT"}}"#));
    response.split("\r\n\r\n").nth(1).unwrap_or_default().to_string()
}
