//! `dynalab check FILE`: runs a workbook and reports; the exit code is the verdict.

use crate::endpoint::{Credentials, EndpointTarget};
use dynalab_engine::SystemClock;
use dynalab_lab::workbook::analysis::{analyse, Verdict};
use dynalab_lab::workbook::import::{import, Source};
use dynalab_lab::workbook::runner::{run as run_patterns, EngineTarget};
use dynalab_lab::workbook::{report, Workbook};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

/// What to write: the design note, the JSON report, or every call's request and response.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Markdown,
    Json,
    Validation,
}

/// The workbook `file` holds or becomes, with what an import left out said on standard error.
fn read(file: &Path) -> Result<Workbook, ExitCode> {
    let text = std::fs::read_to_string(file).map_err(|e| invalid(&format!("{}: {e}", file.display())))?;
    let imported = import(&text).map_err(|e| invalid(&format!("{}: {e}", file.display())))?;
    if imported.source != Source::Workbook {
        eprintln!("dynalab: read {} as {}", file.display(), imported.source.describe());
    }
    for note in &imported.notes {
        eprintln!("dynalab: {note}");
    }
    Ok(imported.workbook)
}

/// `--format workbook`: writes the workbook an imported design became, to edit and check again.
pub fn convert(file: &Path, out: Option<&Path>) -> ExitCode {
    match read(file) {
        Ok(workbook) => {
            let text = serde_json::to_string_pretty(&workbook).unwrap_or_default() + "\n";
            write(out, &text).map_or(ExitCode::from(2), |()| ExitCode::SUCCESS)
        }
        Err(code) => code,
    }
}

pub fn run(file: &Path, output: Output, out: Option<&Path>, endpoint: Option<&str>) -> ExitCode {
    let workbook = match read(file) {
        Ok(workbook) => workbook,
        Err(code) => return code,
    };
    let clock = Arc::new(SystemClock);
    let runs = match endpoint {
        None => run_patterns(&workbook, &mut EngineTarget::new(clock.clone())),
        Some(url) => {
            let region = std::env::var("AWS_REGION").unwrap_or_else(|_| workbook.region.clone());
            let tables: Vec<String> =
                workbook.tables.iter().filter_map(|t| t["TableName"].as_str().map(String::from)).collect();
            let target = Credentials::from_environment().and_then(|c| EndpointTarget::new(url, &region, c, &tables));
            match target {
                Ok(mut target) => run_patterns(&workbook, &mut target),
                Err(e) => {
                    eprintln!("dynalab: {e}");
                    return ExitCode::from(2);
                }
            }
        }
    };
    let result = analyse(&workbook, &runs, clock);
    let rendered = match output {
        Output::Markdown => report::markdown(&result),
        Output::Json => report::json(&result),
        Output::Validation => report::validation(&workbook, &runs),
    };
    if write(out, &rendered).is_err() {
        return ExitCode::from(2);
    }
    let failed: Vec<&str> =
        result.patterns.iter().filter(|p| p.verdict == Verdict::Fail).map(|p| p.id.as_str()).collect();
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprintln!("dynalab: {} pattern(s) failed: {}", failed.len(), failed.join(", "));
        ExitCode::from(1)
    }
}

/// To `out`, or standard output.
fn write(out: Option<&Path>, text: &str) -> Result<(), ()> {
    if let Some(path) = out {
        return std::fs::write(path, text).map_err(|e| eprintln!("dynalab: cannot write {}: {e}", path.display()));
    }
    print!("{text}");
    Ok(())
}

fn invalid(message: &str) -> ExitCode {
    eprintln!("dynalab: invalid workbook: {message}");
    ExitCode::from(2)
}
