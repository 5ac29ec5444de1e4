//! Two designs side by side: per pattern (matched by id, in the first design's order, then the
//! second's own), units, monthly cost and verdict; and the totals. "Here's the bill, here's the
//! cheaper design" in one report.

use super::analysis::{DesignResult, PatternResult};
use super::report::{money, pattern_units};
use serde_json::json;
use std::fmt::Write as _;

/// Pattern ids of both designs: the first's, then those only the second has.
pub fn pattern_ids<'a>(a: &'a DesignResult, b: &'a DesignResult) -> Vec<&'a str> {
    let mut ids: Vec<&str> = a.patterns.iter().map(|p| p.id.as_str()).collect();
    ids.extend(b.patterns.iter().map(|p| p.id.as_str()).filter(|id| !a.patterns.iter().any(|p| p.id == *id)));
    ids
}

fn find<'a>(design: &'a DesignResult, id: &str) -> Option<&'a PatternResult> {
    design.patterns.iter().find(|p| p.id == id)
}

fn side(p: Option<&PatternResult>) -> String {
    p.map_or_else(
        || "— | — | — | —".into(),
        |p| format!("{} | {} | {} | {}", p.operation, pattern_units(p).0, money(p.monthly_at_peak), p.verdict.label()),
    )
}

fn signed(delta: f64) -> String {
    if delta.abs() < 0.005 {
        "$0.00".into()
    } else if delta > 0.0 {
        format!("+{}", money(delta))
    } else {
        format!("−{}", money(-delta))
    }
}

/// `fail`, or `nothing proven` for a design without patterns of its own.
fn verdict(design: &DesignResult) -> String {
    if design.proven {
        design.verdict.label().to_string()
    } else {
        format!("nothing proven ({})", design.verdict.label())
    }
}

/// `on demand`, `provisioned`, or each table's mode when they differ (`provisioned: a; on demand: b`).
pub fn billing(design: &DesignResult) -> String {
    let mut modes: Vec<(&str, Vec<&str>)> = Vec::new();
    for table in &design.declared.tables {
        match modes.iter_mut().find(|(mode, _)| *mode == table.billing) {
            Some((_, tables)) => tables.push(&table.table),
            None => modes.push((table.billing, vec![&table.table])),
        }
    }
    match modes.as_slice() {
        [(mode, _)] => (*mode).to_string(),
        _ => modes.iter().map(|(mode, tables)| format!("{mode}: {}", tables.join(", "))).collect::<Vec<_>>().join("; "),
    }
}

fn declared(design: &DesignResult) -> String {
    let d = &design.declared;
    if d.tables.iter().all(|t| t.targets.is_empty()) {
        return "— (on demand)".into();
    }
    if (d.monthly_max - d.monthly_min).abs() < 0.005 {
        money(d.monthly)
    } else {
        format!("{} ({}–{} auto scaled)", money(d.monthly), money(d.monthly_min), money(d.monthly_max))
    }
}

/// The comparison as Markdown.
pub fn markdown(a: &DesignResult, b: &DesignResult) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Design comparison: {} (A) and {} (B)\n", a.name, b.name);
    let _ = writeln!(out, "| | A: {} | B: {} | B − A |\n|---|---|---|---|", a.name, b.name);
    let _ = writeln!(out, "| Verdict | {} | {} | |", verdict(a), verdict(b));
    let _ = writeln!(out, "| Billing mode | {} | {} | |", billing(a), billing(b));
    let _ = writeln!(
        out,
        "| Declared capacity per month (provisioned as declared) | {} | {} | {} |",
        declared(a),
        declared(b),
        signed(b.declared.monthly - a.declared.monthly)
    );
    let _ = writeln!(
        out,
        "| Monthly at peak (on demand) | {} | {} | {} |",
        money(a.cost.at_peak.total()),
        money(b.cost.at_peak.total()),
        signed(b.cost.at_peak.total() - a.cost.at_peak.total())
    );
    if let (Some(ea), Some(eb)) = (&a.cost.expected, &b.cost.expected) {
        let _ = writeln!(
            out,
            "| Monthly expected (average rates) | {} | {} | {} |",
            money(ea.total()),
            money(eb.total()),
            signed(eb.total() - ea.total())
        );
    }
    let _ = writeln!(
        out,
        "| Provisioned for peak | {} | {} | {} |",
        money(a.cost.provisioned.total()),
        money(b.cost.provisioned.total()),
        signed(b.cost.provisioned.total() - a.cost.provisioned.total())
    );
    let _ = writeln!(
        out,
        "| Storage | {:.3} GB | {:.3} GB | {:+.3} GB |",
        a.cost.storage_gb,
        b.cost.storage_gb,
        b.cost.storage_gb - a.cost.storage_gb
    );
    let _ = writeln!(out, "\n## Per pattern (on demand at peak)\n");
    let _ = writeln!(
        out,
        "| # | Pattern | A: operation | A: units | A: $/month | A: verdict | B: operation | B: units | B: $/month | B: verdict | B − A |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|---|");
    for id in pattern_ids(a, b) {
        let (pa, pb) = (find(a, id), find(b, id));
        let description = pa.or(pb).map_or("", |p| p.description.as_str()).replace('|', "\\|");
        let delta = match (pa, pb) {
            (Some(pa), Some(pb)) => signed(pb.monthly_at_peak - pa.monthly_at_peak),
            _ => "only in one".into(),
        };
        let _ = writeln!(out, "| {id} | {description} | {} | {} | {delta} |", side(pa), side(pb));
    }
    for (label, design) in [("A", a), ("B", b)] {
        let findings: Vec<String> = design
            .patterns
            .iter()
            .filter(|p| p.verdict != super::analysis::Verdict::Pass)
            .map(|p| format!("- {} ({}): {}", p.id, p.verdict.label(), p.reasons.first().cloned().unwrap_or_default()))
            .collect();
        if !findings.is_empty() {
            let _ = writeln!(out, "\n## {label}: findings\n\n{}", findings.join("\n"));
        }
    }
    out
}

/// The comparison as JSON: both reports and the per-pattern rows.
pub fn json(a: &DesignResult, b: &DesignResult) -> String {
    serde_json::to_string_pretty(&value(a, b)).unwrap_or_default() + "\n"
}

/// The comparison as a JSON value: `{"a", "b", "patterns", "monthly_at_peak_difference"}`.
pub fn value(a: &DesignResult, b: &DesignResult) -> serde_json::Value {
    json!({"a": a, "b": b, "patterns": rows(a, b),
        "billing": {"a": billing(a), "b": billing(b)},
        "declared_monthly": {"a": a.declared.monthly, "b": b.declared.monthly},
        "monthly_at_peak_difference": b.cost.at_peak.total() - a.cost.at_peak.total()})
}

/// One row per pattern id of either design: each side's call, units, cost and verdict.
pub fn rows(a: &DesignResult, b: &DesignResult) -> Vec<serde_json::Value> {
    pattern_ids(a, b)
        .into_iter()
        .map(|id| {
            let (pa, pb) = (find(a, id), find(b, id));
            json!({
                "id": id,
                "a": pa.map(|p| json!({"operation": p.operation, "read_units": p.read_units, "write_units": p.write_units,
                    "monthly_at_peak": p.monthly_at_peak, "verdict": p.verdict})),
                "b": pb.map(|p| json!({"operation": p.operation, "read_units": p.read_units, "write_units": p.write_units,
                    "monthly_at_peak": p.monthly_at_peak, "verdict": p.verdict})),
                "monthly_difference": match (pa, pb) { (Some(x), Some(y)) => json!(y.monthly_at_peak - x.monthly_at_peak), _ => json!(null) },
            })
        })
        .collect()
}
