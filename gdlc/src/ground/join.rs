//! The bottom-up join engine of the grounder: a database of ground atoms with insertion
//! sequence numbers and per-argument indexes, and the enumeration of the matches of one flat
//! rule over it.
//!
//! Atoms are terms of a [`TermStore`] whose functor is the relation name (`(cell 1 1 b)` of
//! relation `cell/3`), so relations are told apart by name and arity. Every atom gets the
//! number of its insertion; a scan reads only a window of those numbers, which is how the
//! semi-naive rounds of [`super::fixpoint`] read "the atoms new in the last round".

use std::collections::HashMap;

use crate::ast::Sym;
use crate::interp::{TermId, TermStore};
use crate::normalize::{NAtom, NLit, NRule, NTerm};

/// A relation: name and arity.
pub type RelKey = (Sym, u32);

/// The key of an atom pattern.
pub fn rel_key(a: &NAtom) -> RelKey {
    (a.rel, a.args.len() as u32)
}

const ABSENT: u32 = u32::MAX;

/// A set of ground atoms with insertion order and indexes.
#[derive(Debug, Default)]
pub struct Db {
    /// The insertion number of each term that is an atom of the database, by term id.
    seq: Vec<u32>,
    count: u32,
    /// The atoms of each relation, in insertion order.
    by_rel: HashMap<RelKey, Vec<TermId>>,
    /// The atoms of each relation with a given argument at a given position, in insertion
    /// order.
    by_arg: HashMap<(RelKey, u32, TermId), Vec<TermId>>,
}

impl Db {
    /// Adds `atom` (of relation `rel`); false if it was there.
    pub fn insert(&mut self, store: &TermStore, rel: RelKey, atom: TermId) -> bool {
        let i = atom as usize;
        if i >= self.seq.len() {
            self.seq.resize((i + 1).max(self.seq.len() * 2), ABSENT);
        }
        if self.seq[i] != ABSENT {
            return false;
        }
        self.seq[i] = self.count;
        self.count += 1;
        self.by_rel.entry(rel).or_default().push(atom);
        for (pos, &arg) in store.args(atom).iter().enumerate() {
            self.by_arg
                .entry((rel, pos as u32, arg))
                .or_default()
                .push(atom);
        }
        true
    }

    /// Whether the database holds `atom`.
    pub fn contains(&self, atom: TermId) -> bool {
        self.seq.get(atom as usize).is_some_and(|&s| s != ABSENT)
    }

    /// The number of atoms inserted so far: the end of the current window.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The atoms of `rel`, in insertion order.
    pub fn atoms(&self, rel: RelKey) -> &[TermId] {
        self.by_rel.get(&rel).map_or(&[], Vec::as_slice)
    }

    /// Every relation with at least one atom.
    pub fn relations(&self) -> impl Iterator<Item = RelKey> + '_ {
        self.by_rel.keys().copied()
    }

    /// Whether `rel` has an atom inserted within `lo..hi`.
    pub fn has_in_window(&self, rel: RelKey, lo: u32, hi: u32) -> bool {
        let atoms = self.atoms(rel);
        let start = atoms.partition_point(|&a| self.seq[a as usize] < lo);
        atoms.get(start).is_some_and(|&a| self.seq[a as usize] < hi)
    }
}

/// Variable bindings of one rule, with a trail to undo them.
struct Binds {
    vals: Vec<Option<TermId>>,
    trail: Vec<u32>,
}

impl Binds {
    fn undo_to(&mut self, mark: usize) {
        while self.trail.len() > mark {
            let v = self.trail.pop().unwrap_or(0);
            self.vals[v as usize] = None;
        }
    }
}

/// Matches pattern `p` against ground term `t`, binding variables (recorded on the trail).
fn unify(p: &NTerm, t: TermId, store: &TermStore, b: &mut Binds) -> bool {
    match p {
        NTerm::Var(v) => match b.vals[*v as usize] {
            Some(x) => x == t,
            None => {
                b.vals[*v as usize] = Some(t);
                b.trail.push(*v);
                true
            }
        },
        NTerm::Const(c) => store.functor(t) == *c && store.args(t).is_empty(),
        NTerm::Func(f, args) => {
            store.functor(t) == *f
                && store.args(t).len() == args.len()
                && args
                    .iter()
                    .zip(store.args(t))
                    .all(|(p, &x)| unify(p, x, store, b))
        }
    }
}

/// The id of pattern `p` under the bindings: `Err(())` when a variable is unbound,
/// `Ok(None)` when the term is ground but exists nowhere in the store (so in no atom).
fn lookup(p: &NTerm, store: &TermStore, b: &Binds) -> Result<Option<TermId>, ()> {
    match p {
        NTerm::Var(v) => b.vals[*v as usize].map(Some).ok_or(()),
        NTerm::Const(c) => Ok(store.get(*c, &[])),
        NTerm::Func(f, args) => {
            let mut ids = Vec::with_capacity(args.len());
            let mut missing = false;
            for a in args {
                match lookup(a, store, b)? {
                    Some(id) => ids.push(id),
                    None => missing = true,
                }
            }
            Ok(if missing { None } else { store.get(*f, &ids) })
        }
    }
}

/// The id of an atom pattern under the bindings (see [`lookup`]).
fn lookup_atom(a: &NAtom, store: &TermStore, b: &Binds) -> Result<Option<TermId>, ()> {
    let mut ids = Vec::with_capacity(a.args.len());
    let mut missing = false;
    for t in &a.args {
        match lookup(t, store, b)? {
            Some(id) => ids.push(id),
            None => missing = true,
        }
    }
    Ok(if missing {
        None
    } else {
        store.get(a.rel, &ids)
    })
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

/// One step of a join plan.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// Scan the atoms of a positive literal; `delta` restricts it to the window's new atoms.
    Scan { lit: usize, delta: bool },
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
}

/// Why an enumeration of matches stopped early.
#[derive(Debug, PartialEq, Eq)]
pub enum JoinError {
    /// An unsafe rule: a variable of a filter or of the head that no positive literal binds.
    Unsafe,
    /// The callback asked to stop.
    Stopped,
}

use JoinError::{Stopped, Unsafe};

fn plan(req: &JoinRequest<'_>, db: &Db, store: &TermStore) -> Vec<Step> {
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
    if let Some(d) = req.delta {
        steps.push(Step::Scan {
            lit: d,
            delta: true,
        });
        bind(&rule.body[d], &mut bound);
    }
    loop {
        pending.retain(|&i| {
            let mut all = true;
            rule.body[i].for_each_var(&mut |v| all &= bound[v as usize]);
            if all {
                steps.push(Step::Filter { lit: i });
            }
            !all
        });
        if scans.is_empty() {
            break;
        }
        // Prefer a literal with a bound argument, then the smallest relation.
        let best = scans
            .iter()
            .enumerate()
            .min_by_key(|&(_, &i)| {
                let NLit::Pos(a) = &rule.body[i] else {
                    return (1, usize::MAX);
                };
                let has_bound = a.args.iter().any(|t| {
                    let mut all = true;
                    t.for_each_var(&mut |v| all &= bound[v as usize]);
                    all
                });
                let size = db.atoms(rel_key(a)).len();
                (usize::from(!has_bound && !a.args.is_empty()), size)
            })
            .map_or(0, |(k, _)| k);
        let i = scans.swap_remove(best);
        steps.push(Step::Scan {
            lit: i,
            delta: false,
        });
        bind(&rule.body[i], &mut bound);
    }
    for i in pending {
        // Unbound variables: the executor reports the rule unsafe.
        steps.push(Step::Filter { lit: i });
    }
    let _ = store;
    steps
}

/// Calls `f` with the bindings of every match of the rule's body over `db` (with the rule's
/// head and body patterns still to be read through [`Match`]); `f` returns false to stop.
pub fn for_each_match(
    req: &JoinRequest<'_>,
    db: &Db,
    store: &TermStore,
    f: &mut dyn FnMut(&Match<'_>) -> bool,
) -> Result<(), JoinError> {
    let steps = plan(req, db, store);
    let mut b = Binds {
        vals: vec![None; req.rule.var_names.len()],
        trail: Vec::new(),
    };
    run(req, db, store, &steps, 0, &mut b, f)
}

/// A match of a rule: read ground atoms of its patterns.
pub struct Match<'a> {
    store: &'a TermStore,
    binds: &'a Binds,
}

impl Match<'_> {
    /// The id of an atom pattern of the rule under this match, when that atom exists.
    pub fn atom(&self, a: &NAtom) -> Option<TermId> {
        lookup_atom(a, self.store, self.binds).ok().flatten()
    }

    /// The value of each variable, `None` if unbound.
    pub fn vars(&self) -> &[Option<TermId>] {
        &self.binds.vals
    }
}

fn run(
    req: &JoinRequest<'_>,
    db: &Db,
    store: &TermStore,
    steps: &[Step],
    k: usize,
    b: &mut Binds,
    f: &mut dyn FnMut(&Match<'_>) -> bool,
) -> Result<(), JoinError> {
    let Some(&step) = steps.get(k) else {
        // The head's variables must all be bound.
        let mut all = true;
        req.rule
            .head
            .for_each_var(&mut |v| all &= b.vals[v as usize].is_some());
        if !all {
            return Err(Unsafe);
        }
        return if f(&Match { store, binds: b }) {
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
                        lookup_atom(a, store, b).map_err(|()| Unsafe)?;
                        true
                    }
                    NegMode::Exact => match lookup_atom(a, store, b).map_err(|()| Unsafe)? {
                        Some(id) => !db.contains(id),
                        None => true,
                    },
                },
                NLit::Pos(_) => true,
            };
            if pass {
                run(req, db, store, steps, k + 1, b, f)
            } else {
                Ok(())
            }
        }
        Step::Scan { lit, delta } => {
            let NLit::Pos(a) = &req.rule.body[lit] else {
                return Ok(());
            };
            let rel = rel_key(a);
            let lo = if delta { req.lo } else { 0 };
            // The shortest candidate list among the bound argument positions.
            let mut cands: &[TermId] = db.atoms(rel);
            for (pos, t) in a.args.iter().enumerate() {
                match lookup(t, store, b) {
                    Ok(Some(id)) => {
                        let l = db
                            .by_arg
                            .get(&(rel, pos as u32, id))
                            .map_or(&[][..], Vec::as_slice);
                        if l.len() < cands.len() {
                            cands = l;
                        }
                    }
                    Ok(None) => return Ok(()),
                    Err(()) => {}
                }
            }
            let start = if lo == 0 {
                0
            } else {
                cands.partition_point(|&x| db.seq[x as usize] < lo)
            };
            for &atom in &cands[start..] {
                if db.seq[atom as usize] >= req.hi {
                    break;
                }
                let mark = b.trail.len();
                if a.args
                    .iter()
                    .zip(store.args(atom))
                    .all(|(p, &t)| unify(p, t, store, b))
                {
                    run(req, db, store, steps, k + 1, b, f)?;
                }
                b.undo_to(mark);
            }
            Ok(())
        }
    }
}

/// Interns the ground term of pattern `p` under `vars`.
pub fn intern_term(p: &NTerm, vars: &[Option<TermId>], store: &mut TermStore) -> Option<TermId> {
    Some(match p {
        NTerm::Var(v) => (*vars.get(*v as usize)?)?,
        NTerm::Const(c) => store.intern(*c, &[]),
        NTerm::Func(f, args) => {
            let ids: Option<Vec<TermId>> =
                args.iter().map(|a| intern_term(a, vars, store)).collect();
            store.intern(*f, &ids?)
        }
    })
}

/// Interns the ground atom of pattern `a` under `vars`.
pub fn intern_atom(a: &NAtom, vars: &[Option<TermId>], store: &mut TermStore) -> Option<TermId> {
    let ids: Option<Vec<TermId>> = a.args.iter().map(|t| intern_term(t, vars, store)).collect();
    Some(store.intern(a.rel, &ids?))
}
