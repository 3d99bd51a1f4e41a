//! One grounding attempt: the static relations computed component by component (those too
//! large made lazy when the attempt is hybrid), then the relaxed reachability of the dynamic
//! relations and the instantiation of their rules ([`ground_with`], which [`super::ground`]
//! and the hybrid attempts of `defer.rs` call), and what an attempt learnt for the next
//! ([`Probe`]).

use crate::diag::codes;
use rustc_hash::FxHashSet as HashSet;

use crate::ast::{Span, kw};
use crate::diag::Diagnostic;
use crate::normalize::{NLit, NProgram, NRule};
use crate::terms::TermId;

use super::defer::{self, LARGE_DYNAMIC_SHARE, defer_relations};
use super::early::EarlyStop;
use super::join::{Budget, Exhausted, RelKey, rel_key};
use super::relations::{dynamic_relations, is_game_output, needed_rules};
use super::{
    Deadline, GroundError, GroundOptions, GroundProgram, GroundRule, GroundStats, Grounder, doomed,
    fixpoint, hybrid, instantiate,
};

/// With hybrid grounding, makes the relations `rels` of a static component lazy (their rules
/// run at run time, asked with bound arguments); returns whether it did. A recursive
/// component cannot be lazy. Nor can a relation the game reads directly (`role`, `init`,
/// `legal`, `goal`, `terminal`, `sees`): a lazy relation is only asked by the joins that read
/// it, so the game would never see it (a static `terminal` read from a huge relation was
/// silently `false`); that is an error naming the rule.
fn make_lazy(
    g: &mut Grounder<'_>,
    component: &[&NRule],
    rels: &[RelKey],
) -> Result<bool, GroundError> {
    let recursive = component.iter().any(|r| {
        r.body.iter().any(|l| match l {
            NLit::Pos(a) | NLit::Neg(a) => rels.contains(&rel_key(a)),
            _ => false,
        })
    });
    if !g.hybrid || recursive {
        return Ok(false);
    }
    if let Some(r) = component.iter().find(|r| is_game_output(r.head.rel)) {
        return Err(GroundError::too_large(Diagnostic::error(
            codes::OUTPUT_TOO_LARGE,
            r.span,
            format!(
                "`{}` is read by the game but depends on a static relation too large to compute",
                g.symbols.name(r.head.rel)
            ),
        )));
    }
    for r in component {
        g.lazy
            .entry(rel_key(&r.head))
            .or_default()
            .push((*r).clone());
    }
    Ok(true)
}

/// What the static phase of an attempt learnt.
#[derive(Default)]
pub(super) struct Probe {
    /// The static relations computed in full.
    pub(super) complete: HashSet<RelKey>,
    /// The attempt ran out of time.
    pub(super) out_of_time: bool,
    /// Whether the attempt may leave rules to run time.
    pub(super) hybrid: bool,
    /// A static relation was too large to compute.
    pub(super) static_too_large: bool,
    /// The static components that had more atoms than allowed (not more work: another
    /// attempt has more), with the error: the same relations in the same database would have
    /// them again, so the next attempt does not compute them (set from the previous attempt).
    pub(super) over_atoms: Vec<(Vec<RelKey>, GroundError)>,
    /// The join work the attempt may spend (0: the options' limit).
    pub(super) work: u64,
    /// Dynamic relations to make lazy (see [`super::ground_hybrid`]).
    pub(super) deferred: HashSet<RelKey>,
    /// When the attempt failed as too large: its dynamic relations (not read by the game)
    /// with more than a [`LARGE_DYNAMIC_SHARE`] of the atom limit, with their atoms.
    pub(super) large_dynamic: Vec<(RelKey, usize)>,
    /// What ends the attempt early.
    pub(super) early_stop: EarlyStop,
    /// When the attempt failed on the instances of one rule estimated past the limits by
    /// themselves: that rule (see [`Grounder::doomed`]).
    pub(super) doomed: Option<NRule>,
    /// The join work the attempt spent.
    pub(super) spent: u64,
    /// When the attempt failed as too large: the dynamic relations the `large_dynamic` ones
    /// read, large already (see [`defer::large_reads`]).
    pub(super) large_reads: Vec<RelKey>,
}

/// One grounding attempt of `nprog`, whose relations in `guards` are demand relations (left
/// out of the ground rules).
pub(super) fn ground_with(
    nprog: &NProgram,
    options: &GroundOptions,
    guards: &std::collections::HashSet<crate::ast::Sym>,
    deadline: Option<Deadline>,
    probe: &mut Probe,
    progress: &crate::progress::ProgressHook,
) -> Result<GroundProgram, GroundError> {
    let rules = needed_rules(&nprog.rules);
    let dynamic = dynamic_relations(&rules);
    let budget = Budget::new(
        if probe.work == 0 {
            options.max_matches
        } else {
            probe.work
        },
        deadline,
    );
    let mut g = Grounder {
        dynamic,
        first_span: rules.first().map_or(Span::default(), |r| r.span),
        guards: guards.clone(),
        hybrid: probe.hybrid,
        deferred: probe.deferred.clone(),
        lazy_candidates: rules.iter().map(|r| rel_key(&r.head)).collect(),
        early_stop: probe.early_stop,
        progress: progress.clone(),
        ..Grounder::new(options, nprog.symbols.clone(), budget)
    };
    // The plain attempt may find a rule doomed (see [`doomed`]).
    let plain = (!probe.hybrid && guards.is_empty()).then_some(nprog);
    let result = ground_in(&mut g, &rules, probe, plain);
    probe.out_of_time = g.budget.exhausted == Some(Exhausted::Time);
    probe.doomed = g.doomed.take();
    probe.spent = g.budget.initial.saturating_sub(g.budget.work_left);
    tracing::debug!(
        work = probe.spent,
        atoms = g.db.count(),
        hybrid = probe.hybrid,
        on_demand = !guards.is_empty(),
        ok = result.is_ok(),
        "attempt done"
    );
    if matches!(&result, Err(e) if e.is_too_large()) {
        let large = options.max_atoms / LARGE_DYNAMIC_SHARE;
        probe.large_dynamic = g
            .dynamic
            .iter()
            .copied()
            .filter(|&rel| {
                !is_game_output(rel.0)
                    && rel != (kw::TRUE, 1)
                    && rel != (kw::DOES, 2)
                    && g.db.atoms(rel).len() > large
                    && rules.iter().any(|r| rel_key(&r.head) == rel)
            })
            .map(|rel| (rel, g.db.atoms(rel).len()))
            .collect();
        probe.large_dynamic.sort_unstable();
        let large: Vec<RelKey> = probe.large_dynamic.iter().map(|&(r, _)| r).collect();
        probe.large_reads = defer::large_reads(&g, &rules, &large);
        if !probe.large_dynamic.is_empty() {
            tracing::debug!(
                relations = ?probe
                    .large_dynamic
                    .iter()
                    .map(|((s, a), n)| format!("{}/{a}: {n}", g.symbols.name(*s)))
                    .collect::<Vec<_>>(),
                reads = ?probe
                    .large_reads
                    .iter()
                    .map(|(s, a)| format!("{}/{a}", g.symbols.name(*s)))
                    .collect::<Vec<_>>(),
                "large dynamic relations"
            );
        }
    }
    result
}

fn ground_in(
    g: &mut Grounder<'_>,
    rules: &[&NRule],
    probe: &mut Probe,
    plain: Option<&NProgram>,
) -> Result<GroundProgram, GroundError> {
    // Static relations, exactly, in dependency order. A component too large to compute is
    // rolled back; the others are still computed, so that a second attempt knows which
    // static relations are cheap in full.
    let static_rules: Vec<&NRule> = rules
        .iter()
        .copied()
        .filter(|r| !g.dynamic.contains(&rel_key(&r.head)))
        .collect();
    let components = fixpoint::static_components(&static_rules)?;
    let mut lazy: HashSet<RelKey> = HashSet::default();
    let mut complete: HashSet<RelKey> = HashSet::default();
    let mut first_error: Option<GroundError> = None;
    let known_over_atoms = std::mem::take(&mut probe.over_atoms);
    for component in components {
        let rels: Vec<RelKey> = component.iter().map(|r| rel_key(&r.head)).collect();
        if let Some((_, e)) = known_over_atoms.iter().find(|(r, _)| *r == rels) {
            lazy.extend(rels.iter().copied());
            match make_lazy(g, &component, &rels) {
                Ok(true) => {}
                Ok(false) => {
                    first_error.get_or_insert(e.clone());
                }
                Err(refused) => {
                    first_error.get_or_insert(refused);
                }
            }
            continue;
        }
        let reads_lazy = component.iter().any(|r| {
            r.body.iter().any(|l| match l {
                NLit::Pos(a) | NLit::Neg(a) => lazy.contains(&rel_key(a)),
                _ => false,
            })
        });
        if reads_lazy {
            // Hybrid grounding asks it at run time (when defined without recursion).
            make_lazy(g, &component, &rels)?;
            lazy.extend(rels);
            continue;
        }
        let mark = g.db.count();
        let work = g.budget.work_left;
        // A component may spend a quarter of what is left, and add a quarter of the atoms.
        g.budget.work_left = work / 4;
        g.atom_limit = mark as usize + g.options.max_atoms / 4;
        let result = fixpoint::static_component(g, &component);
        g.atom_limit = g.options.max_atoms;
        let spent = work / 4 - g.budget.work_left;
        g.budget.work_left = work - spent;
        match result {
            Ok(()) => complete.extend(rels),
            Err(e) if e.is_too_large() && g.budget.exhausted != Some(Exhausted::Time) => {
                tracing::debug!(errors = ?e.diagnostics, "static component too large");
                if g.budget.exhausted.is_none() {
                    probe.over_atoms.push((rels.clone(), e.clone()));
                }
                g.budget.exhausted = None;
                g.db.truncate(&g.store, &rels, mark);
                lazy.extend(rels.iter().copied());
                // At run time, a relation defined without recursion can be asked.
                match make_lazy(g, &component, &rels) {
                    Ok(true) => {}
                    Ok(false) => {
                        first_error.get_or_insert(e);
                    }
                    Err(refused) => {
                        first_error.get_or_insert(refused);
                    }
                }
            }
            Err(e) => return Err(e),
        }
    }
    probe.complete = complete;
    probe.static_too_large = first_error.is_some();
    if tracing::enabled!(tracing::Level::DEBUG) {
        let names: Vec<String> = g
            .lazy
            .keys()
            .map(|(s, a)| format!("{}/{a}", g.symbols.name(*s)))
            .collect();
        tracing::debug!(?names, "lazy relations");
    }
    if let Some(first) = first_error {
        return Err(first);
    }
    ground_dynamic(g, rules, plain.map(|nprog| (nprog, &probe.complete)))
}

/// Reachability and instantiation, once the static relations are known.
/// `plain`: for the plain attempt, the description and its static relations computed in
/// full, to tell whether a rule too large is doomed (see [`doomed`]).
fn ground_dynamic(
    g: &mut Grounder<'_>,
    rules: &[&NRule],
    plain: Option<(&NProgram, &HashSet<RelKey>)>,
) -> Result<GroundProgram, GroundError> {
    let static_atoms = g.db.count() as usize;
    // Relaxed reachability of the dynamic relations.
    let init: Vec<TermId> =
        g.db.atoms((kw::INIT, 1))
            .iter()
            .map(|&a| g.store.args(a)[0])
            .collect();
    let roles: Vec<TermId> =
        g.db.atoms((kw::ROLE, 1))
            .iter()
            .map(|&a| g.store.args(a)[0])
            .collect();
    let mut dyn_rules: Vec<NRule> = rules
        .iter()
        .filter(|r| g.dynamic.contains(&rel_key(&r.head)))
        .map(|&r| r.clone())
        .collect();
    defer_relations(g, &mut dyn_rules);
    let rounds = fixpoint::reach(g, &init, &mut dyn_rules)?;
    let dynamic_atoms = g.db.count() as usize - static_atoms;

    // Instantiation (demand relations only restricted it: they are not instantiated).
    let progress = g.progress.clone();
    let total = dyn_rules.len() as u64;
    let options = g.options;
    let doom = |rule: &NRule, estimate: &instantiate::Estimate, g: &Grounder<'_>| {
        plain
            .is_some_and(|(nprog, complete)| {
                doomed::is_doomed(nprog, complete, rule, estimate, options)
            })
            .then(|| doomed::switchable(g))
    };
    let mut inst = instantiate::Instantiator::new(g);
    inst.doom = Some(&doom);
    for (i, rule) in dyn_rules.into_iter().enumerate() {
        progress.step("rules instantiated", i as u64, total);
        if !inst.is_guard(rule.head.rel) {
            inst.top = Some(rule.clone());
            inst.rule(rule, 0)?;
        }
    }
    progress.step("rules instantiated", total, total);
    let split_rules = inst.split_rules;
    let mut out = inst.finish();
    let mut builder = hybrid::JoinBuilder::default();
    for rule in std::mem::take(&mut g.join_rules) {
        builder.join(g, &rule)?;
    }
    let joins = builder.finish();
    // Game relations that are static become facts.
    for rel in [
        (kw::LEGAL, 2),
        (kw::NEXT, 1),
        (kw::GOAL, 2),
        (kw::TERMINAL, 0),
        (kw::SEES, 2),
    ] {
        if !g.dynamic.contains(&rel) {
            for &a in g.db.atoms(rel) {
                out.push(GroundRule {
                    head: a,
                    pos: Vec::new(),
                    neg: Vec::new(),
                    origin: 0,
                });
            }
        }
    }
    let stats = GroundStats {
        static_atoms,
        dynamic_atoms,
        rounds,
        rules: out.len(),
        split_rules,
        work: g.budget.initial.saturating_sub(g.budget.work_left),
        demand_driven: false,
        join_rules: joins.joins.len(),
        lazy_relations: joins.lazy.len(),
        ..GroundStats::default()
    };
    Ok(GroundProgram {
        symbols: g.symbols.clone(),
        store: std::mem::take(&mut g.store),
        roles,
        init,
        rules: out,
        joins,
        stats,
    })
}
