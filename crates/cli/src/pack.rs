//! `dynalab pack check FILE...` for pack authors, and `dynalab check SOLUTION --pack PACK` for
//! instructors: the grade a learner's challenge solution gets in the playground, from the command
//! line (exit 1 when it does not pass).

use dynalab_engine::SystemClock;
use dynalab_lab::pack::challenge::{grade, parse_solution};
use dynalab_lab::pack::validate::validate;
use dynalab_lab::pack::Pack;
use dynalab_lab::workbook::analysis::Verdict;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

/// Every file checked; exit 2 if one does not read, 1 if one's solutions do not behave as stated.
pub fn check(files: &[std::path::PathBuf]) -> ExitCode {
    let mut worst = 0u8;
    for file in files {
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("dynalab: {}: {e}", file.display());
                worst = 2;
                continue;
            }
        };
        let validated = validate(&text, &(Arc::new(SystemClock) as Arc<dyn dynalab_engine::Clock>));
        for fact in &validated.facts {
            crate::stdout(&format!("{}: {fact}\n", file.display()));
        }
        for problem in &validated.problems {
            eprintln!("dynalab: {}: {problem}", file.display());
        }
        if validated.problems.is_empty() {
            crate::stdout(&format!("{}: ok\n", file.display()));
        } else {
            let unreadable = validated.facts.is_empty() && Pack::parse(&text).is_err();
            worst = worst.max(if unreadable { 2 } else { 1 });
        }
    }
    ExitCode::from(worst)
}

/// Whether `text` is a challenge solution (so `dynalab check` grades it instead).
pub fn is_solution(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .is_ok_and(|v| v.get("format").and_then(serde_json::Value::as_str) == Some(dynalab_lab::pack::SOLUTION_FORMAT))
}

/// Grades a solution against its challenge pack; Markdown or JSON to `out` or standard output.
pub fn grade_solution(
    solution_file: &Path,
    text: &str,
    pack_file: Option<&Path>,
    json: bool,
    out: Option<&Path>,
) -> ExitCode {
    let Some(pack_file) = pack_file else {
        eprintln!(
            "dynalab: {}: a challenge solution is graded against its pack: add --pack PACK.json",
            solution_file.display()
        );
        return ExitCode::from(2);
    };
    let pack = match std::fs::read_to_string(pack_file).map_err(|e| vec![e.to_string()]).and_then(|t| Pack::parse(&t)) {
        Ok(pack) => pack,
        Err(problems) => return invalid(pack_file, &problems),
    };
    let Some(challenge) = &pack.challenge else {
        return invalid(pack_file, &["a workshop pack: solutions are graded against a challenge pack".into()]);
    };
    let solution = match parse_solution(text) {
        Ok(solution) => solution,
        Err(problems) => return invalid(solution_file, &problems),
    };
    if solution.challenge != pack.id {
        return invalid(solution_file, &[format!("a solution to `{}`, not to `{}`", solution.challenge, pack.id)]);
    }
    let graded = match grade(challenge, &solution, Arc::new(SystemClock)) {
        Ok(graded) => graded,
        Err(problems) => return invalid(solution_file, &problems),
    };
    let rendered =
        if json { serde_json::to_string_pretty(&graded).unwrap_or_default() + "\n" } else { graded.markdown() };
    match out {
        Some(path) => {
            if let Err(e) = std::fs::write(path, rendered) {
                eprintln!("dynalab: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
        None => crate::stdout(&rendered),
    }
    if graded.verdict == Verdict::Pass {
        ExitCode::SUCCESS
    } else {
        eprintln!("dynalab: {}: {}/100, not passed", solution_file.display(), graded.score);
        ExitCode::from(1)
    }
}

fn invalid(file: &Path, problems: &[String]) -> ExitCode {
    for problem in problems {
        eprintln!("dynalab: {}: {problem}", file.display());
    }
    ExitCode::from(2)
}
