//! Design checks in the worker: a workbook (or any design the importers read) planned, run on its
//! own scratch engines and analysed; two designs compared; a challenge solution graded. Each
//! builds a fixture engine that can be large, so it runs here, not on the page's thread; the page
//! gets what it draws ([`DesignView`] and the rest), made from the lab's typed results.

use super::protocol::{ComparisonView, DesignView, GradeView, PatternGradeView, PatternView};
use dynalab_engine::Engine;
use dynalab_lab::design::{workspace, Design};
use dynalab_lab::pack::challenge::{grade, parse_solution};
use dynalab_lab::pack::Pack;
use dynalab_lab::workbook::analysis::{DesignResult, Verdict};
use dynalab_lab::workbook::check::{check_on, check_text, Checked};
use dynalab_lab::workbook::{compare, pictures, report, PatternKind};

fn class(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "pass",
        Verdict::Warn => "warn",
        Verdict::Fail => "fail",
    }
}

/// `; declared capacity $2.85 a month`, when the design provisions any.
fn declared(design: &DesignResult) -> String {
    let d = &design.declared;
    if d.tables.iter().all(|t| t.targets.is_empty()) {
        return String::new();
    }
    format!("; declared capacity {} a month", report::money(d.monthly))
}

fn drawn(design: &DesignResult) -> Vec<String> {
    pictures::all(design).into_iter().map(|p| p.svg).collect()
}

fn view(design: &DesignResult, checked: Option<&Checked>) -> DesignView {
    let patterns = design
        .patterns
        .iter()
        .map(|p| {
            // A write is counted in WCU even when it was refused (as a guard must be) and cost none.
            let write = p.kind == PatternKind::Write;
            PatternView {
                id: p.id.clone(),
                description: p.description.clone(),
                operation: p.operation.clone(),
                index: p.index.clone(),
                items: p.items,
                read_units: p.read_units,
                write_units: p.write_units,
                units: units_of(p),
                // Units per second, said so, with the request rate they come from.
                at_peak: if p.read_units + p.write_units == 0.0 && !p.vector_bytes.is_empty() {
                    format!(
                        "{} B/s vector at {} requests/s",
                        dynalab_lab::numbers::thousands(
                            (p.vector_bytes.values().sum::<u64>() as f64 * p.peak_rps).round() as u64
                        ),
                        dynalab_lab::numbers::decimal(p.peak_rps)
                    )
                } else {
                    format!(
                        "{} {}/s at {} requests/s",
                        dynalab_lab::numbers::decimal(if write { p.write_units_at_peak } else { p.read_units_at_peak }),
                        if write { "WCU" } else { "RCU" },
                        dynalab_lab::numbers::decimal(p.peak_rps)
                    )
                },
                peak_rps: p.peak_rps,
                // A proposal (the design carried no patterns) is shown with what it did, never as a verdict.
                verdict: if p.proposed { "proposed, not counted".to_string() } else { p.verdict.label().to_string() },
                class: if p.proposed { "proposed".to_string() } else { class(p.verdict).to_string() },
                reasons: p.reasons.clone(),
                monthly_at_peak: p.monthly_at_peak,
                money: report::money(p.monthly_at_peak),
                busiest: p
                    .busiest_key
                    .iter()
                    .max_by(|a, b| (a.units_per_second / a.ceiling).total_cmp(&(b.units_per_second / b.ceiling)))
                    .map(|load| {
                        format!(
                            "busiest key `{}` on {}: {} of {} {}/s",
                            load.partition,
                            load.target,
                            dynalab_lab::numbers::decimal(load.units_per_second),
                            load.ceiling,
                            if load.kind == PatternKind::Write { "WCU" } else { "RCU" }
                        )
                    })
                    .unwrap_or_default(),
            }
        })
        .collect();
    let cost = &design.cost;
    // Each pattern's first planned call, as the console takes it.
    let console = checked
        .map(|checked| {
            checked
                .plan
                .patterns()
                .filter_map(|(pattern, calls)| {
                    let call = calls.first()?;
                    Some((
                        pattern.id.clone(),
                        call.operation.name().to_string(),
                        serde_json::to_string_pretty(&call.request).unwrap_or_default(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    DesignView {
        name: design.name.clone(),
        verdict: if design.proven { design.verdict.label().to_string() } else { "nothing proven".to_string() },
        patterns,
        cost_headline: if design.proven {
            format!(
                "Cost per month at peak: {} on demand{}; {} provisioned for the peak{}",
                report::money(cost.at_peak.total()),
                cost.expected
                    .map_or(String::new(), |e| format!(" ({} expected at average rates)", report::money(e.total()))),
                report::money(cost.provisioned.total()),
                declared(design)
            )
        } else {
            format!(
                "{}: the design carries no access patterns. The proposed patterns below are the calls its keys and indexes support, run on its items; give them rates to make them an inventory{}",
                design.summary,
                declared(design)
            )
        },
        at_peak_total: report::money(cost.at_peak.total()),
        capacity: design.capacity.iter().map(|f| format!("{}: {}", f.verdict.label(), f.text)).collect(),
        pictures: drawn(design),
        prices: format!(
            "Prices {} as of {} ({}). {}.",
            cost.prices.region, cost.prices.as_of, cost.prices.source, cost.excluded
        ),
        console,
        markdown: report::markdown(design),
        json: report::json(design),
        notes: Vec::new(),
        items_changed: false,
    }
}

/// A design checked from its text: what the page draws, or every problem (nothing ran then).
pub fn check(text: &str) -> Result<DesignView, Vec<String>> {
    let design = check_text(text, super::clock()).map_err(|not| not.problems)?;
    Ok(view(&design.checked.result, Some(&design.checked)))
}

/// Units one execution consumes, in the pattern's kind (`1 RCU`, `2 WCU`).
fn units_of(p: &dynalab_lab::workbook::analysis::PatternResult) -> String {
    let units = match p.kind {
        PatternKind::Write => format!("{} WCU", dynalab_lab::numbers::decimal(p.write_units)),
        PatternKind::Read => format!("{} RCU", dynalab_lab::numbers::decimal(p.read_units)),
    };
    // A vector index bills bytes: a search has them alone, a write into an index beside its WCU.
    let vector: u64 = p.vector_bytes.values().sum();
    let bytes = format!("{} B vector", dynalab_lab::numbers::thousands(vector));
    match (vector, p.read_units + p.write_units > 0.0) {
        (0, _) => units,
        (_, false) => bytes,
        (_, true) => format!("{units} + {bytes}"),
    }
}

/// A workspace's design proved on its tables and items (a copy that shares them), with what it
/// assumed.
pub fn prove_studio(engine: &Engine, design: &Design) -> Result<(DesignView, Checked), Vec<String>> {
    let converted = workspace::prove_on(engine, design).map_err(|e| vec![e])?;
    if converted.workbook.tables.is_empty() && design.inventory.is_empty() {
        // An empty workspace is where a design starts, not an error.
        return Err(vec![super::protocol::NOTHING_YET.to_string()]);
    }
    // On a copy of the workspace's engine that shares its tables: nothing is copied or loaded.
    let checked = check_on(&converted.workbook, engine.clone()).map_err(|p| p.0)?;
    let mut drawn = view(&checked.result, Some(&checked));
    drawn.notes = converted.notes;
    Ok((drawn, checked))
}

/// The workspace's design beside one of its alternatives, both proved on the workspace.
pub fn compare_studio(engine: &Engine, a: &Design, b: &Design) -> Result<ComparisonView, Vec<String>> {
    let (_, first) =
        prove_studio(engine, a).map_err(|e| e.into_iter().map(|p| format!("this design: {p}")).collect::<Vec<_>>())?;
    let (_, second) = prove_studio(engine, b)
        .map_err(|e| e.into_iter().map(|p| format!("the alternative: {p}")).collect::<Vec<_>>())?;
    Ok(comparison(&first.result, &second.result))
}

/// Two designs checked and compared pattern by pattern.
pub fn compare_designs(a: &str, b: &str) -> Result<ComparisonView, Vec<String>> {
    let first = check_text(a, super::clock())
        .map_err(|not| not.problems.into_iter().map(|p| format!("first design: {p}")).collect::<Vec<_>>())?;
    let second = check_text(b, super::clock())
        .map_err(|not| not.problems.into_iter().map(|p| format!("second design: {p}")).collect::<Vec<_>>())?;
    Ok(comparison(&first.checked.result, &second.checked.result))
}

fn comparison(a: &DesignResult, b: &DesignResult) -> ComparisonView {
    ComparisonView {
        names: (a.name.clone(), b.name.clone()),
        rows: compare::pairs(a, b)
            .into_iter()
            .map(|pair| (pair.label(), compare::pattern_side(a, pair.a), compare::pattern_side(b, pair.b)))
            .collect(),
        totals: compare::totals_line(a, b),
        markdown: compare::markdown(a, b),
    }
}

/// A challenge solution graded (the pack as JSON, the solution as the learner wrote it).
pub fn grade_solution(pack: &str, solution: &str) -> Result<GradeView, Vec<String>> {
    let pack = Pack::parse(pack)?;
    let challenge = pack.challenge.as_ref().ok_or_else(|| vec!["This pack has no challenge.".to_string()])?;
    let graded = parse_solution(solution).and_then(|s| grade(challenge, &s, super::clock()))?;
    Ok(grade_view(&graded, Vec::new()))
}

/// The workspace's design graded against the challenge it solves (the pack as JSON).
pub fn grade_studio(engine: &Engine, design: &Design, id: &str, pack: &str) -> Result<GradeView, Vec<String>> {
    let pack = Pack::parse(pack)?;
    let challenge = pack.challenge.as_ref().ok_or_else(|| vec!["This pack has no challenge.".to_string()])?;
    let creates = engine.snapshot_definitions().into_iter().map(|t| t.create).collect();
    let design = workspace::current(engine, design);
    let (solution, notes) = dynalab_lab::design::solution::to_solution(&design, creates, challenge, id);
    let graded = grade(challenge, &solution, super::clock())?;
    Ok(grade_view(&graded, notes))
}

fn grade_view(graded: &dynalab_lab::pack::challenge::Grade, notes: Vec<String>) -> GradeView {
    GradeView {
        notes,
        passed: graded.verdict == Verdict::Pass,
        score: graded.score,
        patterns: graded
            .patterns
            .iter()
            .map(|p| PatternGradeView {
                id: p.id.clone(),
                verdict: p.verdict.label().to_string(),
                operation: p.operation.clone(),
                units: p.units,
                answers: format!("{}/{}", p.answers.iter().filter(|a| a.correct).count(), p.answers.len()),
                points: format!("{}/{}", p.points, p.of),
                reasons: p.reasons.join("; "),
            })
            .collect(),
        pictures: drawn(&graded.design),
    }
}
