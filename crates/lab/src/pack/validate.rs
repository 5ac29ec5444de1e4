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

#[cfg(test)]
mod tests {
    use super::*;
    use dynalab_engine::FixedClock;
    use serde_json::{json, Value};

    /// A small deterministic generator: the same mutations on every run.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

    fn hostile(rng: &mut Rng) -> Value {
        match rng.below(10) {
            0 => Value::Null,
            1 => json!(""),
            2 => json!("x".repeat(100_000)),
            3 => json!(-1e308),
            4 => json!({}),
            5 => json!([]),
            6 => json!("{{{{a}}}}{ }{"),
            7 => json!("USER#{missing}#{also"),
            8 => json!(["Scan", "GetItem"]),
            _ => json!({"S": "ä\u{0}😀"}),
        }
    }

    /// Replaces one node, chosen by walking from the root, with a hostile value.
    fn mutate(value: &mut Value, rng: &mut Rng) {
        let mut node = value;
        loop {
            let children = match node {
                Value::Object(map) => map.len(),
                Value::Array(list) => list.len(),
                _ => 0,
            };
            if children == 0 || rng.below(4) == 0 {
                *node = hostile(rng);
                return;
            }
            let pick = rng.below(children);
            node = match node {
                Value::Object(map) => map.values_mut().nth(pick).expect("in range"),
                Value::Array(list) => &mut list[pick],
                _ => return,
            };
        }
    }

    #[test]
    fn hostile_packs_and_solutions_are_refused_or_judged_never_a_panic() {
        let clock: Arc<dyn Clock> = Arc::new(FixedClock::at(1_796_000_000_000));
        let packs = [
            include_str!("../../../../packs/intro.json"),
            include_str!("../../../../packs/writes.json"),
            include_str!("../../../../packs/scale.json"),
            include_str!("../../../../packs/vectors.json"),
            include_str!("../../../../packs/cart.json"),
            include_str!("../../../../packs/payments.json"),
            include_str!("../../../../packs/leaderboard.json"),
        ];
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let (mut read, mut refused) = (0, 0);
        for text in packs {
            let original: Value = serde_json::from_str(text).unwrap();
            for _ in 0..200 {
                let mut changed = original.clone();
                for _ in 0..=rng.below(3) {
                    mutate(&mut changed, &mut rng);
                }
                let validated = validate(&changed.to_string(), &clock);
                if Pack::parse(&changed.to_string()).is_ok() {
                    read += 1;
                } else {
                    refused += 1;
                    assert!(!validated.problems.is_empty(), "a refused pack says why");
                }
            }
        }
        assert!(read > 0 && refused > 0, "both kinds were tried: {read} read, {refused} refused");
    }
}
