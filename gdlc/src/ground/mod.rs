//! Grounding: the flat rules of a description instantiated over the ground atoms that can
//! matter, with everything that does not depend on `true` or `does` evaluated away.
//!
//! 1. *Needed rules*: only rules that `role`, `init`, `legal`, `next`, `goal` or `terminal`
//!    depend on are kept (`base`, `input` and `sees` are not simulated).
//! 2. *Static relations* (those that depend on neither `true` nor `does`, such as `succ` or
//!    `+` tables) are computed exactly, stratum by stratum, with negation.
//! 3. *Relaxed reachability*: an over-approximation of every ground atom that can hold in a
//!    reachable state, by a fixpoint that ignores negation on dynamic relations and feeds every
//!    `(next X)` back as `(true X)` and every `(legal R M)` as `(does R M)`, starting from the
//!    `init` facts. The fixpoint is finite: without negation the rules are a positive
//!    program over the Herbrand base that the GDL recursion restriction keeps finite.
//! 4. *Instantiation*: every dynamic rule is instantiated over those atoms. Static literals
//!    disappear (false ones drop the instance), negative literals on atoms that can never hold
//!    disappear, so a [`GroundRule`] mentions only dynamic atoms.
//!
//! Both fixpoints are semi-naive (see [`join`]). Limits on the number of atoms and rule
//! instances turn a grounding too large to compile into a diagnostic rather than exhausting
//! memory.

pub mod join;

use std::collections::{HashMap, HashSet};

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;

use crate::ast::{Span, Symbols, kw};
use crate::diag::Diagnostic;
use crate::interp::{TermId, TermStore};
use crate::normalize::{NLit, NProgram, NRule};

use join::{Db, JoinRequest, NegMode, RelKey, rel_key};

/// Limits of [`ground`].
#[derive(Clone, Debug)]
pub struct GroundOptions {
    /// The most ground atoms (static and reachable) before grounding gives up.
    pub max_atoms: usize,
    /// The most ground rule instances before grounding gives up.
    pub max_rule_instances: usize,
    /// The most rule body matches (work) before grounding gives up.
    pub max_matches: u64,
}

impl Default for GroundOptions {
    fn default() -> Self {
        GroundOptions {
            max_atoms: 1_000_000,
            max_rule_instances: 2_000_000,
            max_matches: 20_000_000,
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
    /// (`legal`, `next`, `goal`, `terminal`) that turned out static.
    pub rules: Vec<GroundRule>,
    pub stats: GroundStats,
}

impl GroundProgram {
    /// The KIF text of a term.
    pub fn text(&self, id: TermId) -> String {
        self.store.text(&self.symbols, id)
    }
}

/// The relations that the game is read from.
const OUTPUTS: [RelKey; 6] = [
    (kw::ROLE, 1),
    (kw::INIT, 1),
    (kw::LEGAL, 2),
    (kw::NEXT, 1),
    (kw::GOAL, 2),
    (kw::TERMINAL, 0),
];

/// Grounds `nprog` (normalised from a checked description).
pub fn ground(nprog: &NProgram, options: &GroundOptions) -> Result<GroundProgram, Vec<Diagnostic>> {
    let rules = needed_rules(&nprog.rules);
    let dynamic = dynamic_relations(&rules);
    let mut store = TermStore::default();
    let mut db = Db::default();
    let limits = Limits {
        options,
        span: rules.first().map_or(Span::default(), |r| r.span),
    };

    // Static relations, exactly, in dependency order.
    let static_rules: Vec<&NRule> = rules
        .iter()
        .copied()
        .filter(|r| !dynamic.contains(&rel_key(&r.head)))
        .collect();
    for component in static_components(&static_rules)? {
        let growing: HashSet<RelKey> = component.iter().map(|r| rel_key(&r.head)).collect();
        let neg = |a: &crate::normalize::NAtom| {
            if growing.contains(&rel_key(a)) {
                NegMode::Assume
            } else {
                NegMode::Exact
            }
        };
        fixpoint(
            &component,
            &growing,
            &mut db,
            &mut store,
            &neg,
            Feed::No,
            &limits,
        )?;
    }
    let static_atoms = db.count() as usize;

    // Relaxed reachability of the dynamic relations.
    let init: Vec<TermId> = db
        .atoms((kw::INIT, 1))
        .iter()
        .map(|&a| store.args(a)[0])
        .collect();
    let roles: Vec<TermId> = db
        .atoms((kw::ROLE, 1))
        .iter()
        .map(|&a| store.args(a)[0])
        .collect();
    let mut seeds: Vec<TermId> = init.clone();
    seeds.extend(db.atoms((kw::NEXT, 1)).iter().map(|&a| store.args(a)[0]));
    for x in seeds {
        let t = store.intern(kw::TRUE, &[x]);
        db.insert(&store, (kw::TRUE, 1), t);
    }
    for a in db.atoms((kw::LEGAL, 2)).to_vec() {
        let args = store.args(a).to_vec();
        let t = store.intern(kw::DOES, &args);
        db.insert(&store, (kw::DOES, 2), t);
    }
    let dyn_rules: Vec<&NRule> = rules
        .iter()
        .copied()
        .filter(|r| dynamic.contains(&rel_key(&r.head)))
        .collect();
    let neg = |a: &crate::normalize::NAtom| {
        if dynamic.contains(&rel_key(a)) {
            NegMode::Assume
        } else {
            NegMode::Exact
        }
    };
    let rounds = fixpoint(
        &dyn_rules,
        &dynamic,
        &mut db,
        &mut store,
        &neg,
        Feed::Yes,
        &limits,
    )?;
    let dynamic_atoms = db.count() as usize - static_atoms;

    // Instantiation.
    let mut out: Vec<GroundRule> = Vec::new();
    let hi = db.count();
    for rule in &dyn_rules {
        let req = JoinRequest {
            rule,
            delta: None,
            lo: 0,
            hi,
            neg_mode: &neg,
        };
        let mut overflow = false;
        let mut work: u64 = 0;
        let result = join::for_each_match(&req, &db, &store, &mut |m| {
            work += 1;
            if work > options.max_matches {
                overflow = true;
                return false;
            }
            let Some(head) = m.atom(&rule.head) else {
                return true;
            };
            let mut g = GroundRule {
                head,
                pos: Vec::new(),
                neg: Vec::new(),
                origin: rule.origin,
            };
            for lit in &rule.body {
                match lit {
                    NLit::Pos(a) if dynamic.contains(&rel_key(a)) => {
                        if let Some(id) = m.atom(a) {
                            g.pos.push(id);
                        }
                    }
                    NLit::Neg(a) if dynamic.contains(&rel_key(a)) => {
                        if let Some(id) = m.atom(a).filter(|&id| db.contains(id)) {
                            g.neg.push(id);
                        }
                    }
                    _ => {}
                }
            }
            g.pos.sort_unstable();
            g.pos.dedup();
            g.neg.sort_unstable();
            g.neg.dedup();
            if g.pos.iter().any(|p| g.neg.binary_search(p).is_ok()) {
                return true;
            }
            if out.len() >= options.max_rule_instances {
                overflow = true;
                return false;
            }
            out.push(g);
            true
        });
        if result == Err(join::JoinError::Unsafe) {
            return Err(vec![unsafe_rule(rule)]);
        }
        if overflow {
            return Err(vec![Diagnostic::error(
                "grounding-too-large",
                rule.span,
                format!(
                    "grounding makes more than {} rule instances (or {} matches)",
                    options.max_rule_instances, options.max_matches
                ),
            )]);
        }
    }
    out.sort_unstable_by(|a, b| (a.head, &a.pos, &a.neg).cmp(&(b.head, &b.pos, &b.neg)));
    out.dedup_by(|a, b| a.head == b.head && a.pos == b.pos && a.neg == b.neg);
    // Game relations that are static become facts.
    for rel in [
        (kw::LEGAL, 2),
        (kw::NEXT, 1),
        (kw::GOAL, 2),
        (kw::TERMINAL, 0),
    ] {
        if !dynamic.contains(&rel) {
            for &a in db.atoms(rel) {
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
    };
    Ok(GroundProgram {
        symbols: nprog.symbols.clone(),
        store,
        roles,
        init,
        rules: out,
        stats,
    })
}

fn unsafe_rule(rule: &NRule) -> Diagnostic {
    Diagnostic::error(
        "unsafe-variable",
        rule.span,
        "a variable of this rule is never bound by a positive literal",
    )
}

/// The rules that some relation of [`OUTPUTS`] depends on.
fn needed_rules(rules: &[NRule]) -> Vec<&NRule> {
    let mut by_head: HashMap<RelKey, Vec<&NRule>> = HashMap::new();
    for r in rules {
        by_head.entry(rel_key(&r.head)).or_default().push(r);
    }
    let mut needed: HashSet<RelKey> = OUTPUTS.into_iter().collect();
    let mut stack: Vec<RelKey> = OUTPUTS.to_vec();
    while let Some(rel) = stack.pop() {
        for r in by_head.get(&rel).into_iter().flatten() {
            for lit in &r.body {
                if let NLit::Pos(a) | NLit::Neg(a) = lit
                    && needed.insert(rel_key(a))
                {
                    stack.push(rel_key(a));
                }
            }
        }
    }
    rules
        .iter()
        .filter(|r| needed.contains(&rel_key(&r.head)))
        .collect()
}

/// `true`, `does` and every relation that depends on them.
fn dynamic_relations(rules: &[&NRule]) -> HashSet<RelKey> {
    let mut dynamic: HashSet<RelKey> = [(kw::TRUE, 1), (kw::DOES, 2)].into_iter().collect();
    loop {
        let before = dynamic.len();
        for r in rules {
            let reads = r.body.iter().any(|l| match l {
                NLit::Pos(a) | NLit::Neg(a) => dynamic.contains(&rel_key(a)),
                _ => false,
            });
            if reads {
                dynamic.insert(rel_key(&r.head));
            }
        }
        if dynamic.len() == before {
            return dynamic;
        }
    }
}

/// The static rules grouped by strongly connected component of their relations, in
/// dependency order; fails on negation inside a component.
fn static_components<'a>(rules: &[&'a NRule]) -> Result<Vec<Vec<&'a NRule>>, Vec<Diagnostic>> {
    let mut graph: DiGraph<RelKey, ()> = DiGraph::new();
    let mut node = HashMap::new();
    let mut get =
        |g: &mut DiGraph<RelKey, ()>, k: RelKey| *node.entry(k).or_insert_with(|| g.add_node(k));
    for r in rules {
        let h = get(&mut graph, rel_key(&r.head));
        for lit in &r.body {
            if let NLit::Pos(a) | NLit::Neg(a) = lit {
                let b = get(&mut graph, rel_key(a));
                graph.update_edge(b, h, ());
            }
        }
    }
    let mut sccs = tarjan_scc(&graph);
    sccs.reverse();
    let mut comp_of: HashMap<RelKey, usize> = HashMap::new();
    for (c, scc) in sccs.iter().enumerate() {
        for &n in scc {
            comp_of.insert(graph[n], c);
        }
    }
    let mut comps: Vec<Vec<&NRule>> = vec![Vec::new(); sccs.len()];
    let mut errors = Vec::new();
    for r in rules {
        let c = comp_of[&rel_key(&r.head)];
        for lit in &r.body {
            if let NLit::Neg(a) = lit
                && comp_of.get(&rel_key(a)) == Some(&c)
            {
                errors.push(Diagnostic::error(
                    "negative-cycle",
                    r.span,
                    "this rule depends on its own negation: the description is not stratified",
                ));
            }
        }
        comps[c].push(r);
    }
    if errors.is_empty() {
        Ok(comps)
    } else {
        Err(errors)
    }
}

/// Whether derived `next` and `legal` atoms are fed back as `true` and `does` atoms.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Feed {
    No,
    Yes,
}

struct Limits<'a> {
    options: &'a GroundOptions,
    span: Span,
}

/// Runs `rules` to a fixpoint over `db` semi-naively; `growing` are the relations that may
/// gain atoms meanwhile. Returns the number of rounds.
fn fixpoint(
    rules: &[&NRule],
    growing: &HashSet<RelKey>,
    db: &mut Db,
    store: &mut TermStore,
    neg_mode: &dyn Fn(&crate::normalize::NAtom) -> NegMode,
    feed: Feed,
    limits: &Limits<'_>,
) -> Result<usize, Vec<Diagnostic>> {
    let mut lo = 0;
    let mut hi = db.count();
    let mut rounds = 0;
    let mut matches: u64 = 0;
    let too_much = |rule: &NRule| {
        vec![Diagnostic::error(
            "grounding-too-large",
            rule.span,
            format!(
                "grounding needs more than {} rule matches",
                limits.options.max_matches
            ),
        )]
    };
    loop {
        for rule in rules {
            // The head's variables: matches are kept projected on them, without duplicates.
            let mut head_vars: Vec<u32> = Vec::new();
            rule.head.for_each_var(&mut |v| {
                if !head_vars.contains(&v) {
                    head_vars.push(v)
                }
            });
            let mut heads: HashSet<Vec<TermId>> = HashSet::new();
            let deltas: Vec<Option<usize>> = if rounds == 0 {
                vec![None]
            } else {
                rule.body
                    .iter()
                    .enumerate()
                    .filter_map(|(i, l)| match l {
                        NLit::Pos(a)
                            if growing.contains(&rel_key(a))
                                && db.has_in_window(rel_key(a), lo, hi) =>
                        {
                            Some(Some(i))
                        }
                        _ => None,
                    })
                    .collect()
            };
            for delta in deltas {
                let req = JoinRequest {
                    rule,
                    delta,
                    lo,
                    hi,
                    neg_mode,
                };
                let budget = limits.options.max_matches;
                let result = join::for_each_match(&req, db, store, &mut |m| {
                    matches += 1;
                    let vals = m.vars();
                    heads.insert(
                        head_vars
                            .iter()
                            .map(|&v| vals[v as usize].unwrap_or(0))
                            .collect(),
                    );
                    matches <= budget
                });
                match result {
                    Err(join::JoinError::Unsafe) => return Err(vec![unsafe_rule(rule)]),
                    Err(join::JoinError::Stopped) => return Err(too_much(rule)),
                    Ok(()) => {}
                }
            }
            let width = rule.var_names.len();
            let mut binding: Vec<Option<TermId>> = vec![None; width];
            for h in heads {
                for (&v, &t) in head_vars.iter().zip(&h) {
                    binding[v as usize] = Some(t);
                }
                let binding = &binding[..];
                let Some(head) = join::intern_atom(&rule.head, binding, store) else {
                    continue;
                };
                db.insert(store, rel_key(&rule.head), head);
                if feed == Feed::Yes {
                    feed_back(db, store, &rule.head, head);
                }
            }
            if db.count() as usize > limits.options.max_atoms {
                return Err(vec![Diagnostic::error(
                    "grounding-too-large",
                    limits.span,
                    format!(
                        "grounding finds more than {} ground atoms",
                        limits.options.max_atoms
                    ),
                )]);
            }
        }
        rounds += 1;
        lo = hi;
        hi = db.count();
        if lo == hi {
            return Ok(rounds);
        }
    }
}

fn feed_back(db: &mut Db, store: &mut TermStore, head: &crate::normalize::NAtom, atom: TermId) {
    let fed = match (head.rel, head.args.len()) {
        (kw::NEXT, 1) => Some(((kw::TRUE, 1), store.args(atom).to_vec())),
        (kw::LEGAL, 2) => Some(((kw::DOES, 2), store.args(atom).to_vec())),
        _ => None,
    };
    if let Some((rel, args)) = fed {
        let t = store.intern(rel.0, &args);
        db.insert(store, rel, t);
    }
}
