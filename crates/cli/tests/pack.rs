//! `dynalab pack check` over every shipped pack, and `dynalab check SOLUTION --pack PACK` grading a
//! challenge solution as the playground does, with its exit codes.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn packs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../packs")
}

fn dynalab(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_dynalab")).args(args).output().expect("runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn temp(name: &str, value: &Value) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dynalab-pack-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, value.to_string()).expect("written");
    path
}

fn pack(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(packs().join(name)).expect("pack")).expect("JSON")
}

/// Every shipped pack's path, sorted.
fn pack_files() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(packs())
        .expect("packs/")
        .flatten()
        .map(|e| e.path().to_string_lossy().into_owned())
        .filter(|p| Path::new(p).extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_shipped_pack_checks() {
    let files = pack_files();
    assert!(files.len() >= 6, "three workshops and three challenges: {files:?}");
    let mut args = vec!["pack", "check"];
    args.extend(files.iter().map(String::as_str));
    let (code, stdout, stderr) = dynalab(&args);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert_eq!(stdout.lines().filter(|l| l.ends_with(": ok")).count(), files.len(), "{stdout}");
    assert!(stdout.contains("fails `call` as stated"), "naive attempts are proven to fail: {stdout}");
}

#[test]
fn a_pack_whose_solutions_misbehave_is_refused() {
    let mut payments = pack("payments.json");
    payments["challenge"]["naive"][1]["fails"] = serde_json::json!(["AP2"]);
    let (code, _, stderr) = dynalab(&["pack", "check", &temp("payments.json", &payments).to_string_lossy()]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("challenge.naive[1]: should fail AP2 but passes AP2"), "{stderr}");
    let mut intro = pack("intro.json");
    intro["steps"][0]["solution"][0]["request"]["Key"]["sk"]["S"] = serde_json::json!("ORDER#2026-11-02#o1");
    let (code, _, stderr) = dynalab(&["pack", "check", &temp("intro.json", &intro).to_string_lossy()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("steps[0] `profile`: the solution fails `item`"), "{stderr}");
    let (code, _, stderr) = dynalab(&[
        "pack",
        "check",
        &temp("broken.json", &serde_json::json!({"format": "dynalab-pack/1"})).to_string_lossy(),
    ]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn a_solution_gets_the_same_grade_from_the_command_line() {
    let leaderboard = pack("leaderboard.json");
    let pack_file = packs().join("leaderboard.json");
    let reference = temp("reference.json", &leaderboard["challenge"]["reference"]);
    let (code, stdout, stderr) =
        dynalab(&["check", &reference.to_string_lossy(), "--pack", &pack_file.to_string_lossy(), "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let grade: Value = serde_json::from_str(&stdout).expect("JSON grade");
    assert_eq!((grade["verdict"].as_str(), grade["score"].as_u64()), (Some("pass"), Some(100)));
    let naive = temp("naive.json", &leaderboard["challenge"]["naive"][0]["solution"]);
    let (code, stdout, stderr) = dynalab(&["check", &naive.to_string_lossy(), "--pack", &pack_file.to_string_lossy()]);
    assert_eq!(code, 1);
    assert!(
        stdout.starts_with("# Challenge `leaderboard`: fail — 50/100 (1 of 2 patterns meet every requirement)"),
        "{stdout}"
    );
    assert!(stdout.contains("expected [Score:g5, Score:g2, Score:g4] in that order"), "{stdout}");
    assert!(stderr.contains("50/100, not passed"));
    let (code, _, stderr) = dynalab(&["check", &naive.to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("add --pack"), "{stderr}");
    let (code, _, stderr) =
        dynalab(&["check", &naive.to_string_lossy(), "--pack", &packs().join("cart.json").to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("a solution to `leaderboard`, not to `cart`"), "{stderr}");
}

#[test]
fn every_pack_and_solution_is_valid_against_the_published_schema() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/pack.schema.json");
    let script = "import json, sys, jsonschema\nschema = json.load(open(sys.argv[1]))\njsonschema.Draft202012Validator.check_schema(schema)\nfor path in sys.argv[2:]:\n    jsonschema.validate(json.load(open(path)), schema, cls=jsonschema.Draft202012Validator)\n    print('valid', path)\n";
    let mut files = pack_files();
    let cart = pack("cart.json");
    files.push(temp("solution.json", &cart["challenge"]["reference"]).to_string_lossy().into_owned());
    let output = Command::new("python3").args(["-c", script]).arg(&schema).args(&files).output().expect("python3");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), files.len());
    let mut broken = pack("intro.json");
    broken["steps"][0]["checks"][0]["rule"] = serde_json::json!({"call": ["GetItem"], "count": 1});
    let output = Command::new("python3")
        .args(["-c", script])
        .arg(&schema)
        .arg(temp("broken.json", &broken))
        .output()
        .expect("python3");
    assert!(!output.status.success(), "a rule holds exactly one requirement");
}
