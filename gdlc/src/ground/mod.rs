//! Grounding: the flat rules of a description instantiated over the ground atoms that can
//! matter, with everything that does not depend on `true` or `does` evaluated away.
//!
//! 1. *Needed rules*: only rules that `role`, `init`, `legal`, `next`, `goal`, `terminal` or
//!    `sees` (GDL-II percepts, derived like `next` from the state and the joint move) depend on
//!    are kept (`base` and `input` are not simulated).
//! 2. *Static relations* (those that depend on neither `true` nor `does`, such as `succ` or
//!    `+` tables) are computed exactly, stratum by stratum, with negation (`fixpoint`).
//! 3. *Relaxed reachability*: an over-approximation of every ground atom that can hold in a
//!    reachable state, by a fixpoint that ignores negation on dynamic relations and feeds every
//!    `(next X)` back as `(true X)` and every `(legal R M)` as `(does R M)`, starting from the
//!    `init` facts. Without negation the rules are a positive program over a Herbrand base that
//!    the GDL recursion restriction keeps finite; a bound on the nesting depth of terms makes
//!    sure of it for descriptions that break the restriction.
//! 4. *Instantiation* (`instantiate`): every dynamic rule is instantiated over those atoms.
//!    Static literals disappear (false ones drop the instance), negative literals on atoms that
//!    can never hold disappear, so a [`GroundRule`] mentions only dynamic atoms. A rule with too
//!    many instances is first decomposed ([`split`]): variables that only part of the body
//!    shares are projected out into auxiliary relations, which is how
//!    `(<= (next (connected ?k ?m ?n)) (transfer ?e) (true (connected ?e ?m ?n)) (true (step ?k)))`
//!    becomes two rules of a few thousand instances instead of one of half a million.
//!
//! Every join counts its work against one [`join::Budget`] (candidate atoms visited, and a
//! deadline), and the numbers of atoms, instances and literals are bounded: a description too
//! large to ground is a diagnostic naming the rule, never exhausted memory or a hang.

mod attempt;
#[cfg(test)]
mod attempt_tests;
mod batch;
mod db;
mod deadline;
mod defer;
mod doomed;
mod early;
mod error;
pub(crate) mod fixpoint;
pub mod hybrid;
pub(crate) mod instantiate;
pub mod join;
mod pattern;
mod plan;
mod relations;
mod request;
mod scan_order;
pub mod split;
#[cfg(test)]
mod test_support;
pub mod verify;

use crate::diag::codes;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::time::Duration;

use crate::ast::{Span, Symbols};
use crate::diag::Diagnostic;
use crate::normalize::{NProgram, NRule};
use crate::progress::ProgressHook;
use crate::terms::{TermId, TermStore};

use attempt::{Probe, ground_with};
pub use deadline::Deadline;
use defer::LARGE_DYNAMIC_SHARE;
use early::EarlyStop;
pub use error::{GroundError, GroundErrorKind};
use join::{Budget, Db, Exhausted, JoinError, RelKey, rel_key};
pub(crate) use relations::is_game_output;

/// Limits of [`ground`].
#[derive(Clone, Debug)]
pub struct GroundOptions {
    /// The most ground atoms (static and reachable) before grounding gives up.
    pub max_atoms: usize,
    /// The most ground rule instances before grounding gives up.
    pub max_rule_instances: usize,
    /// The most join work (candidate atoms visited, by all joins together) before grounding
    /// gives up.
    pub max_matches: u64,
    /// The most literals in all ground rules together before grounding gives up.
    pub max_literals: usize,
    /// The deepest nesting of function terms in a ground atom (a counter `(s (s (s 0)))` that
    /// grows without bound stops here).
    pub max_term_depth: usize,
    /// How much CPU time grounding may take (see [`Deadline`]).
    pub time_limit: Option<Duration>,
    /// A rule whose instances (counted without their `does` literals, which code generation
    /// merges into move sets) exceed this is decomposed into smaller rules first.
    pub split_threshold: usize,
    /// Hybrid grounding: the most head atoms a rule evaluated at run time may have; a relation
    /// whose rule would have more is asked on demand instead (see [`hybrid`]).
    pub max_join_heads: usize,
}

impl Default for GroundOptions {
    fn default() -> Self {
        GroundOptions {
            max_atoms: 5_000_000,
            max_rule_instances: 5_000_000,
            max_matches: 1_500_000_000,
            max_literals: 30_000_000,
            max_term_depth: 40,
            time_limit: Some(Duration::from_secs(240)),
            split_threshold: 2_000,
            max_join_heads: 1_000_000,
        }
    }
}

/// A ground rule over dynamic atoms: `head <= pos[0] & ... & !neg[0] & ...`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GroundRule {
    pub head: TermId,
    /// Sorted, without duplicates.
    pub pos: Vec<TermId>,
    /// Sorted, without duplicates.
    pub neg: Vec<TermId>,
    /// The index of the source rule in `Program::rules`.
    pub origin: usize,
}

/// Sizes of a grounding.
#[derive(Clone, Copy, Debug, Default)]
pub struct GroundStats {
    /// Atoms of the static relations.
    pub static_atoms: usize,
    /// Atoms of the dynamic relations that the relaxed fixpoint found (the `true` and `does`
    /// atoms included).
    pub dynamic_atoms: usize,
    /// Rounds of the relaxed fixpoint.
    pub rounds: usize,
    /// Ground rule instances.
    pub rules: usize,
    /// Rules decomposed into smaller ones before instantiation.
    pub split_rules: usize,
    /// Join work spent (candidate atoms visited).
    pub work: u64,
    /// Whether the rules were grounded on demand (rewritten by magic sets).
    pub demand_driven: bool,
    /// Rules left to run time (see [`hybrid`]), and lazy relations.
    pub join_rules: usize,
    pub lazy_relations: usize,
    /// The join work of the plain attempt, when it failed, and of the attempts on demand made
    /// after it (0: none).
    pub plain_work: u64,
    pub on_demand_work: u64,
    /// The hybrid attempts made after the plain one, the last included (0: none).
    pub hybrid_attempts: u32,
}

/// A ground description.
#[derive(Clone, Debug)]
pub struct GroundProgram {
    pub symbols: Symbols,
    /// Every ground term. An atom is the term of its relation name applied to its arguments:
    /// `(true (cell 1 1 b))` is the term `true` applied to `(cell 1 1 b)`.
    pub store: TermStore,
    /// The roles, in the order of the `role` facts.
    pub roles: Vec<TermId>,
    /// The state facts `X` of every `(init X)`, in order of derivation.
    pub init: Vec<TermId>,
    /// The ground rules of every dynamic relation, plus facts for the atoms of game relations
    /// (`legal`, `next`, `goal`, `terminal`, `sees`) that turned out static.
    pub rules: Vec<GroundRule>,
    /// The rules evaluated at run time (none unless the description is too large to ground).
    pub joins: hybrid::GroundJoins,
    pub stats: GroundStats,
}

impl GroundProgram {
    /// The KIF text of a term.
    pub fn text(&self, id: TermId) -> String {
        self.store.text(&self.symbols, id)
    }
}

/// The state of a grounding: the atoms found so far and the limits.
pub(crate) struct Grounder<'a> {
    pub options: &'a GroundOptions,
    pub symbols: Symbols,
    pub store: TermStore,
    pub db: Db,
    pub budget: Budget,
    /// `true`, `does` and every relation that depends on them (auxiliary relations
    /// included).
    pub dynamic: HashSet<RelKey>,
    /// The nesting depth of each term interned so far (0 for constants), by term id.
    depth: Vec<u16>,
    /// The span of the description's first rule, for diagnostics about no rule in particular.
    pub first_span: Span,
    /// The demand relations of a magic-sets rewrite: not instantiated, and left out of ground
    /// rules.
    pub guards: std::collections::HashSet<crate::ast::Sym>,
    /// Auxiliary relations made so far by splits (for their names).
    pub aux_count: u32,
    /// Whether rules too large to ground may be evaluated at run time ([`hybrid`]).
    pub hybrid: bool,
    /// The lazy relations (static relations too large to compute) and their rules.
    pub lazy: HashMap<RelKey, Vec<NRule>>,
    /// The rules evaluated at run time.
    pub join_rules: Vec<NRule>,
    /// The most atoms the database may hold now (less than the options' limit while a static
    /// component is computed, so that one too large fails early).
    pub atom_limit: usize,
    /// Dynamic relations made lazy by hybrid grounding (see [`ground_hybrid`]).
    pub deferred: HashSet<RelKey>,
    /// The relations defined by rules of the description (not auxiliary ones).
    pub lazy_candidates: HashSet<RelKey>,
    /// What ends the attempt early, as known to be too large (see [`EarlyStop`]).
    pub early_stop: EarlyStop,
    /// A dynamic rule whose instances alone were estimated past the limits (see
    /// [`instantiate::Estimate::alone_over`]): another attempt that instantiates the same rule
    /// over the same atoms fails on it too.
    pub doomed: Option<NRule>,
    /// The relaxed fixpoint ran a rule in full that it could not split, which a hybrid attempt
    /// leaves to run time instead (see [`doomed::switchable`]).
    pub unsplit_in_reach: bool,
    /// Told how far grounding is ([`ground_reporting`]).
    pub progress: ProgressHook,
}

impl<'a> Grounder<'a> {
    /// A grounder with nothing found yet (no atoms, guards, lazy or deferred relations), within
    /// `budget`; the callers set what their grounding starts from.
    pub fn new(options: &'a GroundOptions, symbols: Symbols, budget: Budget) -> Grounder<'a> {
        Grounder {
            options,
            symbols,
            store: TermStore::default(),
            db: Db::default(),
            budget,
            dynamic: HashSet::default(),
            depth: Vec::new(),
            first_span: Span::default(),
            guards: Default::default(),
            aux_count: 0,
            hybrid: false,
            lazy: HashMap::default(),
            join_rules: Vec::new(),
            atom_limit: options.max_atoms,
            deferred: HashSet::default(),
            lazy_candidates: HashSet::default(),
            early_stop: EarlyStop::default(),
            doomed: None,
            unsplit_in_reach: false,
            progress: ProgressHook::default(),
        }
    }
}

impl Grounder<'_> {
    /// The nesting depth of a term.
    pub fn depth(&mut self, t: TermId) -> usize {
        let i = t as usize;
        if i < self.depth.len() && self.depth[i] != u16::MAX {
            return self.depth[i] as usize;
        }
        if self.depth.len() <= i {
            self.depth.resize(self.store.len().max(i + 1), u16::MAX);
        }
        // Arguments are interned before the terms that contain them: lower ids. Read by
        // index (the store is borrowed again by each call), not copied: every new atom of the
        // fixpoints passes here (ruleDepthExponential's two million).
        let (mut d, mut k) = (0, 0);
        while let Some(&a) = self.store.args(t).get(k) {
            d = d.max(self.depth(a) + 1);
            k += 1;
        }
        self.depth[i] = d.min(u16::MAX as usize - 1) as u16;
        d
    }

    /// The outcome of a join of `rule` done for `what`: whether it ran to its end (`false` when
    /// its visitor stopped it), or the grounding error of an unsafe rule or an exhausted budget.
    pub fn joined(
        &self,
        result: Result<(), JoinError>,
        rule: &NRule,
        what: &str,
    ) -> Result<bool, GroundError> {
        match result {
            Ok(()) => Ok(true),
            Err(JoinError::Stopped) => Ok(false),
            Err(JoinError::Unsafe) => Err(GroundError::invalid(vec![error::unsafe_rule(rule)])),
            Err(JoinError::Budget) => Err(self.exhausted(Some(rule), what)),
        }
    }

    /// The diagnostic for an exhausted budget, blamed on `rule`.
    pub fn exhausted(&self, rule: Option<&NRule>, what: &str) -> GroundError {
        let span = rule.map_or(self.first_span, |r| r.span);
        let msg = match self.budget.exhausted {
            Some(Exhausted::Time) => format!(
                "too large to ground: {what} takes more than the limit of {:.0} s of CPU time",
                self.options
                    .time_limit
                    .map_or(0.0, |d: Duration| d.as_secs_f64())
            ),
            _ => format!(
                "too large to ground: {what} needs more than {} join steps",
                self.budget.initial
            ),
        };
        GroundError::too_large(Diagnostic::error(codes::GROUNDING_TOO_LARGE, span, msg))
    }

    /// Fails when the database holds more atoms than allowed.
    pub fn check_atoms(&self, rule: &NRule) -> Result<(), GroundError> {
        self.check_early_stop(rule)?;
        if self.db.count() as usize > self.atom_limit.min(self.options.max_atoms) {
            return Err(self.over_atom_limit(rule, 0));
        }
        Ok(())
    }

    /// The error of more atoms than allowed, blamed on `rule`, which is about to add
    /// `pending` atoms to the database.
    pub fn over_atom_limit(&self, rule: &NRule, pending: usize) -> GroundError {
        let head = rel_key(&rule.head);
        {
            let mut sizes: Vec<(usize, RelKey)> = self
                .db
                .relations()
                .map(|r| {
                    (
                        self.db.atoms(r).len() + if r == head { pending } else { 0 },
                        r,
                    )
                })
                .collect();
            if pending > 0 && self.db.atoms(head).is_empty() {
                sizes.push((pending, head));
            }
            sizes.sort_unstable_by(|a, b| b.cmp(a));
            let largest: Vec<String> = sizes
                .iter()
                .take(3)
                .map(|(n, (s, a))| format!("{}/{a}: {n}", self.symbols.name(*s)))
                .collect();
            GroundError::too_large(
                Diagnostic::error(
                    codes::GROUNDING_TOO_LARGE,
                    rule.span,
                    format!(
                        "too large to ground: more than {} ground atoms (the last ones derived \
                         by this rule)",
                        self.atom_limit.min(self.options.max_atoms)
                    ),
                )
                .with_note(format!("the largest relations: {}", largest.join(", "))),
            )
        }
    }
}

/// Grounds `nprog` (normalised from a checked description).
///
/// First over the rules as they are. When that is too large, the rules are rewritten by
/// magic sets ([`crate::magic`]) and grounded again: relations are then instantiated only for
/// the argument tuples that some rule asks for (a `(not (threatened ?player ?x ?y ..))` whose
/// arguments a legal move binds needs its instances for legal moves only, not for every
/// combination of squares), and static relations too large to compute in full are computed
/// on demand. The demand relations serve only to restrict instantiation: they are left out
/// of the ground rules, which are instances of the original rules.
pub fn ground(nprog: &NProgram, options: &GroundOptions) -> Result<GroundProgram, GroundError> {
    ground_reporting(nprog, options, &ProgressHook::default())
}

/// [`ground`], telling `progress` how far it is: atoms derived by each fixpoint round, rules
/// instantiated.
pub fn ground_reporting(
    nprog: &NProgram,
    options: &GroundOptions,
    progress: &ProgressHook,
) -> Result<GroundProgram, GroundError> {
    use crate::magic::{MagicOptions, magic_sets};
    let deadline = options.time_limit.map(Deadline::after);
    // The first attempt may spend a third of the work: a description that needs more usually
    // grounds much faster on demand.
    let mut probe = Probe {
        work: options.max_matches / 3,
        early_stop: EarlyStop::LargeDynamic {
            share: early::PLAIN_SHARE,
        },
        ..Probe::default()
    };
    let clock = std::time::Instant::now();
    let first = match ground_with(
        nprog,
        options,
        &std::collections::HashSet::new(),
        deadline,
        &mut probe,
        progress,
    ) {
        Ok(g) => return Ok(g),
        Err(e) if e.is_too_large() && !probe.out_of_time => {
            tracing::debug!(elapsed = ?clock.elapsed(), cpu = ?gdl_tools::bench::thread_cpu_time(), error = %e.summary(), "plain grounding too large");
            e
        }
        Err(e) => return Err(e),
    };
    // A static relation too large to compute: first try evaluating it at run time. The
    // attempt is deterministic, so when it fails it is not repeated as the last resort.
    // Dynamic relations too large are asked at run time by that attempt, but they alone do
    // not put it before magic sets: the ground program on demand is much faster at run time
    // (merrills: ground on demand, but not one playout in 20 s with joins at run time).
    let mut large_dynamic: Vec<RelKey> = probe.large_dynamic.iter().map(|&(r, _)| r).collect();
    large_dynamic.extend(probe.large_reads.iter().copied());
    let mut hybrid_failed = None;
    if probe.static_too_large {
        let start = Hybrid {
            over_atoms: &probe.over_atoms,
            deferred: &large_dynamic,
        };
        match ground_hybrid(nprog, options, deadline, start, progress) {
            (Ok(mut g), _) => {
                g.stats.plain_work = probe.spent;
                return Ok(g);
            }
            (Err(e), false) => hybrid_failed = Some(e),
            (Err(_), true) => {}
        }
    }
    let materialized: std::collections::HashSet<(crate::ast::Sym, usize)> = probe
        .complete
        .iter()
        .map(|&(s, a)| (s, a as usize))
        .collect();
    let mut last = first.clone();
    // When the plain attempt stopped at a dynamic relation too large, the attempt on demand
    // pays only when demand restricts what is derived: it may spend the join work the plain
    // attempt spent, no more (merrills: 3.3 million steps on demand after 10.7 million; chess,
    // where the demand for `clear_diagonal_ne_ig` is as large as the relation, spent 43
    // million before failing after 6.7 million). 0: the options' limit.
    let on_demand_work = if probe.large_dynamic.is_empty() {
        0
    } else {
        probe.spent.max(1)
    };
    // The rewrites may spend half the time left: the last resort keeps the rest.
    let magic_deadline = deadline.map(|d| Deadline::after(d.left() / 2));
    let mut on_demand_spent = 0;
    for negation in doomed::POLICIES {
        let magic = magic_sets(
            nprog,
            &MagicOptions {
                materialized: materialized.clone(),
                negation,
            },
        );
        if let Some(rule) = &probe.doomed
            && doomed::keeps_rules(&magic.program, nprog, rule.origin)
        {
            // The rewrite computes the rule the plain attempt failed on in full (a negated
            // or unbound use of its relation): its instances are as many again.
            tracing::debug!(
                ?negation,
                "on demand skipped: it keeps the rule too large in full"
            );
            continue;
        }
        let mut again = Probe {
            early_stop: EarlyStop::LargeDynamic {
                share: LARGE_DYNAMIC_SHARE,
            },
            work: on_demand_work,
            ..Probe::default()
        };
        let result = ground_with(
            &magic.program,
            options,
            &magic.guards,
            magic_deadline,
            &mut again,
            progress,
        );
        on_demand_spent += again.spent;
        match result {
            Ok(mut g) => {
                g.stats.plain_work = probe.spent;
                g.stats.on_demand_work = on_demand_spent;
                tracing::debug!(elapsed = ?clock.elapsed(), cpu = ?gdl_tools::bench::thread_cpu_time(), ?negation, "grounded on demand");
                g.stats.demand_driven = true;
                return Ok(g);
            }
            Err(e) if e.kind == GroundErrorKind::NegativeCycle => last = e,
            Err(e) => {
                tracing::debug!(elapsed = ?clock.elapsed(), cpu = ?gdl_tools::bench::thread_cpu_time(), ?negation, error = %e.summary(), "on demand too large");
                // The relations of the description found too large on demand (through
                // their adorned or demand relations) are deferred from the start of the
                // hybrid attempt, rather than found again one by one.
                let heads: HashSet<RelKey> = nprog.rules.iter().map(|r| rel_key(&r.head)).collect();
                for &(rel, _) in &again.large_dynamic {
                    let (name, arity) = magic.source((rel.0, rel.1 as usize));
                    let rel = (name, arity as u32);
                    if heads.contains(&rel) && !large_dynamic.contains(&rel) {
                        large_dynamic.push(rel);
                    }
                }
                last = e;
                break;
            }
        }
    }
    // Last: the rules too large to ground are evaluated at run time.
    tracing::debug!(
        deferred = ?large_dynamic
            .iter()
            .map(|(s, a)| format!("{}/{a}", nprog.symbols.name(*s)))
            .collect::<Vec<_>>(),
        "hybrid grounding starts with relations deferred"
    );
    let start = Hybrid {
        over_atoms: &probe.over_atoms,
        deferred: &large_dynamic,
    };
    let result = match hybrid_failed {
        Some(e) => Err(e),
        None => ground_hybrid(nprog, options, deadline, start, progress)
            .0
            .map(|mut g| {
                g.stats.plain_work = probe.spent;
                g.stats.on_demand_work = on_demand_spent;
                g
            }),
    };
    if let Err(e) = &result {
        tracing::debug!(errors = ?e, "hybrid grounding failed");
    }
    tracing::debug!(elapsed = ?clock.elapsed(), cpu = ?gdl_tools::bench::thread_cpu_time(), ok = result.is_ok(), "hybrid grounding done");
    match result {
        Ok(g) => Ok(g),
        Err(e) if e.is_too_large() => {
            // The first limit met, then why the last resort failed (e.g. a game output that
            // depends on a relation too large to compute).
            let mut diagnostics: Vec<Diagnostic> = last
                .diagnostics
                .into_iter()
                .map(|d| {
                    d.with_note(
                        "also when grounded on demand (magic sets), and with joins at run time",
                    )
                })
                .collect();
            for d in e.diagnostics {
                if !diagnostics
                    .iter()
                    .any(|x| x.span == d.span && x.code == d.code)
                {
                    diagnostics.push(d);
                }
            }
            Err(GroundError {
                kind: last.kind,
                diagnostics,
                defer: None,
            })
        }
        Err(e) => Err(e),
    }
}

/// The most dynamic relations one hybrid grounding may defer to run time.
const MAX_DEFERRED: usize = 24;

/// Hybrid grounding (the rules too large to ground evaluated at run time). When an attempt
/// fails on a rule whose head would have too many atoms, and its relation may be asked on
/// demand instead ([`GroundError::defer`]), it is tried again with that relation *deferred*:
/// lazy, its rules run at run time with the arguments its readers bind. `start`: what an
/// earlier attempt learnt. Returns the result and whether the time ran out.
pub(super) fn ground_hybrid(
    nprog: &NProgram,
    options: &GroundOptions,
    deadline: Option<Deadline>,
    start: Hybrid<'_>,
    progress: &ProgressHook,
) -> (Result<GroundProgram, GroundError>, bool) {
    let over_atoms = start.over_atoms;
    let mut deferred: HashSet<RelKey> = start.deferred.iter().copied().collect();
    let max_deferred = MAX_DEFERRED + deferred.len();
    let mut attempts = 0;
    loop {
        attempts += 1;
        let mut probe = Probe {
            hybrid: true,
            deferred: deferred.clone(),
            over_atoms: over_atoms.to_vec(),
            ..Probe::default()
        };
        let result = ground_with(
            nprog,
            options,
            &std::collections::HashSet::new(),
            deadline,
            &mut probe,
            progress,
        );
        match result {
            Err(e) if !probe.out_of_time && deferred.len() < max_deferred => match e.defer {
                Some(rel) if deferred.insert(rel) => {
                    tracing::debug!(
                        relation = %format!("{}/{}", nprog.symbols.name(rel.0), rel.1),
                        cpu = ?gdl_tools::bench::thread_cpu_time(),
                        error = %e.summary(),
                        "hybrid grounding defers a relation to run time"
                    );
                }
                _ => return (Err(e), false),
            },
            r => {
                let r = r.map(|mut g| {
                    g.stats.hybrid_attempts = attempts;
                    g
                });
                return (r, probe.out_of_time);
            }
        }
    }
}

/// What a hybrid attempt starts from, learnt by an earlier attempt.
#[derive(Clone, Copy, Default)]
pub(super) struct Hybrid<'a> {
    /// The static components found to have too many atoms (made lazy at once).
    pub over_atoms: &'a [(Vec<RelKey>, GroundError)],
    /// Dynamic relations found to have too many atoms (deferred at once).
    pub deferred: &'a [RelKey],
}
