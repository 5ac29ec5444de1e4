//! `dynalab check FILE`: runs a workbook and reports; the exit code is the verdict.

use crate::endpoint::{Credentials, EndpointTarget};
use dynalab_engine::SystemClock;
use dynalab_lab::workbook::analysis::{analyse, Verdict};
use dynalab_lab::workbook::import::{import, Source};
use dynalab_lab::workbook::report;
use dynalab_lab::workbook::runner::{run as run_patterns, EngineTarget};
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

pub fn run(file: &Path, output: Output, out: Option<&Path>, endpoint: Option<&str>) -> ExitCode {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) => return invalid(&format!("{}: {e}", file.display())),
    };
    let workbook = match import(&text) {
        Ok(imported) => {
            if imported.source != Source::Workbook {
                eprintln!("dynalab: read {} as {}", file.display(), imported.source.describe());
            }
            for note in &imported.notes {
                eprintln!("dynalab: {note}");
            }
            imported.workbook
        }
        Err(e) => return invalid(&format!("{}: {e}", file.display())),
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
    match out {
        Some(path) => {
            if let Err(e) = std::fs::write(path, rendered) {
                eprintln!("dynalab: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
        None => print!("{rendered}"),
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

fn invalid(message: &str) -> ExitCode {
    eprintln!("dynalab: invalid workbook: {message}");
    ExitCode::from(2)
}
