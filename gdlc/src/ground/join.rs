//! The bottom-up join engine of the grounder: a database of ground atoms with insertion
//! sequence numbers and indexes per argument and per argument of a compound argument (the
//! `1` of `(true (cell 1 ?y ?p))`), and the enumeration of the matches of one flat rule over
//! it. A caller that reads only new head atoms ([`JoinRequest::new_heads_only`], the fixpoints)
//! skips heads already known and stops the rest of the join at its first match once the head's
//! variables are bound. A scan whose literal has two or more arguments bound by the steps
//! before it reads the database's composite index of those positions, which [`prepare`] makes
//! before the join ([`Db::ensure_index`]).
//!
//! Atoms are terms of a [`TermStore`] whose functor is the relation name (`(cell 1 1 b)` of
//! relation `cell/3`), so relations are told apart by name and arity. Every atom gets the
//! number of its insertion; a scan reads only a window of those numbers, which is how the
//! semi-naive rounds of [`super::fixpoint`] read "the atoms new in the last round".

use crate::normalize::{NAtom, NLit, NRule, NTerm};
use crate::terms::{TermId, TermStore};

use super::pattern::{Args, Binds, RAtom, RTerm, Resolved, lookup, lookup_atom, unify};

pub use super::db::RelKey;

/// The key of an atom pattern.
pub fn rel_key(a: &NAtom) -> RelKey {
    (a.rel, a.args.len() as u32)
}

pub use super::db::Db;
use super::db::IndexKey;

/// How much work joins may still do: candidate atoms visited, and a deadline. Shared by all
/// the joins of a grounding, so that no input can make grounding run unboundedly.
#[derive(Debug)]
pub struct Budget {
    /// Candidate atoms that may still be visited.
    pub work_left: u64,
    /// The work the budget started with.
    pub initial: u64,
    /// When to give up, if ever (CPU time of the grounding thread).
    pub deadline: Option<super::Deadline>,
    /// Steps until the clock is read again.
    tick: u32,
    /// Why the budget ran out, once it has.
    pub exhausted: Option<Exhausted>,
}

/// What ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exhausted {
    Work,
    Time,
}

impl Budget {
    pub fn new(work: u64, deadline: Option<super::Deadline>) -> Budget {
        Budget {
            work_left: work,
            initial: work,
            deadline,
            tick: 0,
            exhausted: None,
        }
    }

    /// Spends one unit of work; false once the budget is exhausted.
    #[inline]
    pub fn spend(&mut self) -> bool {
        if self.work_left == 0 {
            self.exhausted.get_or_insert(Exhausted::Work);
            return false;
        }
        self.work_left -= 1;
        self.tick += 1;
        if self.tick >= 4096 {
            self.tick = 0;
            if self.deadline.as_mut().is_some_and(super::Deadline::passed) {
                self.work_left = 0;
                self.exhausted = Some(Exhausted::Time);
                return false;
            }
        }
        true
    }
}

/// Structural equality of two patterns under the bindings; `None` if a variable is unbound.
fn equal(x: &NTerm, y: &NTerm, store: &TermStore, b: &Binds) -> Option<bool> {
    let mut bound = true;
    x.for_each_var(&mut |v| bound &= b.vals[v as usize].is_some());
    y.for_each_var(&mut |v| bound &= b.vals[v as usize].is_some());
    bound.then(|| same(x, y, store, b))
}

/// Structural equality of two patterns whose variables are all bound.
fn same(x: &NTerm, y: &NTerm, store: &TermStore, b: &Binds) -> bool {
    fn same_id(p: &NTerm, t: TermId, store: &TermStore, b: &Binds) -> bool {
        match p {
            NTerm::Var(v) => b.vals[*v as usize] == Some(t),
            NTerm::Const(c) => store.functor(t) == *c && store.args(t).is_empty(),
            NTerm::Func(f, args) => {
                store.functor(t) == *f
                    && store.args(t).len() == args.len()
                    && args
                        .iter()
                        .zip(store.args(t))
                        .all(|(a, &u)| same_id(a, u, store, b))
            }
        }
    }
    match (x, y) {
        (NTerm::Var(v), other) | (other, NTerm::Var(v)) => match b.vals[*v as usize] {
            Some(t) => same_id(other, t, store, b),
            None => false,
        },
        (NTerm::Const(c), NTerm::Const(d)) => c == d,
        (NTerm::Func(f, xs), NTerm::Func(g, ys)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(a, c)| same(a, c, store, b))
        }
        _ => false,
    }
}

/// How a negative literal is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NegMode {
    /// The literal's relation is complete in the database: the literal holds when the atom is
    /// absent.
    Exact,
    /// The relation is still open: the literal is assumed to hold (an over-approximation).
    Assume,
}

impl NegMode {
    /// The mode of each negative literal when the relations in `open` are still open:
    /// `Assume` for theirs, `Exact` for the others.
    pub fn open_in(open: &rustc_hash::FxHashSet<RelKey>) -> impl Fn(&NAtom) -> NegMode + '_ {
        move |a| {
            if open.contains(&rel_key(a)) {
                NegMode::Assume
            } else {
                NegMode::Exact
            }
        }
    }
}

/// One step of a join plan.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// Scan the atoms of a positive literal; `delta` restricts it to the window's new atoms;
    /// `ground` when the steps before bind all its variables (one lookup then); `index` the
    /// argument positions (a bit mask) bound before it when they are two or more (the
    /// database's composite index of them is read then, see [`Db::ensure_index`]).
    Scan {
        lit: usize,
        delta: bool,
        ground: bool,
        index: u64,
    },
    /// Test a literal once its variables are bound.
    Filter { lit: usize },
}

/// What a match is asked for.
pub struct JoinRequest<'a> {
    pub rule: &'a NRule,
    /// The positive literal that reads only atoms inserted within `lo..hi`; the others read
    /// `0..hi`.
    pub delta: Option<usize>,
    pub lo: u32,
    pub hi: u32,
    /// The treatment of each negative literal, by literal index (ignored for others).
    pub neg_mode: &'a dyn Fn(&NAtom) -> NegMode,
    /// The caller reads only the head atoms of the matches, and wants only those not yet in
    /// the database: once the steps have bound the head's variables, a head already there is
    /// not looked for further, and the rest of the join stops at its first match.
    pub new_heads_only: bool,
}

impl<'a> JoinRequest<'a> {
    /// Every match of `rule` over the atoms before `hi` (no delta, every head wanted).
    pub fn whole(rule: &'a NRule, hi: u32, neg_mode: &'a dyn Fn(&NAtom) -> NegMode) -> Self {
        JoinRequest {
            rule,
            delta: None,
            lo: 0,
            hi,
            neg_mode,
            new_heads_only: false,
        }
    }
}

/// Why an enumeration of matches stopped early.
#[derive(Debug, PartialEq, Eq)]
pub enum JoinError {
    /// An unsafe rule: a variable of a filter or of the head that no positive literal binds.
    Unsafe,
    /// The callback asked to stop.
    Stopped,
    /// The [`Budget`] ran out.
    Budget,
}

use JoinError::{Stopped, Unsafe};

/// The variables of a literal as a bit set (variables past 63 are ignored: such rules are
/// planned greedily).
fn var_mask(lit: &NLit) -> u64 {
    let mut m = 0u64;
    lit.for_each_var(&mut |v| {
        if v < 64 {
            m |= 1 << v
        }
    });
    m
}

/// The estimated candidates a scan of positive literal `a` visits and the matches it yields
/// per binding of the variables in `bound`, assuming independent argument positions.
fn scan_estimate(a: &NAtom, bound: u64, db: &Db) -> (f64, f64) {
    let rel = rel_key(a);
    let size = db.atoms(rel).len() as f64;
    let mut matches = size;
    let mut cands = size;
    let mut every = true;
    for (pos, t) in a.args.iter().enumerate() {
        let mut all = true;
        t.for_each_var(&mut |v| all &= v < 64 && bound >> v & 1 == 1);
        every &= all;
        if all {
            let d = f64::from(db.distinct_args(rel, pos as u32).max(1));
            matches /= d;
            cands = cands.min(size / d);
        } else if let NTerm::Func(f, args) = t {
            let shaped = db
                .atoms_shaped(rel, pos as u32, *f, args.len() as u32)
                .len() as f64;
            matches *= shaped / size.max(1.0);
            cands = cands.min(shaped);
            // Its bound arguments: the index of each (see `Db::atoms_with_sub`).
            for (k, u) in args.iter().enumerate() {
                let mut all = true;
                u.for_each_var(&mut |v| all &= v < 64 && bound >> v & 1 == 1);
                if all {
                    let d = f64::from(db.distinct_sub_args(rel, pos as u32, *f, k as u32).max(1));
                    matches /= d;
                    cands = cands.min(shaped / d);
                }
            }
        }
    }
    if every {
        (1.0, matches.min(1.0))
    } else {
        (cands.max(1.0), matches)
    }
}

/// The order of the positive literals `scans` that minimises the estimated work (candidates
/// visited), by dynamic programming over subsets (greedily past 12 literals); `bound` holds
/// the variables bound before the first.
fn scan_order(rule: &NRule, scans: &[usize], bound: u64, db: &Db) -> Vec<usize> {
    let atom = |i: usize| match &rule.body[i] {
        NLit::Pos(a) => Some(a),
        _ => None,
    };
    let masks: Vec<u64> = scans.iter().map(|&i| var_mask(&rule.body[i])).collect();
    let n = scans.len();
    if n <= 12 && rule.var_names.len() <= 64 {
        // best[s] = (work, rows, last literal, previous subset)
        let full = (1usize << n) - 1;
        let mut best: Vec<(f64, f64, usize, usize)> = vec![(f64::MAX, 0.0, 0, 0); full + 1];
        best[0] = (0.0, 1.0, usize::MAX, 0);
        for s in 0..full {
            let (work, rows, _, _) = best[s];
            if work == f64::MAX {
                continue;
            }
            let vars = (0..n)
                .filter(|k| s >> k & 1 == 1)
                .fold(bound, |m, k| m | masks[k]);
            for k in (0..n).filter(|k| s >> k & 1 == 0) {
                let Some(a) = atom(scans[k]) else { continue };
                let (cands, matches) = scan_estimate(a, vars, db);
                let w = work + rows * cands;
                let t = s | 1 << k;
                if w < best[t].0 {
                    best[t] = (w, rows * matches, k, s);
                }
            }
        }
        let mut order = Vec::with_capacity(n);
        let mut s = full;
        while s != 0 {
            let (_, _, k, prev) = best[s];
            order.push(scans[k]);
            s = prev;
        }
        order.reverse();
        return order;
    }
    let mut left: Vec<usize> = scans.to_vec();
    let mut vars = bound;
    let mut order = Vec::with_capacity(n);
    while !left.is_empty() {
        let k = (0..left.len())
            .min_by(|&x, &y| {
                let ex = atom(left[x]).map_or(f64::MAX, |a| scan_estimate(a, vars, db).0);
                let ey = atom(left[y]).map_or(f64::MAX, |a| scan_estimate(a, vars, db).0);
                ex.total_cmp(&ey)
            })
            .unwrap_or(0);
        let i = left.swap_remove(k);
        vars |= var_mask(&rule.body[i]);
        order.push(i);
    }
    order
}

fn plan(req: &JoinRequest<'_>, db: &Db, _store: &TermStore) -> Vec<Step> {
    let rule = req.rule;
    let mut bound = vec![false; rule.var_names.len()];
    let mut steps = Vec::new();
    let mut pending: Vec<usize> = Vec::new();
    let mut scans: Vec<usize> = Vec::new();
    for (i, lit) in rule.body.iter().enumerate() {
        match lit {
            NLit::Pos(_) if Some(i) != req.delta => scans.push(i),
            NLit::Pos(_) => {}
            _ => pending.push(i),
        }
    }
    let bind =
        |lit: &NLit, bound: &mut Vec<bool>| lit.for_each_var(&mut |v| bound[v as usize] = true);
    let mut start = 0u64;
    if let Some(d) = req.delta {
        let mut ground = true;
        rule.body[d].for_each_var(&mut |_| ground = false);
        steps.push(Step::Scan {
            lit: d,
            delta: true,
            ground,
            index: 0,
        });
        bind(&rule.body[d], &mut bound);
        start = var_mask(&rule.body[d]);
    }
    let order = scan_order(rule, &scans, start, db);
    let mut next = order.into_iter();
    loop {
        pending.retain(|&i| {
            let mut all = true;
            rule.body[i].for_each_var(&mut |v| all &= bound[v as usize]);
            if all {
                steps.push(Step::Filter { lit: i });
            }
            !all
        });
        let Some(i) = next.next() else { break };
        let mut ground = true;
        rule.body[i].for_each_var(&mut |v| ground &= bound[v as usize]);
        let index = match &rule.body[i] {
            NLit::Pos(a) if !ground => bound_positions(a, &bound),
            _ => 0,
        };
        steps.push(Step::Scan {
            lit: i,
            delta: false,
            ground,
            index,
        });
        bind(&rule.body[i], &mut bound);
    }
    for i in pending {
        // Unbound variables: the executor reports the rule unsafe.
        steps.push(Step::Filter { lit: i });
    }
    steps
}

/// The top-level argument positions of `a` (below 64) whose variables are all bound, as a bit
/// mask, when there are two or more of them (else 0).
fn bound_positions(a: &NAtom, bound: &[bool]) -> u64 {
    let mut mask = 0u64;
    for (pos, t) in a.args.iter().enumerate().take(64) {
        let mut all = true;
        t.for_each_var(&mut |v| all &= bound[v as usize]);
        if all {
            mask |= 1 << pos;
        }
    }
    if mask.count_ones() >= 2 { mask } else { 0 }
}

/// Makes the composite indexes that the join of `req` reads (see [`Db::ensure_index`]); a
/// join whose indexes are missing reads the indexes of single arguments instead.
pub fn prepare(req: &JoinRequest<'_>, db: &mut Db, store: &TermStore) {
    for step in plan(req, db, store) {
        if let Step::Scan { lit, index, .. } = step
            && index != 0
            && let NLit::Pos(a) = &req.rule.body[lit]
        {
            db.ensure_index(store, rel_key(a), index);
        }
    }
}

/// The order in which [`for_each_match`] would visit the body literals of a request (scans
/// and filters), for callers that estimate join sizes.
pub fn plan_order(req: &JoinRequest<'_>, db: &Db, store: &TermStore) -> Vec<usize> {
    plan(req, db, store)
        .into_iter()
        .map(|s| match s {
            Step::Scan { lit, .. } | Step::Filter { lit } => lit,
        })
        .collect()
}

/// Calls `f` with the bindings of every match of the rule's body over `db` (with the rule's
/// head and body patterns still to be read through [`Match`]); `f` returns false to stop.
pub fn for_each_match(
    req: &JoinRequest<'_>,
    db: &Db,
    store: &TermStore,
    budget: &mut Budget,
    f: &mut dyn FnMut(&Match<'_>) -> bool,
) -> Result<(), JoinError> {
    for_each_sampled_match(req, db, store, budget, 1, f)
}

/// A scan samples its candidates (with a stride above 1) only when it has at least this many
/// per stride: short lists are read in full, so a join small everywhere is counted exactly.
const SAMPLE_MIN: usize = 8;

/// [`for_each_match`] over a sample of the matches: a scan with at least [`SAMPLE_MIN`] times
/// `stride` candidates visits every `stride`-th of them (from a fixed offset, so the result is
/// deterministic), and each match carries the weight that makes the sum of the weights of the
/// matches visited an estimate of the number of matches ([`Match::weight`]: the product, over
/// the scans sampled on its way, of their candidates per candidate visited). With `stride` 1,
/// every match, each of weight 1. A join of `d` nested scans that are all long visits about
/// `stride^-d` of its candidates.
pub fn for_each_sampled_match(
    req: &JoinRequest<'_>,
    db: &Db,
    store: &TermStore,
    budget: &mut Budget,
    stride: usize,
    f: &mut dyn FnMut(&Match<'_>) -> bool,
) -> Result<(), JoinError> {
    let steps = plan(req, db, store);
    tracing::trace!(?steps, "join plan");
    let cut = if req.new_heads_only {
        heads_bound_at(req.rule, &steps)
    } else {
        None
    };
    let resolved = Resolved::new(req.rule, store);
    let mut b = Binds::new(req.rule.var_names.len(), req.rule.body.len());
    let mut cx = Cx {
        req,
        db,
        store,
        resolved: &resolved,
        steps: &steps,
        budget,
        f,
        cut,
        found: false,
        stride: stride.max(1),
        weight: 1.0,
    };
    run(&mut cx, 0, &mut b)
}

/// The first step before which every variable of the rule's head is bound, when steps
/// remain from there.
fn heads_bound_at(rule: &NRule, steps: &[Step]) -> Option<usize> {
    let mut head = Vec::new();
    rule.head.for_each_var(&mut |v| head.push(v));
    let mut bound = vec![false; rule.var_names.len()];
    for (k, step) in steps.iter().enumerate() {
        if head.iter().all(|&v| bound[v as usize]) {
            return Some(k);
        }
        if let Step::Scan { lit, .. } = step {
            rule.body[*lit].for_each_var(&mut |v| bound[v as usize] = true);
        }
    }
    None
}

/// What [`run`] reads and calls.
struct Cx<'a, 'b> {
    req: &'a JoinRequest<'a>,
    db: &'a Db,
    store: &'a TermStore,
    /// The rule's patterns with their ground parts looked up.
    resolved: &'a Resolved,
    steps: &'a [Step],
    budget: &'b mut Budget,
    f: &'b mut dyn FnMut(&Match<'_>) -> bool,
    /// With [`JoinRequest::new_heads_only`], the step from which only the existence of a
    /// match matters (see [`heads_bound_at`]).
    cut: Option<usize>,
    /// A match was found past `cut` (the steps from `cut` on stop).
    found: bool,
    /// Every how many candidates a long scan visits (see [`for_each_sampled_match`]).
    stride: usize,
    /// The weight of the current partial match: the product of the sampled scans' ratios.
    weight: f64,
}

/// A match of a rule: read ground atoms of its patterns.
pub struct Match<'a> {
    store: &'a TermStore,
    binds: &'a Binds,
    resolved: &'a Resolved,
    /// Whether each body literal is positive (scanned: its atom is in `binds`).
    positive: &'a [bool],
    weight: f64,
}

impl Match<'_> {
    /// The id of the rule's head atom under this match, when that atom exists.
    pub fn head(&self) -> Option<TermId> {
        lookup_atom(&self.resolved.head, self.store, self.binds)
            .ok()
            .flatten()
    }

    /// Appends the ids of the head's arguments under this match to `ids`; false when one is
    /// in no atom (so is the head) or unbound. `head()` is then the atom of these arguments.
    pub fn head_args(&self, ids: &mut Args) -> bool {
        super::pattern::lookup_args(&self.resolved.head.args, self.store, self.binds, ids)
            .unwrap_or(false)
    }

    /// The id of the atom of body literal `lit` (positive or negative) under this match, when
    /// that atom exists: a positive literal's is the atom it matched.
    pub fn lit(&self, lit: usize) -> Option<TermId> {
        if self.positive.get(lit).copied().unwrap_or(false) {
            return self.binds.atoms.get(lit).copied();
        }
        let a = self.resolved.body.get(lit)?.as_ref()?;
        lookup_atom(a, self.store, self.binds).ok().flatten()
    }

    /// The value of each variable, `None` if unbound.
    pub fn vars(&self) -> &[Option<TermId>] {
        &self.binds.vals
    }

    /// How many matches this one stands for: 1 unless the join is sampled (see
    /// [`for_each_sampled_match`]).
    pub fn weight(&self) -> f64 {
        self.weight
    }
}

fn run(cx: &mut Cx<'_, '_>, k: usize, b: &mut Binds) -> Result<(), JoinError> {
    if cx.cut == Some(k) {
        // The head's variables are bound: a head in the database is not wanted again, and
        // one match of the rest is enough.
        if let Ok(Some(head)) = lookup_atom(&cx.resolved.head, cx.store, b)
            && cx.db.contains(head)
        {
            return Ok(());
        }
        cx.found = false;
        let result = step(cx, k, b);
        cx.found = false;
        return result;
    }
    step(cx, k, b)
}

/// Runs step `k` of the plan and those after it.
fn step(cx: &mut Cx<'_, '_>, k: usize, b: &mut Binds) -> Result<(), JoinError> {
    let (req, db, store) = (cx.req, cx.db, cx.store);
    let Some(&step) = cx.steps.get(k) else {
        // The head's variables must all be bound.
        let mut all = true;
        req.rule
            .head
            .for_each_var(&mut |v| all &= b.vals[v as usize].is_some());
        if !all {
            return Err(Unsafe);
        }
        if !cx.budget.spend() {
            return Err(JoinError::Budget);
        }
        cx.found = cx.cut.is_some();
        return if (cx.f)(&Match {
            store,
            binds: b,
            resolved: cx.resolved,
            positive: &cx.resolved.positive,
            weight: cx.weight,
        }) {
            Ok(())
        } else {
            Err(Stopped)
        };
    };
    match step {
        Step::Filter { lit } => {
            let pass = match &req.rule.body[lit] {
                NLit::Distinct(x, y) => !equal(x, y, store, b).ok_or(Unsafe)?,
                NLit::Equal(x, y) => equal(x, y, store, b).ok_or(Unsafe)?,
                NLit::Neg(a) => match (req.neg_mode)(a) {
                    NegMode::Assume => {
                        let mut all = true;
                        a.for_each_var(&mut |v| all &= b.vals[v as usize].is_some());
                        if !all {
                            return Err(Unsafe);
                        }
                        true
                    }
                    NegMode::Exact => match lookup_atom(resolved_atom(cx.resolved, lit)?, store, b)
                        .map_err(|()| Unsafe)?
                    {
                        Some(id) => !db.contains(id),
                        None => true,
                    },
                },
                NLit::Pos(_) => true,
            };
            if pass { run(cx, k + 1, b) } else { Ok(()) }
        }
        Step::Scan {
            lit,
            delta,
            ground,
            index,
        } => {
            let NLit::Pos(a) = &req.rule.body[lit] else {
                return Ok(());
            };
            let rel = rel_key(a);
            let a = resolved_atom(cx.resolved, lit)?;
            let lo = if delta { req.lo } else { 0 };
            // Every argument bound: one lookup.
            if ground && let Ok(found) = lookup_atom(a, store, b) {
                if !cx.budget.spend() {
                    return Err(JoinError::Budget);
                }
                return match found.and_then(|id| Some((id, db.seq(id)?))) {
                    Some((id, s)) if s >= lo && s < req.hi => {
                        b.atoms[lit] = id;
                        run(cx, k + 1, b)
                    }
                    _ => Ok(()),
                };
            }
            // The shortest candidate list among the bound argument positions.
            let mut cands: &[TermId] = db.atoms(rel);
            let mut key = IndexKey::new();
            for (pos, t) in a.args.iter().enumerate() {
                match lookup(t, store, b) {
                    Ok(Some(id)) => {
                        if pos < 64 && index >> pos & 1 == 1 {
                            key.push(id);
                        }
                        let l = db.atoms_with(rel, pos as u32, id);
                        if l.len() < cands.len() {
                            cands = l;
                        }
                    }
                    Ok(None) => return Ok(()),
                    Err(()) => {
                        if let RTerm::Func(f, args) = t {
                            let l = db.atoms_shaped(rel, pos as u32, *f, args.len() as u32);
                            if l.len() < cands.len() {
                                cands = l;
                            }
                            // A bound argument of the compound: its index.
                            for (k, u) in args.iter().enumerate() {
                                if let Ok(found) = lookup(u, store, b) {
                                    let Some(id) = found else { return Ok(()) };
                                    let l = db.atoms_with_sub(rel, pos as u32, *f, k as u32, id);
                                    if l.len() < cands.len() {
                                        cands = l;
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if index != 0
                && key.len() == index.count_ones() as usize
                && let Some(l) = db.atoms_indexed(rel, index, &key)
                && l.len() < cands.len()
            {
                cands = l;
            }
            let start = if lo == 0 {
                0
            } else {
                cands.partition_point(|&x| db.seq[x as usize] < lo)
            };
            if cx.stride > 1 && cands.len() - start >= SAMPLE_MIN * cx.stride {
                return sampled_scan(cx, k, b, lit, a, &cands[start..]);
            }
            for &atom in &cands[start..] {
                if db.seq[atom as usize] >= req.hi {
                    break;
                }
                visit(cx, k, b, lit, a, atom)?;
                if cx.found {
                    break;
                }
            }
            Ok(())
        }
    }
}

/// A scan of step `k` over a sample of `cands` (the candidates from the window's start): every
/// `stride`-th of those within the window, each match weighted by the candidates per candidate
/// visited (see [`for_each_sampled_match`]).
fn sampled_scan(
    cx: &mut Cx<'_, '_>,
    k: usize,
    b: &mut Binds,
    lit: usize,
    a: &RAtom,
    cands: &[TermId],
) -> Result<(), JoinError> {
    let (db, hi) = (cx.db, cx.req.hi);
    let n = cands.partition_point(|&x| db.seq[x as usize] < hi);
    let offset = (cx.stride / 2).min(n.saturating_sub(1));
    let visited = (n - offset).div_ceil(cx.stride);
    let ratio = n as f64 / visited.max(1) as f64;
    cx.weight *= ratio;
    for &atom in cands[offset..n].iter().step_by(cx.stride) {
        visit(cx, k, b, lit, a, atom)?;
        if cx.found {
            break;
        }
    }
    cx.weight /= ratio;
    Ok(())
}

/// One candidate `atom` for literal `lit` (pattern `a`) at step `k`: one unit of the budget,
/// and the steps after it if it unifies (its bindings undone after).
#[inline]
fn visit(
    cx: &mut Cx<'_, '_>,
    k: usize,
    b: &mut Binds,
    lit: usize,
    a: &RAtom,
    atom: TermId,
) -> Result<(), JoinError> {
    if !cx.budget.spend() {
        return Err(JoinError::Budget);
    }
    let store = cx.store;
    let mark = b.trail.len();
    if a.args
        .iter()
        .zip(store.args(atom))
        .all(|(p, &t)| unify(p, t, store, b))
    {
        b.atoms[lit] = atom;
        run(cx, k + 1, b)?;
    }
    b.undo_to(mark);
    Ok(())
}

/// The resolved atom of body literal `lit` (positive or negative).
fn resolved_atom(r: &Resolved, lit: usize) -> Result<&RAtom, JoinError> {
    r.body.get(lit).and_then(Option::as_ref).ok_or(Unsafe)
}

/// The value that variable `var` of pattern `a` takes when `a` matches the ground atom
/// `atom` (`None` if it does not match).
pub fn value_of(a: &NAtom, atom: TermId, var: u32, store: &TermStore) -> Option<TermId> {
    let vals = match_atom(a, atom, store)?;
    vals.get(var as usize).copied().flatten()
}

/// The values of the variables of pattern `a` (indexed by variable number) when it matches
/// the ground atom `atom`, or `None`.
pub fn match_atom(a: &NAtom, atom: TermId, store: &TermStore) -> Option<Vec<Option<TermId>>> {
    let mut width = 0;
    a.for_each_var(&mut |v| width = width.max(v as usize + 1));
    let mut b = Binds::new(width, 0);
    let args = store.args(atom);
    if args.len() != a.args.len() {
        return None;
    }
    let resolved = RAtom::new(a, store);
    resolved
        .args
        .iter()
        .zip(args)
        .all(|(p, &t)| unify(p, t, store, &mut b))
        .then_some(b.vals)
}

/// The id of a ground pattern (`None` if it has variables or is in no atom: not in the
/// store).
pub fn ground_term(p: &NTerm, store: &TermStore) -> Option<TermId> {
    match p {
        NTerm::Var(_) => None,
        NTerm::Const(c) => store.get(*c, &[]),
        NTerm::Func(f, args) => {
            let ids: Option<Vec<TermId>> = args.iter().map(|a| ground_term(a, store)).collect();
            store.get(*f, &ids?)
        }
    }
}

/// Interns the ground term of pattern `p` under `vars`.
pub fn intern_term(p: &NTerm, vars: &[Option<TermId>], store: &mut TermStore) -> Option<TermId> {
    Some(match p {
        NTerm::Var(v) => (*vars.get(*v as usize)?)?,
        NTerm::Const(c) => store.intern(*c, &[]),
        NTerm::Func(f, args) => {
            let mut ids = Args::new();
            for a in args {
                ids.push(intern_term(a, vars, store)?);
            }
            store.intern(*f, &ids)
        }
    })
}

/// The ground term of pattern `p` under `vars`, if it is in the store.
fn lookup_term(p: &NTerm, vars: &[Option<TermId>], store: &TermStore) -> Option<TermId> {
    match p {
        NTerm::Var(v) => *vars.get(*v as usize)?,
        NTerm::Const(c) => store.get(*c, &[]),
        NTerm::Func(f, args) => {
            let mut ids = Args::new();
            for a in args {
                ids.push(lookup_term(a, vars, store)?);
            }
            store.get(*f, &ids)
        }
    }
}

/// The ground atom of pattern `a` under `vars`, if it is in the store.
pub fn lookup_atom_of(a: &NAtom, vars: &[Option<TermId>], store: &TermStore) -> Option<TermId> {
    let mut ids = Args::new();
    for t in &a.args {
        ids.push(lookup_term(t, vars, store)?);
    }
    store.get(a.rel, &ids)
}

/// Interns the ground atom of pattern `a` under `vars`.
pub fn intern_atom(a: &NAtom, vars: &[Option<TermId>], store: &mut TermStore) -> Option<TermId> {
    let mut ids = Args::new();
    for t in &a.args {
        ids.push(intern_term(t, vars, store)?);
    }
    Some(store.intern(a.rel, &ids))
}
