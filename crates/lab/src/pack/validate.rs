//! `dynalab pack check`: what a pack's author must know before publishing it — that it reads, that
//! every reference solution passes, and that every naive one fails the way the pack says it does.

use super::challenge::grade;
use super::workshop::attempt;
use super::{Pack, PackKind};
use crate::workbook::analysis::Verdict;
use dynalab_engine::Clock;
use std::sync::Arc;

/// What was proven, and what is wrong.
#[derive(Debug, Clone, Default)]
pub struct Validated {
    pub facts: Vec<String>,
    pub problems: Vec<String>,
}

pub fn validate(text: &str, clock: &Arc<dyn Clock>) -> Validated {
    let pack = match Pack::parse(text) {
        Ok(pack) => pack,
        Err(problems) => return Validated { facts: Vec::new(), problems },
    };
    let mut out = Validated::default();
    match pack.kind {
        PackKind::Workshop => workshop(&pack, clock, &mut out),
        PackKind::Challenge => challenge(&pack, clock, &mut out),
    }
    out
}

fn workshop(pack: &Pack, clock: &Arc<dyn Clock>, out: &mut Validated) {
    for (i, step) in pack.steps.iter().enumerate() {
        let at = format!("steps[{i}] `{}`", step.id);
        match attempt(pack, i, &step.solution, clock.clone()) {
            Err(e) => out.problems.push(format!("{at}: the solution does not run: {e}")),
            Ok(results) => {
                let failed: Vec<String> =
                    results.iter().filter(|r| !r.passed).map(|r| format!("`{}` ({})", r.id, r.found)).collect();
                if failed.is_empty() {
                    out.facts.push(format!("{at}: the solution passes its {} checks", results.len()));
                } else {
                    out.problems.push(format!("{at}: the solution fails {}", failed.join(", ")));
                }
            }
        }
        for (j, naive) in step.naive.iter().enumerate() {
            match attempt(pack, i, &naive.requests, clock.clone()) {
                Err(e) => out.problems.push(format!("{at}.naive[{j}]: does not run: {e}")),
                Ok(results) => match results.iter().find(|r| r.id == naive.fails) {
                    Some(r) if !r.passed => {
                        out.facts.push(format!("{at}.naive[{j}]: fails `{}` as stated ({})", r.id, r.found));
                    }
                    _ => out.problems.push(format!("{at}.naive[{j}]: should fail `{}` but passes it", naive.fails)),
                },
            }
        }
    }
}

fn challenge(pack: &Pack, clock: &Arc<dyn Clock>, out: &mut Validated) {
    let Some(challenge) = &pack.challenge else { return };
    match grade(challenge, &challenge.reference, clock.clone()) {
        Err(problems) => out.problems.extend(problems.into_iter().map(|p| format!("challenge.reference: {p}"))),
        Ok(grade) if grade.verdict == Verdict::Pass && grade.score == 100 => {
            out.facts.push(format!("the reference solution passes every pattern ({}/100)", grade.score));
        }
        Ok(grade) => {
            let failing: Vec<String> = grade
                .patterns
                .iter()
                .filter(|p| p.verdict != Verdict::Pass)
                .map(|p| format!("{} ({})", p.id, p.reasons.join("; ")))
                .collect();
            out.problems.push(format!(
                "challenge.reference: scores {}/100; failing: {}",
                grade.score,
                failing.join(", ")
            ));
        }
    }
    for (j, naive) in challenge.naive.iter().enumerate() {
        let at = format!("challenge.naive[{j}]");
        let grade = match grade(challenge, &naive.solution, clock.clone()) {
            Ok(grade) => grade,
            Err(problems) => {
                out.problems.push(format!("{at}: does not run: {}", problems.join("; ")));
                continue;
            }
        };
        let failing: Vec<&str> =
            grade.patterns.iter().filter(|p| p.verdict == Verdict::Fail).map(|p| p.id.as_str()).collect();
        let missing: Vec<&String> = naive.fails.iter().filter(|id| !failing.contains(&id.as_str())).collect();
        let wanted = naive.reason.to_lowercase();
        let said = grade
            .patterns
            .iter()
            .filter(|p| naive.fails.contains(&p.id))
            .flat_map(|p| p.reasons.iter())
            .find(|r| r.to_lowercase().contains(&wanted));
        match (missing.is_empty(), said) {
            (true, Some(reason)) => out.facts.push(format!(
                "{at}: fails {} as stated ({}/100): {reason}",
                naive.fails.join(", "),
                grade.score
            )),
            (false, _) => out.problems.push(format!(
                "{at}: should fail {} but passes {}",
                naive.fails.join(", "),
                missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            )),
            (true, None) => out.problems.push(format!(
                "{at}: fails {}, but no reason says \"{}\" (they say: {})",
                naive.fails.join(", "),
                naive.reason,
                grade.patterns.iter().flat_map(|p| p.reasons.iter().cloned()).collect::<Vec<_>>().join("; ")
            )),
        }
    }
}
