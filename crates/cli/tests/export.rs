//! `dynalab export`: the files it writes, each checked back by `dynalab check` with the same
//! tables; refusals and the folder it makes.

use std::path::{Path, PathBuf};
use std::process::Command;

fn dynalab(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_dynalab")).args(args).output().expect("runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_exported_file_checks_as_the_design() {
    for design in [
        "examples/orders-service.design.md",
        "tests/designs/note-library-loans.designer.md",
        "tests/designs/terraform-sessions.tf",
    ] {
        let out =
            std::env::temp_dir().join(format!("dynalab-export-{}-{}", std::process::id(), design.replace('/', "_")));
        let _ = std::fs::remove_dir_all(&out);
        let (code, written, stderr) =
            dynalab(&["export", &root().join(design).to_string_lossy(), "--out", &out.to_string_lossy()]);
        assert_eq!(code, 0, "{design}: {stderr}");
        // The infrastructure (the CDK app four files) and its README; with patterns, the access
        // code and its fixture too.
        let files = if design.ends_with(".tf") { 8 } else { 15 };
        assert_eq!(written.lines().count(), files, "{written}");
        for file in ["cloudformation.yaml", "main.tf", "serverless.yml"] {
            let (code, report, stderr) = dynalab(&["check", &out.join(file).to_string_lossy(), "--format", "json"]);
            assert_eq!(code, 0, "{design}: {file}: {stderr}");
            let report: serde_json::Value = serde_json::from_str(&report).expect("JSON");
            assert!(!report["tables"].as_array().expect("tables").is_empty(), "{design}: {file}");
        }
        for file in ["cdk/design-stack.ts", "cdk/app.ts", "cdk/cdk.json", "cdk/package.json", "README.md"] {
            assert!(out.join(file).exists(), "{design}: {file}");
        }
        let _ = std::fs::remove_dir_all(&out);
    }
}

#[test]
fn a_file_with_no_design_exports_nothing() {
    let out = std::env::temp_dir().join(format!("dynalab-export-none-{}", std::process::id()));
    let (code, _, stderr) = dynalab(&[
        "export",
        &root().join("tests/designs/cdk-stack.ts").to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("run `cdk synth`") && stderr.contains("nothing was exported"), "{stderr}");
    assert!(!out.exists(), "no folder made");
}
