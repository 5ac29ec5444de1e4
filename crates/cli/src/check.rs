//! `dynalab check FILE`: plans a design (every problem → exit 2), runs it, reports; the exit code
//! is the verdict (1 when anything fails). A design without access patterns is reported with
//! proposals and proves nothing: exit 0. In the JSON formats a refused design still writes its
//! problems, so a CI job always gets something to read.

use crate::endpoint::{Credentials, EndpointTarget};
use dynalab_engine::SystemClock;
use dynalab_lab::workbook::analysis::{analyse, DesignResult, Verdict};
use dynalab_lab::workbook::import::{import_with, in_file_terms, Imported, Options, Source};
use dynalab_lab::workbook::plan::Plan;
use dynalab_lab::workbook::runner::{run as run_patterns, EngineTarget, PatternRun};
use dynalab_lab::workbook::{compare as comparison, pictures, report};
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

/// What to write: the design note, the JSON report, every call's request and response, or the
/// workbook the design became.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Markdown,
    Json,
    Validation,
    Workbook,
}

/// How a check is run: the output, where it goes, and what the reader is told beyond the file.
pub struct Run<'a> {
    pub output: Output,
    pub out: Option<&'a Path>,
    pub options: &'a Options,
}

/// The design `file` holds, with what an import left out said on standard error; notes kept
/// for a refusal's JSON.
fn read(file: &Path, run: &Run<'_>, notes: &mut Vec<String>) -> Result<Imported, ExitCode> {
    let text = std::fs::read_to_string(file).map_err(|e| invalid(file, &[e.to_string()], notes, run))?;
    let imported = import_with(&text, run.options).map_err(|e| invalid(file, &lines(&e), notes, run))?;
    if imported.source != Source::Workbook {
        eprintln!("dynalab: read {} as {}", file.display(), imported.source.describe());
    }
    for note in &imported.notes {
        eprintln!("dynalab: {note}");
    }
    notes.extend(imported.notes.iter().cloned());
    Ok(imported)
}

fn lines(text: &str) -> Vec<String> {
    text.lines().map(String::from).collect()
}

/// `--format workbook`: writes the workbook any design becomes — with proposed patterns when it
/// carried none — to edit and check, once its tables, items and calls have been planned (a
/// workbook that cannot load is not written).
pub fn convert(file: &Path, run: &Run<'_>) -> ExitCode {
    let plan = match plan(file, run) {
        Ok(plan) => plan,
        Err(code) => return code,
    };
    let text = serde_json::to_string_pretty(&plan.workbook).unwrap_or_default() + "\n";
    write(run.out, &text).map_or(ExitCode::from(2), |()| ExitCode::SUCCESS)
}

/// The design `file` holds, planned: every problem listed, exit 2.
fn plan(file: &Path, run: &Run<'_>) -> Result<Plan, ExitCode> {
    plan_noted(file, run, &mut Vec::new())
}

/// [`plan`], keeping what reading the file noted (the JSON report carries it).
fn plan_noted(file: &Path, run: &Run<'_>, notes: &mut Vec<String>) -> Result<Plan, ExitCode> {
    let imported = read(file, run, notes)?.checkable().map_err(|e| invalid(file, &[e], notes, run))?;
    let source = imported.source;
    Plan::build(imported.workbook, Arc::new(SystemClock)).map_err(|problems| {
        let said: Vec<String> = problems.0.iter().map(|p| in_file_terms(source, p)).collect();
        invalid(file, &said, notes, run)
    })
}

fn run_plan(plan: &Plan, endpoint: Option<&str>) -> Result<Vec<PatternRun>, ExitCode> {
    match endpoint {
        None => Ok(run_patterns(plan, &mut EngineTarget::new(Arc::new(SystemClock)))),
        Some(url) => {
            let region = std::env::var("AWS_REGION").unwrap_or_else(|_| plan.workbook.region.clone());
            let tables: Vec<String> =
                plan.tables.iter().filter_map(|t| t["TableName"].as_str().map(String::from)).collect();
            let target = Credentials::from_environment().and_then(|c| EndpointTarget::new(url, &region, c, &tables));
            match target {
                Ok(mut target) => Ok(run_patterns(plan, &mut target)),
                Err(e) => {
                    eprintln!("dynalab: {e}");
                    Err(ExitCode::from(2))
                }
            }
        }
    }
}

pub fn run(file: &Path, run: &Run<'_>, endpoint: Option<&str>) -> ExitCode {
    let (output, out) = (run.output, run.out);
    let mut notes = Vec::new();
    let plan = match plan_noted(file, run, &mut notes) {
        Ok(plan) => plan,
        Err(code) => return code,
    };
    let runs = match run_plan(&plan, endpoint) {
        Ok(runs) => runs,
        Err(code) => return code,
    };
    let mut result = analyse(&plan, &runs);
    result.notes = notes;
    let rendered = match output {
        Output::Markdown if out.is_some() => with_pictures(&result, out),
        Output::Markdown => report::markdown(&result),
        Output::Json => report::json(&result),
        Output::Validation => report::validation(&plan, &runs, &result),
        Output::Workbook => return convert(file, run),
    };
    if write(out, &rendered).is_err() {
        return ExitCode::from(2);
    }
    verdict(&[&result])
}

/// `--compare OTHER`: both designs checked on the lab's engine, side by side.
pub fn compare(file: &Path, other: &Path, run: &Run<'_>) -> ExitCode {
    let (output, out) = (run.output, run.out);
    let mut results = Vec::new();
    for path in [file, other] {
        let plan = match plan(path, run) {
            Ok(plan) => plan,
            Err(code) => return code,
        };
        let runs = run_patterns(&plan, &mut EngineTarget::new(Arc::new(SystemClock)));
        results.push(analyse(&plan, &runs));
    }
    let rendered = match output {
        Output::Json => comparison::json(&results[0], &results[1]),
        Output::Markdown | Output::Validation | Output::Workbook => comparison::markdown(&results[0], &results[1]),
    };
    if write(out, &rendered).is_err() {
        return ExitCode::from(2);
    }
    verdict(&[&results[0], &results[1]])
}

/// Exit 1 when any pattern or design-level finding fails, naming them.
fn verdict(results: &[&DesignResult]) -> ExitCode {
    let mut failed: Vec<String> = Vec::new();
    for result in results {
        failed
            .extend(result.patterns.iter().filter(|p| !p.proposed && p.verdict == Verdict::Fail).map(|p| p.id.clone()));
        failed.extend(result.capacity.iter().filter(|f| f.verdict == Verdict::Fail).map(|f| f.text.clone()));
    }
    if results.iter().all(|r| r.verdict != Verdict::Fail) {
        return ExitCode::SUCCESS;
    }
    eprintln!("dynalab: {} failed: {}", failed.len(), failed.join(", "));
    ExitCode::from(1)
}

/// To `out`, or standard output.
fn write(out: Option<&Path>, text: &str) -> Result<(), ()> {
    if let Some(path) = out {
        return std::fs::write(path, text).map_err(|e| eprintln!("dynalab: cannot write {}: {e}", path.display()));
    }
    crate::stdout(text);
    Ok(())
}

/// Every problem on its own line, then exit 2. The JSON formats also write the problems (each
/// with its path in the file) and the import's notes, so a refusal is never an empty output.
fn invalid(file: &Path, problems: &[String], notes: &[String], run: &Run<'_>) -> ExitCode {
    for problem in problems {
        eprintln!("dynalab: {}: {problem}", file.display());
    }
    eprintln!("dynalab: {}: invalid design, nothing was checked", file.display());
    if run.output == Output::Markdown {
        // The note a reader expects, saying why there is no verdict.
        // The file's name, not its path: the note reads the same wherever the file is.
        let name = file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
        let mut note = format!("# Design check: {name} — not checked\n\n**The file could not be checked:** each problem below names where it is.\n\n");
        for problem in problems {
            let _ = writeln!(note, "- {problem}");
        }
        if !notes.is_empty() {
            note.push_str("\n## Read with\n\n");
            for line in notes {
                let _ = writeln!(note, "- {line}");
            }
        }
        let _ = write(run.out, &note);
    } else {
        let listed: Vec<serde_json::Value> = problems
            .iter()
            .map(|p| {
                let (path, message) = report::problem_path(p);
                serde_json::json!({"path": path, "message": message})
            })
            .collect();
        let body = serde_json::json!({"file": file.display().to_string(), "valid": false,
            "summary": "invalid design, nothing was checked", "problems": listed, "notes": notes});
        let _ = write(run.out, &(serde_json::to_string_pretty(&body).unwrap_or_default() + "\n"));
    }
    ExitCode::from(2)
}

/// The design note with its pictures: each SVG written beside `out` (`note.keys.svg`, ...) and
/// linked at the end of the note.
fn with_pictures(result: &DesignResult, out: Option<&Path>) -> String {
    let mut note = report::markdown(result);
    let Some(out) = out else { return note };
    let stem = out.file_stem().map_or_else(|| "design".into(), |s| s.to_string_lossy().into_owned());
    note.push_str("\n## Pictures\n\n");
    for pictures::Picture { name, title, svg } in pictures::all(result) {
        let file = format!("{stem}.{name}.svg");
        match std::fs::write(out.with_file_name(&file), svg) {
            Ok(()) => {
                let _ = write!(note, "![{title}]({file})\n\n");
            }
            Err(e) => eprintln!("dynalab: cannot write {file}: {e}"),
        }
    }
    note
}
