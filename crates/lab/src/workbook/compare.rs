//! Two designs side by side: per pattern (paired by what it does — the same access pattern by
//! name, else the same table or index, operation and key shape — never by id, in the first
//! design's order, then the second's own), units, monthly cost and verdict; and the totals.
//! "Here's the bill, here's the cheaper design" in one report. A proposed pattern (a design that
//! carried none) is shown with what it did, never as a verdict.

use super::analysis::{DesignResult, PatternResult};
use super::report::{money, pattern_units};
use serde_json::json;
use std::fmt::Write as _;

/// Two patterns, one from each design, that do the same thing (or one alone).
#[derive(Debug, Clone, Copy)]
pub struct Pair<'a> {
    pub a: Option<&'a PatternResult>,
    pub b: Option<&'a PatternResult>,
}

impl Pair<'_> {
    /// `2`, or `2 / AP2` when the two designs number it differently.
    pub fn label(&self) -> String {
        match (self.a, self.b) {
            (Some(a), Some(b)) if a.id != b.id => format!("{} / {}", a.id, b.id),
            (Some(p), _) | (None, Some(p)) => p.id.clone(),
            (None, None) => String::new(),
        }
    }
}

/// `description` as a name to pair on: lower case, letters and digits.
fn name_of(p: &PatternResult) -> String {
    p.description.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

/// The patterns of both designs paired by what they do: the same access pattern by name (and
/// kind), then the same table or index, operation and key shape, then the same operation and key
/// shape on another table. Ids are never compared: two designs number their patterns their own way.
pub fn pairs<'a>(a: &'a DesignResult, b: &'a DesignResult) -> Vec<Pair<'a>> {
    let mut taken = vec![false; b.patterns.len()];
    let mut out = Vec::new();
    let rules: [&dyn Fn(&PatternResult, &PatternResult) -> bool; 3] = [
        &|x, y| x.kind == y.kind && !name_of(x).is_empty() && name_of(x) == name_of(y),
        &|x, y| {
            x.table == y.table && x.index == y.index && x.operation == y.operation && x.key_condition == y.key_condition
        },
        &|x, y| {
            x.kind == y.kind
                && x.operation == y.operation
                && x.key_condition == y.key_condition
                && !x.operation.is_empty()
        },
    ];
    let mut matched: Vec<Option<usize>> = vec![None; a.patterns.len()];
    for rule in rules {
        for (i, pa) in a.patterns.iter().enumerate() {
            if matched[i].is_some() {
                continue;
            }
            if let Some(j) = b.patterns.iter().enumerate().position(|(j, pb)| !taken[j] && rule(pa, pb)) {
                taken[j] = true;
                matched[i] = Some(j);
            }
        }
    }
    for (i, pa) in a.patterns.iter().enumerate() {
        out.push(Pair { a: Some(pa), b: matched[i].map(|j| &b.patterns[j]) });
    }
    for (pb, _) in b.patterns.iter().zip(&taken).filter(|(_, taken)| !**taken) {
        out.push(Pair { a: None, b: Some(pb) });
    }
    out
}

fn verdict_of(p: &PatternResult) -> &'static str {
    if p.proposed {
        "proposed (not counted)"
    } else {
        p.verdict.label()
    }
}

fn side(p: Option<&PatternResult>) -> String {
    p.map_or_else(
        || "— | — | — | —".into(),
        |p| format!("{} | {} | {} | {}", p.operation, pattern_units(p).0, money(p.monthly_at_peak), verdict_of(p)),
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

/// The billing mode of the table a pattern runs on.
pub fn pattern_billing<'a>(design: &'a DesignResult, pattern: &PatternResult) -> &'a str {
    design.declared.tables.iter().find(|t| t.table == pattern.table).map_or("on demand", |t| t.billing)
}

/// One pattern of `design` as a comparison shows it: call · units · what it costs under its
/// table's billing mode · verdict (`—` when the design has no such pattern).
pub fn pattern_side(design: &DesignResult, pattern: Option<&PatternResult>) -> String {
    let Some(p) = pattern else { return "—".into() };
    let cost = if pattern_billing(design, p) == "provisioned" {
        let prices = &design.cost.prices;
        let (rate, unit, hourly) = match p.kind {
            crate::workbook::PatternKind::Write => (p.write_units_at_peak, "WCU", prices.wcu_hour),
            crate::workbook::PatternKind::Read => (p.read_units_at_peak, "RCU", prices.rcu_hour),
        };
        format!(
            "provisioned: {} {unit}/s at peak, {} of capacity a month",
            crate::numbers::decimal(rate),
            money(rate * hourly * crate::workbook::prices::HOURS_PER_MONTH)
        )
    } else {
        format!("on demand: {} a month at peak", money(p.monthly_at_peak))
    };
    format!("{} · {} · {cost} · {}", p.operation, pattern_units(p).0, verdict_of(p))
}

/// Both designs' totals, each beside its verdict and billing mode: a failing design is never
/// just "cheaper".
pub fn totals_line(a: &DesignResult, b: &DesignResult) -> String {
    let one = |label: &str, design: &DesignResult| {
        let mode = billing(design);
        let bill = if design.declared.tables.iter().any(|t| t.billing == "provisioned") {
            format!(
                "{} a month of declared capacity ({} at peak if it were on demand)",
                declared(design),
                money(design.cost.at_peak.total())
            )
        } else {
            format!("{} a month at peak", money(design.cost.at_peak.total()))
        };
        format!("{label}, {} — {mode}: {bill}.", verdict(design))
    };
    format!("{} {}", one("A", a), one("B", b))
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
    for pair in pairs(a, b) {
        let (pa, pb) = (pair.a, pair.b);
        let description = pa.or(pb).map_or("", |p| p.description.as_str()).replace('|', "\\|");
        let delta = match (pa, pb) {
            (Some(pa), Some(pb)) => signed(pb.monthly_at_peak - pa.monthly_at_peak),
            (Some(_), None) => "only in A".into(),
            _ => "only in B".into(),
        };
        let _ = writeln!(out, "| {} | {description} | {} | {} | {delta} |", pair.label(), side(pa), side(pb));
    }
    for (label, design) in [("A", a), ("B", b)] {
        let findings: Vec<String> = design
            .patterns
            .iter()
            .filter(|p| !p.proposed && p.verdict != super::analysis::Verdict::Pass)
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

/// One row per pair of patterns (see [`pairs`]): each side's id, call, units, cost and verdict.
pub fn rows(a: &DesignResult, b: &DesignResult) -> Vec<serde_json::Value> {
    pairs(a, b)
        .into_iter()
        .map(|pair| {
            let (pa, pb) = (pair.a, pair.b);
            let side = |p: &PatternResult| {
                json!({"id": p.id, "operation": p.operation, "table": p.table, "index": p.index, "key_condition": p.key_condition,
                    "read_units": p.read_units, "write_units": p.write_units, "monthly_at_peak": p.monthly_at_peak,
                    "verdict": if p.proposed { json!("proposed") } else { json!(p.verdict) }})
            };
            json!({
                "id": pair.label(),
                "a": pa.map(side),
                "b": pb.map(side),
                "monthly_difference": match (pa, pb) { (Some(x), Some(y)) => json!(y.monthly_at_peak - x.monthly_at_peak), _ => json!(null) },
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbook::check::check;
    use crate::workbook::Workbook;
    use dynalab_engine::FixedClock;
    use serde_json::Value;
    use std::sync::Arc;

    fn design(name: &str, billing: Value, operation: &str) -> DesignResult {
        let mut table = json!({"TableName": "things", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]});
        for (k, v) in billing.as_object().cloned().unwrap_or_default() {
            table[k] = v;
        }
        let request = if operation == "Scan" {
            json!({"TableName": "things"})
        } else {
            json!({"TableName": "things", "Key": {"pk": {"S": "a"}}})
        };
        let workbook = json!({"format": crate::workbook::FORMAT, "name": name, "tables": [table],
            "fixtures": {"things": [{"pk": "a"}, {"pk": "b"}]},
            "patterns": [{"id": "1", "description": "get one", "type": "read", "peak_rps": 100, "consistency": "eventual",
                "requests": [{"operation": operation, "request": request}]}]});
        let workbook = Workbook::parse(&workbook.to_string()).expect("valid");
        check(&workbook, Arc::new(FixedClock::at(0))).expect("checks").result
    }

    #[test]
    fn each_side_says_its_billing_mode_and_each_total_its_verdict() {
        let scan = design("scan", json!({"BillingMode": "PAY_PER_REQUEST"}), "Scan");
        let provisioned = design(
            "provisioned",
            json!({"BillingMode": "PROVISIONED", "ProvisionedThroughput": {"ReadCapacityUnits": 100, "WriteCapacityUnits": 10}}),
            "GetItem",
        );
        let one = |d: &DesignResult| pattern_side(d, d.patterns.first());
        assert!(one(&scan).starts_with("Scan · 0.5 RCU · on demand: $"), "{}", one(&scan));
        assert!(one(&scan).ends_with("a month at peak · fail"));
        // 0.5 RCU × 100/s = 50 RCU/s, at $0.00013 an RCU-hour for 730 hours.
        assert_eq!(
            one(&provisioned),
            "GetItem · 0.5 RCU · provisioned: 50 RCU/s at peak, $4.75 of capacity a month · pass"
        );
        assert_eq!(pattern_side(&provisioned, None), "—");
        let totals = totals_line(&scan, &provisioned);
        assert!(totals.starts_with("A, fail — on demand: $"), "{totals}");
        assert!(totals.contains("a month at peak. B, pass — provisioned: $"), "{totals}");
        assert!(
            totals.ends_with("provisioned: $14.23 a month of declared capacity ($16.43 at peak if it were on demand)."),
            "{totals}"
        );
    }
}
