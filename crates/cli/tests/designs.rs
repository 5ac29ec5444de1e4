//! The design corpus (`tests/designs/`): design files in the shapes of public sources, each checked
//! with its expected exit code, messages and golden report (for a design without patterns, the
//! report that proves nothing, with its proposals); and broken variants of them, each with the exit
//! code and message it must give. UPDATE_GOLDEN=1 rewrites the goldens after an intended change.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn designs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/designs")
}

fn manifest() -> Value {
    serde_json::from_str(&std::fs::read_to_string(designs().join("manifest.json")).expect("manifest")).expect("JSON")
}

fn check(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_dynalab")).arg("check").args(args).output().expect("runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn strings(value: &Value) -> Vec<&str> {
    value.as_array().into_iter().flatten().filter_map(Value::as_str).collect()
}

/// The exit code and messages `entry` expects, each miss added to `failures`.
fn expect_outcome(entry: &Value, name: &str, code: i32, stderr: &str, failures: &mut Vec<String>) {
    let expected = entry["exit"].as_i64().expect("exit");
    if i64::from(code) != expected {
        failures.push(format!("{name}: exit {code}, expected {expected}: {stderr}"));
    }
    for message in strings(&entry["stderr"]) {
        if !stderr.contains(message) {
            failures.push(format!("{name}: standard error lacks `{message}`: {stderr}"));
        }
    }
}

#[test]
fn every_design_gives_its_exit_code_messages_and_golden_output() {
    let manifest = manifest();
    let entries = manifest["designs"].as_array().expect("designs");
    assert!(entries.len() >= 15, "{} designs", entries.len());
    let sources: std::collections::BTreeSet<&str> = entries.iter().filter_map(|d| d["source"].as_str()).collect();
    assert!(sources.len() >= 4, "{sources:?}");
    let mut failures = Vec::new();
    for entry in entries {
        let file = entry["file"].as_str().expect("file");
        let path = designs().join(file);
        let path = path.to_string_lossy();
        let (code, report, stderr) = check(&[&path]);
        expect_outcome(entry, file, code, &stderr, &mut failures);
        for text in strings(&entry["stdout"]) {
            if !report.contains(text) {
                failures.push(format!("{file}: the report lacks `{text}`"));
            }
        }
        let (golden, output) = (designs().join("golden").join(format!("{file}.md")), report);
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&golden, &output).expect("golden written");
        } else if std::fs::read_to_string(&golden).ok().as_deref() != Some(output.as_str()) {
            failures.push(format!("{file}: differs from {} (UPDATE_GOLDEN=1 rewrites it)", golden.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_broken_variant_is_refused_as_it_must_be() {
    let manifest = manifest();
    let dir = std::env::temp_dir().join(format!("dynalab-broken-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let mut failures = Vec::new();
    for entry in manifest["broken"].as_array().expect("broken") {
        let name = entry["name"].as_str().expect("name");
        let base = entry["base"].as_str().expect("base");
        let [from, to] = strings(&entry["replace"])[..] else { panic!("{name}: replace is [from, to]") };
        let text = std::fs::read_to_string(designs().join(base)).expect("base");
        assert!(text.contains(from), "{name}: `{from}` is not in {base}");
        let path = dir.join(base);
        std::fs::write(&path, text.replacen(from, to, 1)).expect("write");
        let mut args = vec![path.to_string_lossy().into_owned()];
        if let Some(format) = entry["format"].as_str() {
            args.extend(["--format".to_string(), format.to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, _, stderr) = check(&args);
        expect_outcome(entry, name, code, &stderr, &mut failures);
        if let Some(once) = entry["once"].as_str() {
            if stderr.matches(once).count() != 1 {
                failures.push(format!("{name}: `{once}` should appear once: {stderr}"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `dynalab check … | head`: the reader closes the pipe early; that is a normal end, not a panic.
#[test]
fn a_closed_pipe_is_a_normal_end() {
    let path = designs().join("note-library-loans.designer.md");
    let mut child = Command::new(env!("CARGO_BIN_EXE_dynalab"))
        .arg("check")
        .arg(&path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("waits");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(1), "the verdict, as if the note were read: {stderr}");
}

#[test]
fn the_json_report_carries_what_reading_said() {
    let path = designs().join("note-library-loans.mcp.md");
    let (code, json, _) = check(&[&path.to_string_lossy(), "--format", "json"]);
    assert_eq!(code, 0);
    let report: Value = serde_json::from_str(&json).expect("JSON");
    let notes: Vec<&str> = strings(&report["notes"]);
    assert!(notes.iter().any(|n| n.contains("a cost table")), "{notes:?}");
}

/// Two designs numbered their own way are paired by what each pattern does, never by id.
#[test]
fn a_comparison_pairs_patterns_by_what_they_do() {
    let a = designs().join("note-library-loans.designer.md");
    let b = designs().join("note-library-loans.mcp.md");
    let (_, report, stderr) = check(&[&a.to_string_lossy(), "--compare", &b.to_string_lossy()]);
    assert!(report.contains("| 2 / AP2 | A member's loans, newest first | Query |"), "{report}\n{stderr}");
    assert!(report.contains("| 6 | Find a member by email | Scan |"), "{report}");
    assert!(report.contains("only in A"), "{report}");
}
