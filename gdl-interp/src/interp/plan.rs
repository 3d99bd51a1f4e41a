//! Join planning: each normalised rule becomes a [`Plan`], its body literals ordered so that
//! every literal is as bound as possible when it is reached, negations and `distinct` placed as
//! soon as their variables are bound.

use crate::ast::{Sym, kw};
use crate::normalize::{NAtom, NLit, NRule, NTerm};

use super::relation::Mask;
use crate::terms::{TermId, TermStore};

/// A relation's number in the engine.
pub type RelId = usize;

/// A term pattern: ground sub-terms are interned once, at planning time.
#[derive(Clone, Debug)]
pub enum Pat {
    Var(u32),
    Id(TermId),
    Func(Sym, Box<[Pat]>),
}

impl Pat {
    fn for_each_var(&self, f: &mut impl FnMut(u32)) {
        match self {
            Pat::Var(v) => f(*v),
            Pat::Id(_) => {}
            Pat::Func(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }

    fn is_ground(&self) -> bool {
        let mut ground = true;
        self.for_each_var(&mut |_| ground = false);
        ground
    }

    fn bound_by(&self, bound: &[bool]) -> bool {
        let mut all = true;
        self.for_each_var(&mut |v| all &= bound[v as usize]);
        all
    }
}

/// Which rows of a relation a scan reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Every row.
    Full,
    /// Only the rows added in the previous round of a recursive component.
    Delta,
}

#[derive(Clone, Debug)]
pub enum Step {
    /// Join with the rows of a relation: positions in `mask` are looked up through an index,
    /// the others matched (binding variables).
    Scan {
        rel: RelId,
        source: Source,
        args: Box<[Pat]>,
        mask: Mask,
        index: Option<usize>,
    },
    /// The (fully bound) sentence must not hold.
    Not { rel: RelId, args: Box<[Pat]> },
    /// The two (fully bound) terms differ.
    Distinct(Pat, Pat),
    /// The terms are equal: the first is fully bound; the second is matched against it.
    Equal(Pat, Pat),
}

/// An executable rule.
#[derive(Clone, Debug)]
pub struct Plan {
    pub head_rel: RelId,
    pub head: Box<[Pat]>,
    pub steps: Vec<Step>,
    pub var_count: usize,
    /// The index of the source rule in `Program::rules` (to name it in a fault).
    pub origin: usize,
}

/// How to plan one rule.
pub struct PlanRequest<'a> {
    pub rule: &'a NRule,
    /// The body literal (an index into `rule.body`) that reads only the delta rows; it is
    /// placed first.
    pub delta: Option<usize>,
    /// A body literal to place first (after the delta one): the demand guard of a rule
    /// rewritten by the magic-sets transformation.
    pub first: Option<usize>,
}

/// Planning failed: a variable of the rule can never be bound (the rule is unsafe).
#[derive(Clone, Debug)]
pub struct Unsafe {
    pub origin: usize,
}

/// The name of a relation of the engine.
///
/// `true` and `does` are also stored split by the functor of the proposition or move, so that
/// `(true (cell ?x ?y b))` reads the relation `true:cell/3` with arguments `?x ?y b`, indexed
/// on them like any other relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RelKey {
    Plain(Sym, usize),
    /// `(true (f a1 .. an))` as `f/n` over `a1 .. an`.
    True(Sym, usize),
    /// `(does r (f a1 .. an))` as `f/n` over `r a1 .. an`.
    Does(Sym, usize),
}

pub trait Catalog {
    /// The relation of `key`, created if new.
    fn relation(&mut self, key: RelKey) -> RelId;
    /// The rough number of rows of a relation, to estimate the cost of a scan.
    fn size_hint(&self, rel: RelId) -> f64;
}

/// The relation and argument patterns a body sentence reads.
fn body_atom(a: &NAtom, store: &mut TermStore, catalog: &mut impl Catalog) -> (RelId, Box<[Pat]>) {
    let pats = |args: &[NTerm], store: &mut TermStore| -> Vec<Pat> {
        args.iter().map(|t| pattern(t, store)).collect()
    };
    match (a.rel, &a.args[..]) {
        (kw::TRUE, [NTerm::Func(f, args)]) => (
            catalog.relation(RelKey::True(*f, args.len())),
            pats(args, store).into(),
        ),
        (kw::TRUE, [NTerm::Const(c)]) => (catalog.relation(RelKey::True(*c, 0)), Box::new([])),
        (kw::DOES, [r, NTerm::Func(f, args)]) => {
            let mut p = vec![pattern(r, store)];
            p.extend(pats(args, store));
            (catalog.relation(RelKey::Does(*f, args.len())), p.into())
        }
        (kw::DOES, [r, NTerm::Const(c)]) => (
            catalog.relation(RelKey::Does(*c, 0)),
            Box::new([pattern(r, store)]),
        ),
        _ => (
            catalog.relation(RelKey::Plain(a.rel, a.args.len())),
            pats(&a.args, store).into(),
        ),
    }
}

/// The estimated number of rows a scan yields, given which arguments are bound.
/// The cost of a scan whose arguments are all bound: the least there is.
const GROUND_COST: f64 = 0.5;

fn scan_cost(size: f64, args: &[Pat], bound: &[bool]) -> f64 {
    let arity = args.len();
    let nb = args.iter().filter(|p| p.bound_by(bound)).count();
    if nb == arity {
        return GROUND_COST;
    }
    size.max(1.0).powf((arity - nb) as f64 / arity as f64)
}

pub fn pattern(term: &NTerm, store: &mut TermStore) -> Pat {
    match term {
        NTerm::Var(v) => Pat::Var(*v),
        NTerm::Const(s) => Pat::Id(store.intern(*s, &[])),
        NTerm::Func(f, args) => {
            let pats: Vec<Pat> = args.iter().map(|a| pattern(a, store)).collect();
            if pats.iter().all(|p| matches!(p, Pat::Id(_))) {
                let ids: Vec<TermId> = pats
                    .iter()
                    .map(|p| if let Pat::Id(i) = p { *i } else { 0 })
                    .collect();
                Pat::Id(store.intern(*f, &ids))
            } else {
                Pat::Func(*f, pats.into())
            }
        }
    }
}

enum Lit {
    Pos(RelId, Box<[Pat]>),
    Neg(RelId, Box<[Pat]>),
    Distinct(Pat, Pat),
    Equal(Pat, Pat),
}

/// Orders the body of `req.rule` into a plan.
pub fn plan(
    req: &PlanRequest<'_>,
    store: &mut TermStore,
    catalog: &mut impl Catalog,
) -> Result<Plan, Unsafe> {
    let rule = req.rule;
    let mut lits: Vec<Option<Lit>> = rule
        .body
        .iter()
        .map(|l| {
            Some(match l {
                NLit::Pos(a) => {
                    let (rel, args) = body_atom(a, store, catalog);
                    Lit::Pos(rel, args)
                }
                NLit::Neg(a) => {
                    let (rel, args) = body_atom(a, store, catalog);
                    Lit::Neg(rel, args)
                }
                NLit::Distinct(a, b) => Lit::Distinct(pattern(a, store), pattern(b, store)),
                NLit::Equal(a, b) => Lit::Equal(pattern(a, store), pattern(b, store)),
            })
        })
        .collect();
    let var_count = rule.var_names.len();
    let mut bound = vec![false; var_count];
    let mut steps = Vec::new();
    let bind_all =
        |p: &Pat, bound: &mut Vec<bool>| p.for_each_var(&mut |v| bound[v as usize] = true);

    if let Some(d) = req.delta
        && let Some(Lit::Pos(rel, args)) = lits.get_mut(d).and_then(Option::take)
    {
        args.iter().for_each(|p| bind_all(p, &mut bound));
        steps.push(Step::Scan {
            rel,
            source: Source::Delta,
            args,
            mask: 0,
            index: None,
        });
    }
    if let Some(g) = req.first
        && let Some(Lit::Pos(rel, args)) = lits.get_mut(g).and_then(Option::take)
    {
        push_scan(rel, args, &mut bound, &mut steps);
    }
    // Choosing the next scan looks at every literal left, and a body may have thousands:
    // the size hints are looked up once, the literals without variables (which always cost
    // the least, 0.5) wait in written order, and filters are kept apart.
    let hints: Vec<f64> = lits
        .iter()
        .map(|l| match l {
            Some(Lit::Pos(rel, _)) => catalog.size_hint(*rel),
            _ => 0.0,
        })
        .collect();
    let mut ground_left = std::collections::VecDeque::new();
    let mut var_left = Vec::new();
    let mut filters = Vec::new();
    for (i, l) in lits.iter().enumerate() {
        match l {
            Some(Lit::Pos(_, args)) if args.iter().all(Pat::is_ground) => ground_left.push_back(i),
            Some(Lit::Pos(..)) => var_left.push(i),
            Some(_) => filters.push(i),
            None => {}
        }
    }
    loop {
        place_filters(&mut lits, &mut filters, &mut bound, &mut steps);
        // The next positive literal: the cheapest scan (fewest estimated rows); ties keep
        // the written order.
        let mut best: Option<(usize, f64)> = None;
        for (k, &i) in var_left.iter().enumerate() {
            if let Some(Lit::Pos(_, args)) = &lits[i] {
                let cost = scan_cost(hints[i], args, &bound);
                if best.is_none_or(|(_, c)| cost < c) {
                    best = Some((k, cost));
                }
            }
        }
        let chosen = match (best, ground_left.front()) {
            (Some((k, c)), Some(&g))
                if c < GROUND_COST || (c == GROUND_COST && var_left[k] < g) =>
            {
                var_left.remove(k)
            }
            (_, Some(_)) => ground_left.pop_front().unwrap_or_default(),
            (Some((k, _)), None) => var_left.remove(k),
            (None, None) => break,
        };
        let Some(Lit::Pos(rel, args)) = lits[chosen].take() else {
            break;
        };
        push_scan(rel, args, &mut bound, &mut steps);
    }
    let head_pats: Box<[Pat]> = rule.head.args.iter().map(|t| pattern(t, store)).collect();
    let head_bound = head_pats.iter().all(|p| p.bound_by(&bound));
    if lits.iter().any(Option::is_some) || !head_bound {
        return Err(Unsafe {
            origin: rule.origin,
        });
    }
    Ok(Plan {
        head_rel: catalog.relation(RelKey::Plain(rule.head.rel, rule.head.args.len())),
        head: head_pats,
        steps,
        var_count,
        origin: rule.origin,
    })
}

/// Appends a full scan of `rel`, looked up by the positions already bound; binds the rest.
fn push_scan(rel: RelId, args: Box<[Pat]>, bound: &mut [bool], steps: &mut Vec<Step>) {
    let mask = bound_mask(&args, bound);
    for p in args.iter() {
        p.for_each_var(&mut |v| bound[v as usize] = true);
    }
    steps.push(Step::Scan {
        rel,
        source: Source::Full,
        args,
        mask,
        index: None,
    });
}

fn bound_mask(args: &[Pat], bound: &[bool]) -> Mask {
    args.iter()
        .enumerate()
        .filter(|(_, p)| p.bound_by(bound))
        .fold(0, |m, (k, _)| if k < 64 { m | (1 << k) } else { m })
}

/// Places every negation, `distinct` and equality whose variables are bound (equalities also
/// when one side is bound: they bind the other).
fn place_filters(
    lits: &mut [Option<Lit>],
    filters: &mut Vec<usize>,
    bound: &mut [bool],
    steps: &mut Vec<Step>,
) {
    loop {
        let mut placed = false;
        let mut k = 0;
        while k < filters.len() {
            let slot = &mut lits[filters[k]];
            let ready = match slot {
                Some(Lit::Neg(_, args)) => args.iter().all(|p| p.bound_by(bound)),
                Some(Lit::Distinct(a, b)) => a.bound_by(bound) && b.bound_by(bound),
                Some(Lit::Equal(a, b)) => a.bound_by(bound) || b.bound_by(bound),
                _ => false,
            };
            if !ready {
                k += 1;
                continue;
            }
            filters.remove(k);
            placed = true;
            match slot.take() {
                Some(Lit::Neg(rel, args)) => steps.push(Step::Not { rel, args }),
                Some(Lit::Distinct(a, b)) => steps.push(Step::Distinct(a, b)),
                Some(Lit::Equal(a, b)) => {
                    let (a, b) = if a.bound_by(bound) { (a, b) } else { (b, a) };
                    b.for_each_var(&mut |v| bound[v as usize] = true);
                    steps.push(Step::Equal(a, b));
                }
                _ => {}
            }
        }
        if !placed {
            return;
        }
    }
}
