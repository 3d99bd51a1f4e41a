//! Execution of a [`Plan`]: a nested-loop join with index lookups, backtracking over the body.

use smallvec::{SmallVec, smallvec};

use super::plan::{Pat, Plan, Source, Step};
use super::relation::{Relation, has};
use crate::terms::{TermId, TermStore};

/// A row or argument list, on the stack when short.
type Row = SmallVec<[TermId; 8]>;

/// An unbound variable.
const UNBOUND: TermId = TermId::MAX;

/// What a plan reads and writes.
pub struct ExecCtx<'a> {
    pub rels: &'a [Relation],
    pub store: &'a mut TermStore,
    /// For each relation, the first row of its delta (rows from there on are the delta).
    pub delta_start: &'a [u32],
    /// Head rows found, flat.
    pub out: &'a mut Vec<TermId>,
    /// How many more candidate rows may be visited; evaluation stops when it reaches 0.
    pub budget: &'a mut u64,
}

/// Set when the body was satisfied at least once (for 0-ary heads, whose rows are empty).
struct Found(bool);

/// Runs `plan`, appending every head row it derives to `ctx.out`; returns whether the body
/// was satisfied at all.
pub fn run(plan: &Plan, ctx: &mut ExecCtx<'_>) -> bool {
    let mut env = vec![UNBOUND; plan.var_count];
    let mut trail = Vec::new();
    let mut found = Found(false);
    step(plan, 0, &mut env, &mut trail, ctx, &mut found);
    found.0
}

fn step<'a>(
    plan: &Plan,
    i: usize,
    env: &mut [TermId],
    trail: &mut Vec<u32>,
    ctx: &mut ExecCtx<'a>,
    found: &mut Found,
) {
    let rels: &'a [Relation] = ctx.rels;
    if (found.0 && plan.head.is_empty()) || *ctx.budget == 0 {
        return;
    }
    let Some(s) = plan.steps.get(i) else {
        found.0 = true;
        for p in plan.head.iter() {
            let t = build(p, env, ctx.store);
            ctx.out.push(t);
        }
        return;
    };
    match s {
        Step::Scan {
            rel,
            source,
            args,
            mask,
            index,
        } => {
            let relation = &rels[*rel];
            let start = match source {
                Source::Full => 0,
                Source::Delta => ctx.delta_start[*rel],
            };
            let end = relation.len() as u32;
            match index {
                Some(ix) if *mask != 0 => {
                    let mut key: Row = smallvec![0; args.len()];
                    for (k, p) in args.iter().enumerate() {
                        if has(*mask, k) {
                            match resolve(p, env, ctx.store) {
                                Some(t) => key[k] = t,
                                None => return,
                            }
                        }
                    }
                    for r in relation.lookup(*ix, &key).take_while(|&r| r >= start) {
                        if r < end {
                            scan_row(plan, i, relation.row(r), *mask, env, trail, ctx, found);
                        }
                    }
                }
                _ => {
                    for r in start..end {
                        scan_row(plan, i, relation.row(r), *mask, env, trail, ctx, found);
                    }
                }
            }
        }
        Step::Not { rel, args } => {
            let mut row = Row::new();
            for p in args.iter() {
                match resolve(p, env, ctx.store) {
                    Some(t) => row.push(t),
                    // A term that was never built is in no relation.
                    None => return step(plan, i + 1, env, trail, ctx, found),
                }
            }
            if !rels[*rel].contains(&row) {
                step(plan, i + 1, env, trail, ctx, found);
            }
        }
        Step::Distinct(a, b) => {
            let x = build(a, env, ctx.store);
            let y = build(b, env, ctx.store);
            if x != y {
                step(plan, i + 1, env, trail, ctx, found);
            }
        }
        Step::Equal(a, b) => {
            let x = build(a, env, ctx.store);
            let mark = trail.len();
            if matches(b, x, env, trail, ctx.store) {
                step(plan, i + 1, env, trail, ctx, found);
            }
            undo(env, trail, mark);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn scan_row(
    plan: &Plan,
    i: usize,
    row: &[TermId],
    mask: u64,
    env: &mut [TermId],
    trail: &mut Vec<u32>,
    ctx: &mut ExecCtx<'_>,
    found: &mut Found,
) {
    let Some(Step::Scan { args, .. }) = plan.steps.get(i) else {
        return;
    };
    *ctx.budget = ctx.budget.saturating_sub(1);
    let mark = trail.len();
    let ok = args
        .iter()
        .zip(row)
        .enumerate()
        .all(|(k, (p, &t))| has(mask, k) || matches(p, t, env, trail, ctx.store));
    if ok {
        step(plan, i + 1, env, trail, ctx, found);
    }
    undo(env, trail, mark);
}

fn undo(env: &mut [TermId], trail: &mut Vec<u32>, mark: usize) {
    for v in trail.drain(mark..) {
        env[v as usize] = UNBOUND;
    }
}

/// Matches pattern `p` against ground term `t`, binding unbound variables (recorded in
/// `trail`).
fn matches(
    p: &Pat,
    t: TermId,
    env: &mut [TermId],
    trail: &mut Vec<u32>,
    store: &TermStore,
) -> bool {
    match p {
        Pat::Id(c) => *c == t,
        Pat::Var(v) => {
            let slot = &mut env[*v as usize];
            if *slot == UNBOUND {
                *slot = t;
                trail.push(*v);
                true
            } else {
                *slot == t
            }
        }
        Pat::Func(f, args) => {
            store.functor(t) == *f && store.args(t).len() == args.len() && {
                let targs = store.args(t);
                args.iter()
                    .zip(targs)
                    .all(|(a, &ta)| matches(a, ta, env, trail, store))
            }
        }
    }
}

/// The id of a fully bound pattern, if that term exists.
fn resolve(p: &Pat, env: &[TermId], store: &TermStore) -> Option<TermId> {
    match p {
        Pat::Id(c) => Some(*c),
        Pat::Var(v) => Some(env[*v as usize]).filter(|&t| t != UNBOUND),
        Pat::Func(f, args) => {
            let ids: Option<Row> = args.iter().map(|a| resolve(a, env, store)).collect();
            store.get(*f, &ids?)
        }
    }
}

/// The id of a fully bound pattern, built if new.
fn build(p: &Pat, env: &[TermId], store: &mut TermStore) -> TermId {
    match p {
        Pat::Id(c) => *c,
        Pat::Var(v) => env[*v as usize],
        Pat::Func(f, args) => {
            let ids: Row = args.iter().map(|a| build(a, env, store)).collect();
            store.intern(*f, &ids)
        }
    }
}
