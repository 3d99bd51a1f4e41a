//! The plan of a join (see [`super::join`]): the order of a rule's positive literals that
//! minimises the estimated candidates visited, each scan with the argument positions bound
//! before it, and each filter as soon as its variables are bound.

use crate::normalize::{NAtom, NLit, NRule, NTerm};
use crate::terms::TermStore;

use super::db::Db;
use super::request::{JoinRequest, rel_key};

/// One step of a join plan.
#[derive(Clone, Copy, Debug)]
pub(super) enum Step {
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

pub(super) fn plan(req: &JoinRequest<'_>, db: &Db, _store: &TermStore) -> Vec<Step> {
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

/// The order in which [`for_each_match`](super::join::for_each_match) would visit the body literals of a request (scans
/// and filters), for callers that estimate join sizes.
pub fn plan_order(req: &JoinRequest<'_>, db: &Db, store: &TermStore) -> Vec<usize> {
    plan(req, db, store)
        .into_iter()
        .map(|s| match s {
            Step::Scan { lit, .. } | Step::Filter { lit } => lit,
        })
        .collect()
}

/// The first step before which every variable of the rule's head is bound, when steps
/// remain from there.
pub(super) fn heads_bound_at(rule: &NRule, steps: &[Step]) -> Option<usize> {
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
