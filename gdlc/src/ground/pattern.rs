//! The patterns of one rule resolved against the term store for one join: every ground part
//! (a constant, a compound without variables) is looked up once, before the join, so that
//! matching it against a candidate atom is a comparison of ids and building an atom under the
//! bindings hashes only the parts that have variables.

use smallvec::SmallVec;

use crate::ast::Sym;
use crate::normalize::{NAtom, NLit, NRule, NTerm};
use crate::terms::{TermId, TermStore};

/// A term pattern with its ground parts resolved.
#[derive(Clone, Debug)]
pub(super) enum RTerm {
    Var(u32),
    /// A ground term of the store.
    Id(TermId),
    /// A ground term that the store does not hold: in no atom.
    Absent,
    /// A compound with variables.
    Func(Sym, Box<[RTerm]>),
}

/// An atom pattern with its arguments resolved.
#[derive(Clone, Debug)]
pub(super) struct RAtom {
    pub rel: Sym,
    pub args: Box<[RTerm]>,
}

/// The head and the body atoms of a rule, resolved (`None` for `distinct` and `=`).
#[derive(Debug)]
pub(super) struct Resolved {
    pub head: RAtom,
    pub body: Vec<Option<RAtom>>,
    /// Whether each body literal is positive.
    pub positive: Vec<bool>,
}

impl Resolved {
    pub fn new(rule: &NRule, store: &TermStore) -> Resolved {
        Resolved {
            head: RAtom::new(&rule.head, store),
            body: rule
                .body
                .iter()
                .map(|l| match l {
                    NLit::Pos(a) | NLit::Neg(a) => Some(RAtom::new(a, store)),
                    NLit::Distinct(..) | NLit::Equal(..) => None,
                })
                .collect(),
            positive: rule
                .body
                .iter()
                .map(|l| matches!(l, NLit::Pos(_)))
                .collect(),
        }
    }
}

impl RAtom {
    pub fn new(a: &NAtom, store: &TermStore) -> RAtom {
        RAtom {
            rel: a.rel,
            args: a.args.iter().map(|t| RTerm::new(t, store)).collect(),
        }
    }
}

impl RTerm {
    fn new(t: &NTerm, store: &TermStore) -> RTerm {
        match t {
            NTerm::Var(v) => RTerm::Var(*v),
            NTerm::Const(c) => store.get(*c, &[]).map_or(RTerm::Absent, RTerm::Id),
            NTerm::Func(f, args) => {
                let args: Vec<RTerm> = args.iter().map(|a| RTerm::new(a, store)).collect();
                // Ground with a part in no atom: in no atom either.
                if args
                    .iter()
                    .all(|a| matches!(a, RTerm::Id(_) | RTerm::Absent))
                    && args.iter().any(|a| matches!(a, RTerm::Absent))
                {
                    return RTerm::Absent;
                }
                let ids: Option<Vec<TermId>> = args
                    .iter()
                    .map(|a| match a {
                        RTerm::Id(id) => Some(*id),
                        _ => None,
                    })
                    .collect();
                match ids {
                    Some(ids) => store.get(*f, &ids).map_or(RTerm::Absent, RTerm::Id),
                    None => RTerm::Func(*f, args.into_boxed_slice()),
                }
            }
        }
    }
}

/// Variable bindings of one rule, with a trail to undo them, and the atom each positive
/// literal scanned so far matched.
pub(super) struct Binds {
    pub vals: Vec<Option<TermId>>,
    pub trail: Vec<u32>,
    /// By body literal: the atom of the current match (positive literals only).
    pub atoms: Vec<TermId>,
}

impl Binds {
    /// No variable bound, of a rule with `width` variables and `literals` body literals.
    pub fn new(width: usize, literals: usize) -> Binds {
        Binds {
            vals: vec![None; width],
            trail: Vec::new(),
            atoms: vec![0; literals],
        }
    }

    pub fn undo_to(&mut self, mark: usize) {
        while self.trail.len() > mark {
            let v = self.trail.pop().unwrap_or(0);
            self.vals[v as usize] = None;
        }
    }
}

/// Matches pattern `p` against ground term `t`, binding variables (recorded on the trail).
pub(super) fn unify(p: &RTerm, t: TermId, store: &TermStore, b: &mut Binds) -> bool {
    match p {
        RTerm::Var(v) => match b.vals[*v as usize] {
            Some(x) => x == t,
            None => {
                b.vals[*v as usize] = Some(t);
                b.trail.push(*v);
                true
            }
        },
        RTerm::Id(id) => *id == t,
        RTerm::Absent => false,
        RTerm::Func(f, args) => {
            store.functor(t) == *f
                && store.args(t).len() == args.len()
                && args
                    .iter()
                    .zip(store.args(t))
                    .all(|(p, &x)| unify(p, x, store, b))
        }
    }
}

/// The ids of the arguments of one term or atom: inline up to a width that almost every
/// description stays within (an atom of more spills to the heap, once per lookup).
pub(super) type Args = SmallVec<[TermId; 24]>;

/// Pushes the ids of `args` under the bindings onto `ids`: `Err(())` when a variable is
/// unbound, `Ok(false)` when one is ground but in no atom (`ids` is then incomplete). The ids
/// are written into the caller's buffer: returning a buffer of 24 ids by value copied it at
/// every level, which cost more than the lookup in racer4's joins.
#[inline]
pub(super) fn lookup_args(
    args: &[RTerm],
    store: &TermStore,
    b: &Binds,
    ids: &mut Args,
) -> Result<bool, ()> {
    let mut complete = true;
    for a in args {
        match a {
            RTerm::Var(v) => ids.push(b.vals[*v as usize].ok_or(())?),
            RTerm::Id(id) => ids.push(*id),
            RTerm::Absent => complete = false,
            RTerm::Func(..) => match lookup(a, store, b)? {
                Some(id) => ids.push(id),
                None => complete = false,
            },
        }
    }
    Ok(complete)
}

/// The id of pattern `p` under the bindings: `Err(())` when a variable is unbound,
/// `Ok(None)` when the term is ground but exists nowhere in the store (so in no atom).
pub(super) fn lookup(p: &RTerm, store: &TermStore, b: &Binds) -> Result<Option<TermId>, ()> {
    match p {
        RTerm::Var(v) => b.vals[*v as usize].map(Some).ok_or(()),
        RTerm::Id(id) => Ok(Some(*id)),
        RTerm::Absent => Ok(None),
        RTerm::Func(f, args) => {
            let mut ids = Args::new();
            Ok(if lookup_args(args, store, b, &mut ids)? {
                store.get(*f, &ids)
            } else {
                None
            })
        }
    }
}

/// The id of an atom pattern under the bindings (see [`lookup`]).
pub(super) fn lookup_atom(a: &RAtom, store: &TermStore, b: &Binds) -> Result<Option<TermId>, ()> {
    let mut ids = Args::new();
    Ok(if lookup_args(&a.args, store, b, &mut ids)? {
        store.get(a.rel, &ids)
    } else {
        None
    })
}
