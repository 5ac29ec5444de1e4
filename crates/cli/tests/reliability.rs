//! `dynalab serve` under faults: kill -9 after every kind of change, each class of log damage, a
//! full disk, stalled and half-closing clients, a stuck client at shutdown, and a client sending
//! maximal requests beside one reading.

mod common;

use common::{post, post_to, Server};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The tests here measure latencies and time shutdowns on a two-core machine: one at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dynalab-reliability-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn start(dir: &Path, flags: &[&str]) -> Server {
    let mut all = vec!["--data-dir", dir.to_str().expect("utf-8 path")];
    all.extend_from_slice(flags);
    Server::start_with(&all)
}

/// The JSON body of a request's answer, and whether it was 200.
fn call(port: u16, target: &str, body: &Value) -> (bool, Value) {
    let response = post(port, target, &body.to_string());
    let ok = response.starts_with("HTTP/1.1 200");
    let body = response.split("\r\n\r\n").nth(1).unwrap_or_default();
    (ok, serde_json::from_str(body).unwrap_or(Value::Null))
}

fn ok(port: u16, target: &str, body: Value) -> Value {
    let (ok, answer) = call(port, target, &body);
    assert!(ok, "{target} {body}: {answer}");
    answer
}

/// Everything a client can observe of the server's state: tables, their descriptions, items,
/// TTL settings, tags and stream records.
fn state(port: u16) -> Value {
    let mut state = serde_json::Map::new();
    let tables = ok(port, "ListTables", json!({}));
    for table in tables["TableNames"].as_array().cloned().unwrap_or_default() {
        let name = table.as_str().unwrap_or_default().to_string();
        let describe = ok(port, "DescribeTable", json!({"TableName": name}));
        let mut items = ok(port, "Scan", json!({"TableName": name}))["Items"].as_array().cloned().unwrap_or_default();
        items.sort_by_key(Value::to_string);
        let ttl = ok(port, "DescribeTimeToLive", json!({"TableName": name}));
        let arn = describe["Table"]["TableArn"].clone();
        let tags = ok(port, "ListTagsOfResource", json!({"ResourceArn": arn}));
        let records = describe["Table"]["LatestStreamArn"].as_str().map(|arn| stream_records(port, arn));
        state.insert(name, json!({"describe": describe, "items": items, "ttl": ttl, "tags": tags, "stream": records}));
    }
    Value::Object(state)
}

fn stream_records(port: u16, arn: &str) -> Value {
    let body = |target: &str, body: Value| -> Value {
        let response = post_to(port, &format!("DynamoDBStreams_20120810.{target}"), &body.to_string());
        serde_json::from_str(response.split("\r\n\r\n").nth(1).unwrap_or_default()).unwrap_or(Value::Null)
    };
    let stream = body("DescribeStream", json!({"StreamArn": arn}));
    let shard = stream["StreamDescription"]["Shards"][0]["ShardId"].clone();
    let iterator =
        body("GetShardIterator", json!({"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"}));
    let records = body("GetRecords", json!({"ShardIterator": iterator["ShardIterator"]}));
    let mut records = records["Records"].clone();
    // Arrival times are stamped when a record is made, so a replay stamps them anew.
    for record in records.as_array_mut().into_iter().flatten() {
        record["dynamodb"].as_object_mut().map(|d| d.remove("ApproximateCreationDateTime"));
    }
    records
}

fn kill_9(mut server: Server) {
    server.child.kill().expect("kill -9");
    server.child.wait().expect("gone");
}

#[test]
fn every_kind_of_change_survives_kill_9() {
    let _serial = serial();
    let dir = fresh_dir("kill9");
    let table = |name: &str, extra: Value| {
        let mut request = json!({"TableName": name, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]});
        if let (Some(request), Some(extra)) = (request.as_object_mut(), extra.as_object()) {
            request.extend(extra.clone());
        }
        request
    };
    let item = |pk: &str, sk: u32| json!({"pk": {"S": pk}, "sk": {"N": sk.to_string()}, "g": {"S": "G"}});
    let arn = "arn:aws:dynamodb:us-east-1:000000000000:table/main";
    let steps: Vec<(&str, Value)> = vec![
        (
            "CreateTable",
            table(
                "main",
                json!({"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}),
            ),
        ),
        ("PutItem", json!({"TableName": "main", "Item": item("a", 1)})),
        (
            "UpdateItem",
            json!({"TableName": "main", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}},
            "UpdateExpression": "SET n = :n", "ExpressionAttributeValues": {":n": {"N": "7"}}}),
        ),
        (
            "BatchWriteItem",
            json!({"RequestItems": {"main": [{"PutRequest": {"Item": item("b", 1)}}, {"PutRequest": {"Item": item("b", 2)}}]}}),
        ),
        (
            "TransactWriteItems",
            json!({"TransactItems": [{"Put": {"TableName": "main", "Item": item("c", 1)}},
            {"Update": {"TableName": "main", "Key": {"pk": {"S": "b"}, "sk": {"N": "1"}}, "UpdateExpression": "REMOVE g"}}]}),
        ),
        ("DeleteItem", json!({"TableName": "main", "Key": {"pk": {"S": "b"}, "sk": {"N": "2"}}})),
        ("ExecuteStatement", json!({"Statement": "INSERT INTO main VALUE {'pk': 'd', 'sk': 1, 'via': 'partiql'}"})),
        ("ExecuteStatement", json!({"Statement": "UPDATE main SET n = 9 WHERE pk = 'd' AND sk = 1"})),
        (
            "BatchExecuteStatement",
            json!({"Statements": [{"Statement": "INSERT INTO main VALUE {'pk': 'e', 'sk': 1}"},
            {"Statement": "DELETE FROM main WHERE pk = 'c' AND sk = 1"}]}),
        ),
        (
            "ExecuteTransaction",
            json!({"TransactStatements": [{"Statement": "INSERT INTO main VALUE {'pk': 'f', 'sk': 1}"}]}),
        ),
        (
            "UpdateTable",
            json!({"TableName": "main", "AttributeDefinitions": [{"AttributeName": "g", "AttributeType": "S"}],
            "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"}}}]}),
        ),
        (
            "TagResource",
            json!({"ResourceArn": arn, "Tags": [{"Key": "team", "Value": "lab"}, {"Key": "tier", "Value": "1"}]}),
        ),
        ("UntagResource", json!({"ResourceArn": arn, "TagKeys": ["tier"]})),
        ("CreateTable", table("doomed", json!({}))),
        ("DeleteTable", json!({"TableName": "doomed"})),
        (
            "PutItem",
            json!({"TableName": "main", "Item": {"pk": {"S": "later"}, "sk": {"N": "1"}, "exp": {"N": "4102444800"}}}),
        ),
        (
            "UpdateTimeToLive",
            json!({"TableName": "main", "TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}}),
        ),
    ];
    let mut server = start(&dir, &[]);
    for (n, (target, body)) in steps.iter().enumerate() {
        ok(server.port, target, body.clone());
        let before = state(server.port);
        kill_9(server);
        server = start(&dir, &[]);
        assert_eq!(state(server.port), before, "after step {} ({target}) and kill -9", n + 1);
    }
    // The TTL process removes an expired item (sweeps run every 5 s); its stream record says it
    // was the service, and says so again after a restart.
    ok(
        server.port,
        "PutItem",
        json!({"TableName": "main", "Item": {"pk": {"S": "old"}, "sk": {"N": "1"}, "exp": {"N": "1764633600"}}}),
    );
    let deadline = Instant::now() + Duration::from_secs(12);
    while ok(server.port, "GetItem", json!({"TableName": "main", "Key": {"pk": {"S": "old"}, "sk": {"N": "1"}}}))
        .get("Item")
        .is_some()
    {
        assert!(Instant::now() < deadline, "the expired item was not swept");
        std::thread::sleep(Duration::from_millis(200));
    }
    let before = state(server.port);
    let records = before["main"]["stream"].as_array().cloned().unwrap_or_default();
    let removal = records.last().expect("a record");
    assert_eq!(removal["eventName"], "REMOVE");
    assert_eq!(removal["userIdentity"], json!({"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}));
    kill_9(server);
    let server = start(&dir, &[]);
    assert_eq!(state(server.port), before, "after the TTL deletion and kill -9");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Offsets where each record of a log begins, and where its end mark is (the log's format:
/// docs/persistence.md: a 28-byte header, then frames of a 20-byte header and a payload whose
/// first byte is the kind, 0 for the end mark).
fn record_starts(log: &[u8]) -> (Vec<usize>, usize) {
    let mut starts = Vec::new();
    let mut at = 28;
    while log[at + 20] != 0 {
        starts.push(at);
        let length = u32::from_le_bytes([log[at], log[at + 1], log[at + 2], log[at + 3]]) as usize;
        at += 20 + length;
    }
    (starts, at)
}

fn fill(dir: &Path, items: u32) {
    let server = start(dir, &[]);
    ok(
        server.port,
        "CreateTable",
        json!({"TableName": "things", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}),
    );
    for n in 0..items {
        ok(server.port, "PutItem", json!({"TableName": "things", "Item": {"id": {"S": format!("item-{n}")}}}));
    }
    drop(server);
}

fn count(port: u16) -> u64 {
    ok(port, "Scan", json!({"TableName": "things", "Select": "COUNT"}))["Count"].as_u64().unwrap_or(0)
}

fn serve_once(dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dynalab"))
        .args(["serve", "--port", "0", "--data-dir", dir.to_str().expect("path")])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|child| {
            // A refused start exits at once; one that starts is stopped after a moment.
            let deadline = Instant::now() + Duration::from_secs(3);
            let mut child = child;
            while Instant::now() < deadline {
                if child.try_wait()?.is_some() {
                    return child.wait_with_output();
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            child.kill()?;
            child.wait_with_output()
        })
        .expect("runs")
}

#[test]
fn each_kind_of_damage_refuses_to_start_and_repair_keeps_a_copy() {
    let _serial = serial();
    let dir = fresh_dir("damage");
    fill(&dir, 50);
    let whole = std::fs::read(dir.join("writes.log")).expect("log");
    let (starts, mark) = record_starts(&whole);
    assert_eq!((starts.len(), mark + 37), (51, whole.len()), "the table, 50 items, then the end mark");
    let middle = starts[25];
    let last = starts[50];
    // (what is damaged, the byte, where the refusal says the damage is)
    let cases = [
        ("a length field", middle + 1, middle),
        ("a header's checksum", middle + 13, middle),
        ("a payload's checksum", middle + 17, middle),
        ("a payload byte", middle + 30, middle),
        ("a byte of the last complete record", last + 30, last),
    ];
    for (what, byte, at) in cases {
        let mut damaged = whole.clone();
        damaged[byte] ^= 0x41;
        std::fs::write(dir.join("writes.log"), &damaged).expect("damage");
        let output = serve_once(&dir);
        let said = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{what}: started anyway");
        assert!(said.contains(&format!("damaged at byte {at}")), "{what}: {said}");
        assert!(said.contains("dynalab repair"), "{what}: {said}");
        assert_eq!(std::fs::read(dir.join("writes.log")).expect("log"), damaged, "{what}: the evidence is kept");
    }
    // Zeros after the end mark are an append that never got its own: cut, every item kept.
    let mut zeros = whole.clone();
    zeros.extend([0; 100]);
    std::fs::write(dir.join("writes.log"), &zeros).expect("zeros");
    let server = start(&dir, &[]);
    assert_eq!(count(server.port), 50);
    drop(server);
    assert_eq!(std::fs::read(dir.join("writes.log")).expect("log"), whole);
    // Repair: a copy of the damaged log, then the log cut where the damage was.
    let mut damaged = whole.clone();
    damaged[middle + 1] ^= 0x41;
    std::fs::write(dir.join("writes.log"), &damaged).expect("damage");
    let said = repair(&dir);
    assert!(said.contains("kept the 25 records"), "{said}");
    let copy = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().starts_with("writes.log.damaged-"))
        .expect("a copy");
    assert_eq!(std::fs::read(copy.path()).expect("copy"), damaged);
    let server = start(&dir, &[]);
    assert_eq!(count(server.port), 24, "the table and the first 24 items");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

fn repair(dir: &Path) -> String {
    let repair = Command::new(env!("CARGO_BIN_EXE_dynalab"))
        .args(["repair", "--data-dir", dir.to_str().expect("path")])
        .output()
        .expect("repair runs");
    let said = String::from_utf8_lossy(&repair.stdout).to_string();
    assert!(repair.status.success(), "{said} {}", String::from_utf8_lossy(&repair.stderr));
    said
}

fn refusal(dir: &Path) -> String {
    let output = serve_once(dir);
    assert!(!output.status.success(), "started on a damaged log");
    String::from_utf8_lossy(&output.stderr).to_string()
}

/// What a file system can leave after a crash: the file's length kept, its second half zeros
/// (from a record boundary, or from the middle of a record as a lost page would be).
#[test]
fn zeros_from_the_middle_of_the_log_to_its_end_are_refused_and_repairable() {
    let _serial = serial();
    let dir = fresh_dir("zero-run");
    fill(&dir, 200);
    let whole = std::fs::read(dir.join("writes.log")).expect("log");
    let (starts, _) = record_starts(&whole);
    for from in [starts[101], starts[101] + 7, starts[101] + 25] {
        let (refused_at, items_kept) = (starts[101], 100);
        let mut zeroed = whole.clone();
        zeroed[from..].fill(0);
        std::fs::write(dir.join("writes.log"), &zeroed).expect("zeros");
        let said = refusal(&dir);
        assert!(said.contains(&format!("damaged at byte {refused_at}")), "zeros from {from}: {said}");
        assert!(!said.contains("never acknowledged"), "{said}");
        assert_eq!(std::fs::read(dir.join("writes.log")).expect("log"), zeroed, "refusing changes nothing");
        let repaired = repair(&dir);
        assert!(repaired.contains(&format!("kept the {} records", items_kept + 1)), "{repaired}");
        let server = start(&dir, &[]);
        assert_eq!(count(server.port), items_kept);
        drop(server);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A block of the log copied into it a second time (a file system or a copy tool gone wrong): replayed
/// twice, five ADDs would count six.
#[test]
fn a_repeated_record_is_refused_and_repair_keeps_it_once() {
    let _serial = serial();
    let dir = fresh_dir("repeated");
    let server = start(&dir, &[]);
    ok(
        server.port,
        "CreateTable",
        json!({"TableName": "things", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}),
    );
    for _ in 0..5 {
        ok(
            server.port,
            "UpdateItem",
            json!({"TableName": "things", "Key": {"id": {"S": "counter"}}, "UpdateExpression": "ADD n :one",
                "ExpressionAttributeValues": {":one": {"N": "1"}}}),
        );
    }
    drop(server);
    let whole = std::fs::read(dir.join("writes.log")).expect("log");
    let (starts, _) = record_starts(&whole);
    let mut repeated = whole[..starts[4]].to_vec();
    repeated.extend_from_slice(&whole[starts[3]..starts[4]]);
    repeated.extend_from_slice(&whole[starts[4]..]);
    std::fs::write(dir.join("writes.log"), &repeated).expect("repeat");
    let said = refusal(&dir);
    assert!(said.contains(&format!("damaged at byte {}", starts[4])), "{said}");
    assert!(said.contains("record 4 appears a second time"), "{said}");
    let repaired = repair(&dir);
    assert!(repaired.contains("dropped 1 repeated records") && repaired.contains("kept the 6 records"), "{repaired}");
    let server = start(&dir, &[]);
    let item = ok(server.port, "GetItem", json!({"TableName": "things", "Key": {"id": {"S": "counter"}}}));
    assert_eq!(item["Item"]["n"], json!({"N": "5"}), "five acknowledged ADDs, counted once each");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_full_disk_fails_the_write_applies_nothing_and_recovers_when_space_frees() {
    let _serial = serial();
    let dir = fresh_dir("enospc");
    std::fs::create_dir_all(&dir).expect("dir");
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=512k", "tmpfs", dir.to_str().expect("path")])
        .status()
        .expect("mount runs");
    assert!(mounted.success(), "this test needs a small tmpfs (run as root, as CI does)");
    let unmount = Unmount(dir.clone());
    let data = dir.join("data");
    // Space to give back later.
    std::fs::write(dir.join("ballast"), vec![1u8; 128 * 1024]).expect("ballast");
    fill(&data, 0);
    let server = start(&data, &[]);
    let pad = "x".repeat(20_000);
    let mut acknowledged = Vec::new();
    let mut failed = None;
    for n in 0..100 {
        let body = json!({"TableName": "things", "Item": {"id": {"S": format!("big-{n}")}, "pad": {"S": pad}}});
        let (ok, answer) = call(server.port, "PutItem", &body);
        if ok {
            acknowledged.push(n);
        } else {
            assert!(answer["message"].as_str().unwrap_or_default().contains("could not be made durable"), "{answer}");
            failed = Some(n);
            break;
        }
    }
    let failed = failed.expect("the disk filled");
    let key = |n: u32| json!({"TableName": "things", "Key": {"id": {"S": format!("big-{n}")}}});
    assert!(ok(server.port, "GetItem", key(failed)).get("Item").is_none(), "the failed write is not applied");
    std::fs::remove_file(dir.join("ballast")).expect("free space");
    for n in 1000..1005 {
        let body = json!({"TableName": "things", "Item": {"id": {"S": format!("big-{n}")}, "pad": {"S": "y"}}});
        ok(server.port, "PutItem", body);
        acknowledged.push(n);
    }
    kill_9(server);
    let server = start(&data, &[]);
    for n in &acknowledged {
        assert!(ok(server.port, "GetItem", key(*n)).get("Item").is_some(), "acknowledged big-{n} is lost");
    }
    assert!(ok(server.port, "GetItem", key(failed)).get("Item").is_none());
    drop(server);
    drop(unmount);
}

struct Unmount(PathBuf);

impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Milliseconds of each of `n` GetItems on a fresh connection.
fn get_latencies(port: u16, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let started = Instant::now();
            let (ok, _) = call(port, "GetItem", &json!({"TableName": "things", "Key": {"id": {"S": "item-1"}}}));
            assert!(ok);
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect()
}

/// Whether the server closes `stream` within `wait` (reading to its end, not timing out).
fn closed_by_server(stream: &mut TcpStream, wait: Duration) -> bool {
    stream.set_read_timeout(Some(wait)).expect("timeout");
    let mut rest = Vec::new();
    stream.read_to_end(&mut rest).is_ok()
}

fn p99(samples: Vec<f64>) -> f64 {
    percentile(samples, 99)
}

fn percentile(mut samples: Vec<f64>, percent: usize) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[(samples.len() * percent / 100).min(samples.len() - 1)]
}

/// Connections that never finish their headers hold places only until a newcomer needs one (the
/// oldest first) or the header timeout passes; connections whose request is in flight (here, a
/// body that never finishes) are never pushed out: when every place is one, a newcomer is told
/// 503, until the body timeout frees them.
#[test]
fn stalled_connections_give_way_to_newcomers_and_time_out_while_others_are_served() {
    let _serial = serial();
    let dir = fresh_dir("stalled");
    fill(&dir, 3);
    let server = start(&dir, &["--max-connections", "200", "--idle-timeout", "2", "--body-timeout", "2"]);
    let connect = || TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    let closed_soon = |stream: &mut TcpStream| closed_by_server(stream, Duration::from_secs(3));
    // 150 clients that send half their headers and stall.
    let mut stalled: Vec<TcpStream> = (0..150)
        .map(|_| {
            let mut stream = connect();
            stream.write_all(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Tar").expect("write");
            stream
        })
        .collect();
    let latencies = get_latencies(server.port, 200);
    println!("GetItem p99 beside 150 stalled clients: {:.1} ms", p99(latencies.clone()));
    assert!(p99(latencies.clone()) < 50.0, "GetItem p99 beside 150 stalled clients: {:.1} ms", p99(latencies));
    // 100 newcomers: 50 take free places, 50 push out the 50 oldest stalled clients.
    let newcomers: Vec<TcpStream> = (0..100).map(|_| connect()).collect();
    std::thread::sleep(Duration::from_millis(200));
    assert!(stalled.iter_mut().take(40).all(closed_soon), "the oldest stalled clients gave way");
    assert!(get_latencies(server.port, 20).len() == 20, "still served with every place taken");
    // The rest are closed once the header timeout passes.
    std::thread::sleep(Duration::from_millis(2200));
    assert!(stalled.iter_mut().skip(60).all(closed_soon), "a stalled connection outlived the header timeout");
    drop(newcomers);
    // Every place holding a request in flight (a body that never finishes): newcomers get 503.
    let request = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: 100\r\n\r\n{";
    let slow_bodies: Vec<TcpStream> = (0..200)
        .map(|_| {
            let mut stream = connect();
            stream.write_all(request.as_bytes()).expect("write");
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let mut busy = 0;
    for _ in 0..10 {
        let mut stream = connect();
        stream.set_read_timeout(Some(Duration::from_millis(500))).expect("timeout");
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        if answer.starts_with("HTTP/1.1 503") {
            assert!(answer.contains("ServiceUnavailableException"), "{answer}");
            busy += 1;
        }
    }
    assert_eq!(busy, 10, "newcomers while every place has a request in flight are told the server is busy");
    // The body timeout frees them.
    std::thread::sleep(Duration::from_millis(2500));
    assert!(get_latencies(server.port, 5).len() == 5);
    drop(slow_bodies);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// One client opens 2,000 connections to a default server (768 places) and sends nothing, then
/// keeps reopening them; meanwhile a second client makes 1,000 requests, each on a new connection.
/// Idle places are handed to newcomers (the longest idle first), so every request is served.
#[test]
fn an_idle_connection_flood_does_not_shut_out_another_client() {
    let _serial = serial();
    let dir = fresh_dir("flood");
    fill(&dir, 3);
    let server = start(&dir, &[]);
    let port = server.port;
    let flooding = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let flood = {
        let flooding = flooding.clone();
        std::thread::spawn(move || {
            let mut held = std::collections::VecDeque::new();
            let mut opened = 0usize;
            let mut first = None;
            while flooding.load(std::sync::atomic::Ordering::SeqCst) || opened < 2000 {
                if let Ok(stream) = TcpStream::connect(("127.0.0.1", port)) {
                    opened += 1;
                    if first.is_none() {
                        first = stream.try_clone().ok();
                    }
                    held.push_back(stream);
                }
                if held.len() >= 2000 {
                    // Reopen: the oldest goes, a new one comes.
                    held.pop_front();
                }
            }
            (opened, first)
        })
    };
    // Let the flood fill every place before the other client starts.
    std::thread::sleep(Duration::from_millis(1500));
    let latencies = get_latencies(port, 1000);
    flooding.store(false, std::sync::atomic::Ordering::SeqCst);
    let (opened, first) = flood.join().expect("flood");
    println!(
        "GetItem beside an idle flood ({opened} connections opened): p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        percentile(latencies.clone(), 50),
        p99(latencies.clone()),
        percentile(latencies.clone(), 100)
    );
    assert!(opened >= 2000, "the flood opened {opened} connections");
    // The flood's first connection gave up its place long ago.
    let mut first = first.expect("the flood's first connection");
    assert!(closed_by_server(&mut first, Duration::from_secs(2)), "the flood's first connection is still held");
    assert!(p99(latencies.clone()) < 200.0, "p99 {:.1} ms", p99(latencies));
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn clients_that_half_close_after_sending_get_their_answer() {
    let _serial = serial();
    let dir = fresh_dir("half-close");
    fill(&dir, 3);
    let server = start(&dir, &[]);
    let body = r#"{"TableName":"things","Key":{"id":{"S":"item-1"}}}"#;
    for _ in 0..40 {
        let mut stream = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(5))).expect("timeout");
        let request = format!(
            "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: DynamoDB_20120810.GetItem\r\nX-Amz-Date: 20261202T000000Z\r\nAuthorization: AWS4-HMAC-SHA256 Credential=a/b, SignedHeaders=host, Signature=0\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).expect("write");
        stream.shutdown(std::net::Shutdown::Write).expect("half-close");
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 200") && answer.contains("item-1"), "no answer: {answer:?}");
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

fn signal(server: &Server, name: &str) {
    let sent =
        Command::new("kill").args([&format!("-{name}"), &server.child.id().to_string()]).status().expect("kill runs");
    assert!(sent.success());
}

fn wait_exit(server: &mut Server, within: Duration) -> Duration {
    let started = Instant::now();
    while started.elapsed() < within {
        if server.child.try_wait().expect("status").is_some() {
            return started.elapsed();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the server did not exit within {within:?}");
}

#[test]
fn shutdown_finishes_within_its_grace_despite_a_stuck_client_and_releases_the_directory() {
    let _serial = serial();
    let dir = fresh_dir("shutdown");
    fill(&dir, 3);
    let stuck_request = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: DynamoDB_20120810.GetItem\r\nContent-Length: 100\r\n\r\n{\"Tab";
    let mut server = start(&dir, &["--shutdown-grace", "1"]);
    let mut stuck = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    stuck.write_all(stuck_request.as_bytes()).expect("write");
    std::thread::sleep(Duration::from_millis(100));
    signal(&server, "TERM");
    let took = wait_exit(&mut server, Duration::from_secs(5));
    assert!(took < Duration::from_secs(3), "{took:?}");
    drop(server);
    let again = start(&dir, &[]);
    assert_eq!(count(again.port), 3, "the lock was released and the data kept");
    drop(again);
    // A second signal stops at once, whatever the grace.
    let mut server = start(&dir, &["--shutdown-grace", "60"]);
    let mut stuck = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    stuck.write_all(stuck_request.as_bytes()).expect("write");
    std::thread::sleep(Duration::from_millis(100));
    signal(&server, "INT");
    std::thread::sleep(Duration::from_millis(300));
    signal(&server, "INT");
    let took = wait_exit(&mut server, Duration::from_secs(5));
    assert!(took < Duration::from_secs(2), "{took:?}");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A connection that has not sent a whole request has nothing to finish: shutdown closes it at once
/// (the default grace is 10 s), while a request in flight is still answered.
#[test]
fn shutdown_closes_a_header_less_connection_at_once() {
    let _serial = serial();
    let dir = fresh_dir("headerless");
    fill(&dir, 3);
    let mut server = start(&dir, &[]);
    let mut idle = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    idle.write_all(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Tar").expect("write");
    let quiet = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    std::thread::sleep(Duration::from_millis(100));
    let signalled = Instant::now();
    signal(&server, "TERM");
    while server.child.try_wait().expect("status").is_none() {
        assert!(signalled.elapsed() < Duration::from_secs(5), "the server did not exit");
        std::thread::sleep(Duration::from_millis(2));
    }
    let took = signalled.elapsed();
    assert!(took < Duration::from_millis(100), "shutdown took {took:?} with a header-less client");
    let mut rest = Vec::new();
    idle.set_read_timeout(Some(Duration::from_secs(1))).expect("timeout");
    let _ = idle.read_to_end(&mut rest);
    assert!(rest.is_empty(), "a half-sent request gets no answer, only the close");
    drop((quiet, server));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_client_sending_maximal_requests_does_not_hold_up_one_reading() {
    let _serial = serial();
    let dir = fresh_dir("maximal");
    fill(&dir, 3);
    let server = start(&dir, &[]);
    let port = server.port;
    // ~9 MiB PutItems carrying 500,000 unused placeholders, sent back to back.
    let values: serde_json::Map<String, Value> = (0..500_000).map(|n| (format!(":v{n}"), json!({"N": "1"}))).collect();
    let hostile =
        json!({"TableName": "things", "Item": {"id": {"S": "h"}}, "ConditionExpression": "attribute_not_exists(id)",
        "ExpressionAttributeValues": values})
        .to_string();
    assert!(hostile.len() > 8 * 1024 * 1024, "{} bytes", hostile.len());
    let sent = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let sender = {
        let sent = sent.clone();
        std::thread::spawn(move || {
            while sent.load(std::sync::atomic::Ordering::SeqCst) < 4 {
                let answer = post(port, "PutItem", &hostile);
                assert!(answer.contains("ValidationException"), "{}", &answer[..answer.len().min(400)]);
                sent.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        })
    };
    // Read while the four maximal requests are sent and refused.
    let mut latencies = Vec::new();
    while sent.load(std::sync::atomic::Ordering::SeqCst) < 4 && latencies.len() < 20_000 {
        latencies.extend(get_latencies(port, 10));
    }
    sender.join().expect("sender");
    assert!(latencies.len() >= 100, "only {} reads overlapped the maximal requests", latencies.len());
    let reads = latencies.len();
    let p99 = p99(latencies);
    println!("GetItem p99 over {reads} reads beside 4 maximal requests: {p99:.1} ms");
    assert!(p99 < 50.0, "GetItem p99 beside maximal requests: {p99:.1} ms");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_loopback_server_refuses_other_host_names_and_pages() {
    let _serial = serial();
    let server = Server::start();
    let raw = |headers: &str| {
        let mut stream = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
        let request = format!(
            "POST / HTTP/1.1\r\n{headers}\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\nX-Amz-Date: 20261202T000000Z\r\nAuthorization: AWS4-HMAC-SHA256 Credential=a/b, SignedHeaders=host, Signature=0\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}"
        );
        stream.write_all(request.as_bytes()).expect("write");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("read");
        answer
    };
    let rebinding = raw("Host: attacker.example:8000");
    assert!(rebinding.starts_with("HTTP/1.1 403") && rebinding.contains("not a loopback name"), "{rebinding}");
    let page = raw("Host: 127.0.0.1\r\nOrigin: https://attacker.example");
    assert!(page.starts_with("HTTP/1.1 403") && !page.contains("access-control-allow-origin"), "{page}");
    let local_page = raw("Host: localhost\r\nOrigin: http://localhost:5173");
    assert!(local_page.starts_with("HTTP/1.1 200"), "{local_page}");
    assert!(local_page.contains("access-control-allow-origin: http://localhost:5173"), "{local_page}");
    let endpoints = post(server.port, "DescribeEndpoints", "{}");
    assert!(endpoints.contains(&format!("\"Address\":\"127.0.0.1:{}\"", server.port)), "{endpoints}");
}

/// One client loops Scans whose 95-term filter reads every byte of 390 KB items; another reads
/// single items. The Scans run beside the reads, not ahead of them: the reads' p99 stays near
/// what it is alone.
#[test]
fn a_costly_scan_loop_does_not_hold_up_another_clients_reads() {
    let _serial = serial();
    let dir = fresh_dir("costly-scan");
    fill(&dir, 3);
    let server = start(&dir, &[]);
    let port = server.port;
    let payload = "x".repeat(390 * 1024);
    for n in 0..12 {
        ok(
            port,
            "PutItem",
            json!({"TableName": "things", "Item": {"id": {"S": format!("big-{n}")}, "payload": {"S": payload}}}),
        );
    }
    let alone = get_latencies(port, 300);
    let terms: Vec<String> = (0..95).map(|n| format!("contains(payload, :n{n})")).collect();
    let values: serde_json::Map<String, Value> =
        (0..95).map(|n| (format!(":n{n}"), json!({"S": format!("needle-{n}")}))).collect();
    let scan =
        json!({"TableName": "things", "FilterExpression": terms.join(" OR "), "ExpressionAttributeValues": values});
    let scanning = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let scans = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let scanner = {
        let (scanning, scans) = (scanning.clone(), scans.clone());
        std::thread::spawn(move || {
            while scanning.load(std::sync::atomic::Ordering::SeqCst) {
                let answer = ok(port, "Scan", scan.clone());
                assert_eq!(answer["Count"], 0, "{answer}");
                scans.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        })
    };
    while scans.load(std::sync::atomic::Ordering::SeqCst) == 0 {
        assert!(!scanner.is_finished(), "the scanner stopped before its first Scan");
        std::thread::sleep(Duration::from_millis(5));
    }
    // Reads for as long as three Scans take at least, the first Scan's end included.
    let first = scans.load(std::sync::atomic::Ordering::SeqCst);
    let mut beside = Vec::new();
    while beside.len() < 300 || scans.load(std::sync::atomic::Ordering::SeqCst) < first + 3 {
        assert!(!scanner.is_finished(), "the scanner stopped");
        beside.extend(get_latencies(port, 20));
    }
    scanning.store(false, std::sync::atomic::Ordering::SeqCst);
    scanner.join().expect("scanner");
    let scans = scans.load(std::sync::atomic::Ordering::SeqCst);
    let reads = beside.len();
    let (alone, beside) = (p99(alone), p99(beside));
    println!("GetItem p99 alone {alone:.1} ms, over {reads} reads beside {scans} costly Scans {beside:.1} ms");
    assert!(beside < alone + 40.0, "GetItem p99 beside costly Scans: {beside:.1} ms (alone {alone:.1} ms)");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A client on one keep-alive connection: requests sent back to back, answers read by their
/// Content-Length. A connection the server closed is counted as a failure and opened again, as an
/// SDK's retry would.
struct KeepAlive {
    port: u16,
    stream: Option<TcpStream>,
    failures: usize,
}

impl KeepAlive {
    fn new(port: u16) -> Self {
        Self { port, stream: None, failures: 0 }
    }

    /// The status line and body of one answer, or `None` when the connection failed.
    fn call(&mut self, operation: &str, body: &str) -> Option<(String, Vec<u8>)> {
        let port = self.port;
        let stream = self.stream.get_or_insert_with(|| {
            let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
            stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
            stream
        });
        let answer = send(stream, operation, body).and_then(|_| read_answer(stream, usize::MAX));
        if answer.is_none() {
            self.stream = None;
            self.failures += 1;
        }
        answer
    }
}

fn send(stream: &mut TcpStream, operation: &str, body: &str) -> Option<()> {
    let request = format!(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: DynamoDB_20120810.{operation}\r\nX-Amz-Date: 20261202T000000Z\r\nAuthorization: AWS4-HMAC-SHA256 Credential=lab/20261202/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).ok()
}

/// One answer's status line and body (at most `most` bytes of it are read); `None` if the
/// connection ends first.
fn read_answer(stream: &mut TcpStream, most: usize) -> Option<(String, Vec<u8>)> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        (stream.read(&mut byte).ok()? == 1).then_some(())?;
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_string();
    let length: usize = head
        .lines()
        .find_map(|line| line.to_ascii_lowercase().strip_prefix("content-length: ").map(str::to_string))
        .and_then(|n| n.trim().parse().ok())?;
    let mut body = vec![0u8; length.min(most)];
    stream.read_exact(&mut body).ok()?;
    Some((head.lines().next().unwrap_or_default().to_string(), body))
}

/// The idle flood of the fault report, spread over many source addresses: 300 loopback addresses
/// each hold one idle connection and keep reopening it, past `--max-connections 100`, while a
/// client uses two keep-alive connections from one address. Newcomers push out the flood's
/// connections, never the client's: its requests all succeed.
#[test]
fn an_idle_flood_from_many_addresses_does_not_take_a_busy_clients_connections() {
    let _serial = serial();
    let dir = fresh_dir("many-addresses");
    fill(&dir, 3);
    let server = start(&dir, &["--max-connections", "100"]);
    let port = server.port;
    let flooding = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let flood = {
        let flooding = flooding.clone();
        std::thread::spawn(move || {
            let address = |n: usize| std::net::Ipv4Addr::new(127, 0, 1 + (n / 250) as u8, 1 + (n % 250) as u8);
            let server = std::net::SocketAddr::from(([127, 0, 0, 1], port));
            let mut held: Vec<Option<socket2::Socket>> = (0..300).map(|_| None).collect();
            let mut opened = 0usize;
            while flooding.load(std::sync::atomic::Ordering::SeqCst) {
                for (n, slot) in held.iter_mut().enumerate() {
                    // Each address closes its connection and opens another.
                    *slot = None;
                    let socket =
                        socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).expect("socket");
                    socket.bind(&std::net::SocketAddr::from((address(n), 0)).into()).expect("bind");
                    if socket.connect(&server.into()).is_ok() {
                        opened += 1;
                        *slot = Some(socket);
                    }
                }
            }
            opened
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    let get = r#"{"TableName":"things","Key":{"id":{"S":"item-1"}}}"#;
    let mut client = [KeepAlive::new(port), KeepAlive::new(port)];
    let mut latencies = Vec::new();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(3) {
        for connection in &mut client {
            let began = Instant::now();
            if let Some((status, _)) = connection.call("GetItem", get) {
                assert!(status.contains("200"), "{status}");
                latencies.push(began.elapsed().as_secs_f64() * 1000.0);
            }
        }
    }
    flooding.store(false, std::sync::atomic::Ordering::SeqCst);
    let opened = flood.join().expect("flood");
    let failures: usize = client.iter().map(|c| c.failures).sum();
    let answered = latencies.len();
    println!(
        "GetItem on two keep-alive connections beside an idle flood from 300 addresses ({opened} connections opened): {answered} answered, {failures} failed, p99 {:.1} ms",
        p99(latencies.clone())
    );
    assert!(opened > 600, "the flood opened only {opened} connections");
    assert_eq!(failures, 0, "the client's connections were taken ({failures} failures, {answered} answered)");
    assert!(p99(latencies) < 200.0);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

fn rss_mib(server: &Server) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.child.id())).expect("status");
    let kib: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS");
    kib / 1024.0
}

/// A 15 MB BatchGetItem answer is written to a client that reads it slowly: past the idle timeout
/// and while newcomers need places, it is never taken for idle and arrives whole. Clients that
/// ask for such answers and never read them hold at most `--answer-memory` (further large reads
/// are answered 503 meanwhile), and the write timeout closes them and gives the memory back.
#[test]
fn a_large_answer_is_sent_whole_to_a_slow_reader_and_unread_ones_are_bounded() {
    let _serial = serial();
    let dir = fresh_dir("large-answers");
    fill(&dir, 3);
    let server = start(
        &dir,
        &["--max-connections", "24", "--idle-timeout", "1", "--write-timeout", "4", "--answer-memory", "48"],
    );
    let port = server.port;
    let payload = "x".repeat(390 * 1024);
    let keys: Vec<Value> = (0..40).map(|n| json!({"id": {"S": format!("big-{n}")}})).collect();
    for key in &keys {
        let mut item = key.clone();
        item["payload"] = json!({"S": payload});
        ok(port, "PutItem", json!({"TableName": "things", "Item": item}));
    }
    let batch = json!({"RequestItems": {"things": {"Keys": keys}}}).to_string();

    // The slow reader: its answer waits in the socket past the idle timeout while the places
    // fill with newcomers.
    let mut slow = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    slow.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
    send(&mut slow, "BatchGetItem", &batch).expect("sent");
    std::thread::sleep(Duration::from_millis(300));
    let newcomers: Vec<TcpStream> = (0..40).filter_map(|_| TcpStream::connect(("127.0.0.1", port)).ok()).collect();
    std::thread::sleep(Duration::from_millis(2500));
    let (status, body) = read_answer(&mut slow, usize::MAX).expect("the whole answer");
    assert!(status.contains("200"), "{status}");
    let answer: Value = serde_json::from_slice(&body).expect("a whole JSON answer");
    assert_eq!(answer["Responses"]["things"].as_array().map(Vec::len), Some(40));
    assert!(body.len() > 15_000_000, "{} bytes", body.len());
    drop(newcomers);

    // Twelve clients ask for it and never read.
    let before = rss_mib(&server);
    let mut unread = Vec::new();
    for _ in 0..12 {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        send(&mut stream, "BatchGetItem", &batch).expect("sent");
        unread.push(stream);
        std::thread::sleep(Duration::from_millis(150));
    }
    std::thread::sleep(Duration::from_millis(500));
    let holding = rss_mib(&server);
    // Another client's large read is refused while they hold the memory; its small one is not.
    let mut other = KeepAlive::new(port);
    let (refused, said) = other.call("BatchGetItem", &batch).expect("answered");
    assert!(refused.contains("503"), "{refused}");
    assert!(String::from_utf8_lossy(&said).contains("have not read yet"), "{}", String::from_utf8_lossy(&said));
    let (small, _) = other.call("GetItem", r#"{"TableName":"things","Key":{"id":{"S":"item-1"}}}"#).expect("answered");
    assert!(small.contains("200"), "{small}");
    println!("RSS {before:.0} MiB before twelve unread 15 MB answers, {holding:.0} MiB while they wait");
    assert!(holding - before < 48.0 + 40.0, "unread answers grew the server by {:.0} MiB", holding - before);

    // The write timeout closes them; then a large read is answered again.
    std::thread::sleep(Duration::from_secs(6));
    for stream in &mut unread {
        stream.set_read_timeout(Some(Duration::from_secs(5))).expect("timeout");
        let mut everything = Vec::new();
        let _ = stream.read_to_end(&mut everything);
        assert!(everything.len() < 15_000_000, "an unread answer was still sent whole: {}", everything.len());
    }
    let (again, _) = KeepAlive::new(port).call("BatchGetItem", &batch).expect("answered");
    assert!(again.contains("200"), "{again}");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The fault report's reproduction: the first byte of a log of 20 items overwritten, then a
/// start and a repair. Both refuse, naming the file and the formats this build reads; the log is
/// untouched and nothing is cut aside; the byte put back, every item is there.
#[test]
fn a_log_header_this_build_does_not_recognise_stops_the_start_and_repair_and_changes_nothing() {
    let _serial = serial();
    let dir = fresh_dir("unknown-header");
    fill(&dir, 20);
    let log = dir.join("writes.log");
    let whole = std::fs::read(&log).expect("log");
    let mut flipped = whole.clone();
    flipped[0] ^= 0x01;
    std::fs::write(&log, &flipped).expect("flip");
    let started = serve_once(&dir);
    let said = String::from_utf8_lossy(&started.stderr);
    assert!(!started.status.success(), "started on a log it does not recognise: {said}");
    assert!(said.contains(&log.display().to_string()) && said.contains("this build reads"), "{said}");
    let repaired = Command::new(env!("CARGO_BIN_EXE_dynalab"))
        .args(["repair", "--data-dir", dir.to_str().expect("path")])
        .output()
        .expect("repair runs");
    assert!(!repaired.status.success(), "repair accepted it");
    assert!(String::from_utf8_lossy(&repaired.stderr).contains("Nothing was changed"));
    assert_eq!(std::fs::read(&log).expect("log"), flipped, "the log is untouched");
    let aside: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("writes.log."))
        .collect();
    assert!(aside.is_empty(), "something was cut or copied aside");
    std::fs::write(&log, &whole).expect("put back");
    let server = start(&dir, &[]);
    assert_eq!(count(server.port), 20);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The data directory removed while serving, as the fault report did it: every later write is
/// refused (nothing acknowledged that no disk holds), and so are reads: memory is ahead of any
/// disk, so nothing is answered from it.
#[test]
fn a_data_directory_removed_while_serving_stops_every_acknowledgement() {
    let _serial = serial();
    let dir = fresh_dir("removed-dir");
    fill(&dir, 5);
    let server = start(&dir, &[]);
    let port = server.port;
    std::fs::remove_dir_all(&dir).expect("removed");
    for n in 0..20 {
        let (acknowledged, answer) =
            call(port, "PutItem", &json!({"TableName": "things", "Item": {"id": {"S": format!("after-{n}")}}}));
        assert!(!acknowledged, "write {n} was acknowledged after the directory went: {answer}");
        assert!(answer["message"].as_str().is_some_and(|m| m.contains("removed or replaced")), "{answer}");
    }
    let (answered, read) = call(port, "Scan", &json!({"TableName": "things", "Select": "COUNT"}));
    assert!(!answered && read["message"].as_str().is_some_and(|m| m.contains("removed or replaced")), "{read}");
    drop(server);
}
