//! A debug report: where the engine's visits come from, by rule.
//!
//! Seeded random playouts on the network the module runs; after each propagation (the state
//! set, the joint move set) the value of every node is compared with the one before, and each
//! node that changed is charged its out-edges (a gate that changes and changes back within one
//! propagation is missed: the counts are a lower bound of what the engine visits, which the
//! report prints beside them). The visits are grouped by the kind and relation of the node
//! that changed (the source) and of the gate visited (the target), named from the IR: a state
//! bit, a `does` input, a move set, the and- or or-gate of a prop (or one of its
//! conjunctions), an output.
//!
//! Printed at trace level by `gdlc emit` (`GDLC_LOG=gdlc::codegen::propnet=trace`).

use std::collections::HashMap;
use std::fmt::Write;

use gdl_propnet::{Engine, Net};
use gdl_runtime::SplitMix64;

use super::build::Signals;
use crate::ir::Ir;

/// What a node of the network is, for grouping.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Label {
    kind: &'static str,
    relation: String,
}

/// The relation of an atom's text: its first word, without parentheses.
fn relation(text: &str) -> String {
    let t = text.trim_start_matches('(');
    let end = t.find([' ', ')']).unwrap_or(t.len());
    t[..end].to_string()
}

/// A label per node of the network `build_plain` made for `ir` (`net`, with `signals`): the
/// nodes it names, then every other gate after the first gate it feeds (a conjunction of a
/// prop, read by the prop's or-gate).
fn labels(ir: &Ir, net: &Net, signals: &Signals) -> Vec<Option<Label>> {
    let nodes = net.nodes as usize;
    let mut labels: Vec<Option<Label>> = vec![None; nodes];
    let mut set = |n: u32, kind: &'static str, relation: String| {
        if let Some(slot @ None) = labels.get_mut(n as usize) {
            *slot = Some(Label { kind, relation });
        }
    };
    for (b, text) in ir.bits.iter().enumerate() {
        set(b as u32, "bit", relation(text));
    }
    for (r, (&base, moves)) in signals.does_base.iter().zip(&ir.moves).enumerate() {
        for (m, text) in moves.iter().enumerate() {
            let role = ir.roles.get(r).cloned().unwrap_or_default();
            set(
                base + m as u32,
                "does",
                format!("{role} {}", relation(text)),
            );
        }
    }
    for s in &signals.sets {
        set(s.node, "move set", String::new());
    }
    for (r, &base) in net.legal_base.iter().enumerate() {
        let role = ir.roles.get(r).cloned().unwrap_or_default();
        for m in 0..net.moves.get(r).copied().unwrap_or(0) {
            set(base + m, "legal output", role.clone());
        }
    }
    for (b, text) in ir.bits.iter().enumerate() {
        set(net.next_base + b as u32, "next output", relation(text));
    }
    set(net.terminal, "terminal output", String::new());
    for (r, goals) in net.goals.iter().enumerate() {
        let role = ir.roles.get(r).cloned().unwrap_or_default();
        for &(_, n) in goals {
            set(n, "goal output", role.clone());
        }
    }
    let first_gate = net.first_gate();
    for (p, s) in signals.props.iter().enumerate() {
        let Some(s) = s else { continue };
        if s.node < first_gate {
            continue;
        }
        let kind = if net.group_of[s.node as usize] != u32::MAX {
            "group"
        } else if net.thresh[s.node as usize] == 1 {
            "or"
        } else {
            "and"
        };
        set(s.node, kind, relation(&ir.props[p].text));
    }
    // The other gates, last first: a gate feeds gates after it.
    for n in (0..nodes).rev() {
        if labels[n].is_some() {
            continue;
        }
        let fan = &net.fan[net.fan_start[n] as usize..net.fan_start[n + 1] as usize];
        let reader = fan
            .iter()
            .find_map(|&e| labels.get((e >> 2) as usize).cloned().flatten());
        labels[n] = Some(match reader {
            Some(l) => Label {
                kind: match (net.thresh[n], l.kind) {
                    (1, _) => "or (part)",
                    (_, "or" | "and" | "or (part)" | "and (part)") => "and (part)",
                    _ => "and (of output)",
                },
                relation: l.relation,
            },
            None => Label {
                kind: "other",
                relation: String::new(),
            },
        });
    }
    labels
}

/// Visits charged per label.
#[derive(Default)]
struct Tally {
    by_source: HashMap<Label, u64>,
    by_target: HashMap<Label, u64>,
    by_source_kind: HashMap<&'static str, u64>,
    by_target_kind: HashMap<&'static str, u64>,
    /// Per source node: its visits.
    by_node: HashMap<u32, u64>,
    /// Per source kind: the changes of its nodes that have out-edges (what a change costs
    /// beyond its visits: waiting for its edges and its targets' records).
    changes_by_kind: HashMap<&'static str, u64>,
    /// Per source node: its changes.
    changes_by_node: HashMap<u32, u64>,
    /// Per source label: the changes of its nodes that have out-edges.
    changes_by_source: HashMap<Label, u64>,
    total: u64,
}

/// The report on `states` states of playouts on `net` (the simplified network of `plain`,
/// which `build_plain` made for `ir` with `signals`: the same node numbers).
pub(super) fn report(ir: &Ir, plain: &Net, signals: &Signals, net: &Net, states: u64) -> String {
    let labels = labels(ir, plain, signals);
    let label = |n: u32| {
        labels.get(n as usize).cloned().flatten().unwrap_or(Label {
            kind: "other",
            relation: String::new(),
        })
    };
    let nodes = net.nodes;
    let mut e = Engine::new(net);
    let mut values: Vec<bool> = (0..nodes).map(|n| e.node_value(n)).collect();
    let mut tally = Tally::default();
    let charge = |e: &Engine, values: &mut [bool], tally: &mut Tally| {
        for n in 0..nodes {
            let v = e.node_value(n);
            if v == values[n as usize] {
                continue;
            }
            values[n as usize] = v;
            let fan = &net.fan
                [net.fan_start[n as usize] as usize..net.fan_start[n as usize + 1] as usize];
            if fan.is_empty() {
                continue;
            }
            let k = fan.len() as u64;
            let l = label(n);
            *tally.by_source_kind.entry(l.kind).or_default() += k;
            *tally.changes_by_kind.entry(l.kind).or_default() += 1;
            *tally.changes_by_source.entry(l.clone()).or_default() += 1;
            *tally.by_source.entry(l).or_default() += k;
            *tally.by_node.entry(n).or_default() += k;
            *tally.changes_by_node.entry(n).or_default() += 1;
            tally.total += k;
            for &x in fan {
                let t = label(x >> 2);
                *tally.by_target_kind.entry(t.kind).or_default() += 1;
                *tally.by_target.entry(t).or_default() += 1;
            }
        }
    };
    let mut rng = SplitMix64::new(1);
    let mut state = net.init.clone();
    let mut joint = vec![0u32; net.moves.len()];
    let mut played = 0u64;
    let start = e.visits;
    'playouts: while played < states {
        state.copy_from_slice(&net.init);
        e.set_state(&state);
        charge(&e, &mut values, &mut tally);
        for _ in 0..1000 {
            played += 1;
            if e.terminal() || played >= states {
                break;
            }
            for (r, j) in joint.iter_mut().enumerate() {
                match e.random_legal(r, &mut rng) {
                    Some(m) => *j = m,
                    None => break 'playouts,
                }
            }
            e.set_joint(&joint);
            charge(&e, &mut values, &mut tally);
            e.next(&mut state);
            e.set_state(&state);
            charge(&e, &mut values, &mut tally);
        }
    }
    let per = |k: u64| k as f64 / played.max(1) as f64;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "visit profile: {played} states, {:.0} visits/state counted by changes ({:.0} by the engine, \
         its legal inputs lifted), {} nodes, {} edges",
        per(tally.total),
        per(e.visits - start),
        net.nodes,
        net.fan.len()
    );
    let pct = |k: u64| 100.0 * k as f64 / tally.total.max(1) as f64;
    // (Shares of `total`.)
    let mut kinds = |title: &str, m: &HashMap<&'static str, u64>, total: u64| {
        let mut v: Vec<_> = m.iter().collect();
        v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let _ = writeln!(out, "{title}:");
        for (k, &n) in v {
            let share = 100.0 * n as f64 / total.max(1) as f64;
            let _ = writeln!(out, "  {share:5.1}% {:8.1}/state  {k}", per(n));
        }
    };
    kinds("by source kind", &tally.by_source_kind, tally.total);
    kinds("by target kind", &tally.by_target_kind, tally.total);
    let changes = tally.changes_by_kind.values().sum();
    kinds("changes by source kind", &tally.changes_by_kind, changes);
    let mut top = |title: &str, m: &HashMap<Label, u64>| {
        let mut v: Vec<_> = m.iter().collect();
        v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let _ = writeln!(out, "{title} (top 20):");
        for (l, &n) in v.into_iter().take(20) {
            let _ = writeln!(
                out,
                "  {:5.1}% {:8.1}/state  {} {}",
                pct(n),
                per(n),
                l.kind,
                l.relation
            );
        }
    };
    top("by source", &tally.by_source);
    top("by target", &tally.by_target);
    let mut v: Vec<_> = tally.changes_by_source.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let _ = writeln!(out, "changes by source (top 20):");
    for (l, &n) in v.into_iter().take(20) {
        let share = 100.0 * n as f64 / changes.max(1) as f64;
        let _ = writeln!(
            out,
            "  {share:5.1}% {:8.1}/state  {} {}",
            per(n),
            l.kind,
            l.relation
        );
    }
    for (title, m) in [
        ("by source node (top 15): visits/state", &tally.by_node),
        (
            "by source node, changes (top 15): changes/state",
            &tally.changes_by_node,
        ),
    ] {
        let mut v: Vec<_> = m.iter().collect();
        v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let _ = writeln!(out, "{title}, fan-out");
        for (&n, &k) in v.into_iter().take(15) {
            let l = label(n);
            let fan = net.fan_start[n as usize + 1] - net.fan_start[n as usize];
            let text = node_text(ir, plain, signals, n);
            let _ = writeln!(
                out,
                "  {:8.2}/state fan {fan:5}  {} {}  {text}",
                per(k),
                l.kind,
                l.relation
            );
        }
    }
    out
}

/// The atom of node `n`, if it is a state bit, a move or a prop's gate.
fn node_text(ir: &Ir, net: &Net, signals: &Signals, n: u32) -> String {
    if let Some(t) = ir.bits.get(n as usize) {
        return t.clone();
    }
    for (r, &base) in signals.does_base.iter().enumerate() {
        if let Some(t) = n
            .checked_sub(base)
            .and_then(|m| ir.moves[r].get(m as usize))
        {
            return format!("(does {} {t})", ir.roles[r]);
        }
    }
    if n >= net.first_gate()
        && let Some(p) = signals
            .props
            .iter()
            .position(|s| s.is_some_and(|s| s.node == n))
    {
        return ir.props[p].text.clone();
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{CompileOptions, Pass, run};

    /// The lines of the section `title` of a report: share, per state, kind.
    fn section(report: &str, title: &str) -> Vec<(f64, f64, String)> {
        let head = format!("{title}:");
        report
            .lines()
            .skip_while(|l| *l != head)
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .map(|l| {
                let mut words = l.split_whitespace();
                let share = words.next().unwrap_or("").trim_end_matches('%');
                let per = words.next().unwrap_or("").trim_end_matches("/state");
                let kind = words.collect::<Vec<_>>().join(" ");
                (
                    share.parse().expect("a share"),
                    per.parse().expect("a rate"),
                    kind,
                )
            })
            .collect()
    }

    /// The report counts the changes of each kind of source beside its visits: a change visits
    /// at least one edge, and the shares of the changes add up to all of them.
    #[test]
    fn changes_are_counted_beside_visits() {
        let text = include_str!("../../../../examples/ticTacToe.kif");
        let a = run(text, &CompileOptions::default(), Pass::Optimise).expect("compiles");
        let (ir, _, _) = super::super::grouped(&a.ir.expect("an IR"));
        let (plain, signals) = super::super::build_plain(&ir);
        let mut net = plain.clone();
        net.simplify();
        let r = report(&ir, &plain, &signals, &net, 200);
        let visits = section(&r, "by source kind");
        let changes = section(&r, "changes by source kind");
        assert!(!changes.is_empty(), "{r}");
        let total: f64 = changes.iter().map(|c| c.0).sum();
        assert!((total - 100.0).abs() < 1.0, "{r}");
        for (_, per, kind) in &changes {
            let v = visits
                .iter()
                .find(|v| &v.2 == kind)
                .expect("visits of the kind");
            assert!(*per > 0.0 && *per <= v.1, "{kind}: {r}");
        }
    }
}
