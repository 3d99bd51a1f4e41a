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
//! semi-naive rounds of `super::fixpoint` read "the atoms new in the last round".

use crate::normalize::{NAtom, NLit, NTerm};
use crate::terms::{TermId, TermStore};

use super::pattern::{Args, Binds, RAtom, RTerm, Resolved, lookup, lookup_atom, unify};
use super::plan::{Step, heads_bound_at, plan};
pub use super::plan::{plan_order, prepare};

pub use super::db::RelKey;
pub use super::request::{JoinRequest, NegMode, rel_key};

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

/// [`for_each_match`] over a sample of the matches: a scan with at least `SAMPLE_MIN` times
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
