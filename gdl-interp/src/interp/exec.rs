//! Execution of a [`Plan`]: a nested-loop join with index lookups, backtracking over the body.

use smallvec::{SmallVec, smallvec};

use super::budget::Exceeded;
use super::plan::{Pat, Plan, Source, Step};
use super::relation::{NIL, Relation, has};
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
    /// How many more candidate rows may be visited.
    pub steps: &'a mut u64,
    /// The most terms `store` and cells `out` may hold.
    pub max_terms: usize,
    pub max_out: usize,
}

/// Where the rows of one step of the plan come from, and how far they have been read.
enum Cursor {
    /// An index chain, from its newest row down to `start`.
    Chain { index: usize, row: u32, start: u32 },
    /// The rows `row..end`.
    Range { row: u32, end: u32 },
    /// A test (`not`, `distinct`, `=`): whether it was tried.
    Once(bool),
}

/// One step of the plan being run: its cursor, and the trail length when it was entered.
struct Frame {
    cursor: Cursor,
    mark: usize,
}

/// Runs `plan`, appending every head row it derives to `ctx.out`; returns whether the body
/// was satisfied at all, or which limit stopped it.
///
/// A backtracking search over the body with an explicit stack of [`Frame`]s, one per step:
/// a rule of 25,000 literals needs no deeper native stack than a rule of one.
pub fn run(plan: &Plan, ctx: &mut ExecCtx<'_>) -> Result<bool, Exceeded> {
    let mut env = vec![UNBOUND; plan.var_count];
    let mut trail: Vec<u32> = Vec::new();
    let mut frames: Vec<Frame> = Vec::with_capacity(plan.steps.len());
    let mut found = false;
    let mut descend = true;
    loop {
        if found && plan.head.is_empty() {
            return Ok(true);
        }
        if descend {
            match plan.steps.get(frames.len()) {
                None => {
                    found = true;
                    for p in plan.head.iter() {
                        let t = build(p, &env, ctx.store);
                        ctx.out.push(t);
                    }
                    if ctx.store.len() > ctx.max_terms {
                        return Err(Exceeded::Terms);
                    }
                    if ctx.out.len() > ctx.max_out {
                        return Err(Exceeded::Cells);
                    }
                }
                Some(s) => {
                    let cursor = open(s, &env, ctx);
                    frames.push(Frame {
                        cursor,
                        mark: trail.len(),
                    });
                }
            }
        }
        let Some(i) = frames.len().checked_sub(1) else {
            return Ok(found);
        };
        let top = &mut frames[i];
        undo(&mut env, &mut trail, top.mark);
        let mark = top.mark;
        descend = advance(
            &plan.steps[i],
            &mut top.cursor,
            mark,
            &mut env,
            &mut trail,
            ctx,
        )?;
        if !descend {
            frames.pop();
        }
    }
}

/// The cursor of step `s` entered with the bindings `env`.
fn open(s: &Step, env: &[TermId], ctx: &mut ExecCtx<'_>) -> Cursor {
    let Step::Scan {
        rel,
        source,
        args,
        mask,
        index,
    } = s
    else {
        return Cursor::Once(false);
    };
    let relation = &ctx.rels[*rel];
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
                        // A term that was never built is in no row.
                        None => return Cursor::Range { row: 0, end: 0 },
                    }
                }
            }
            Cursor::Chain {
                index: *ix,
                row: relation.lookup_first(*ix, &key),
                start,
            }
        }
        _ => Cursor::Range { row: start, end },
    }
}

/// Moves the cursor of step `s` to its next solution, binding its variables (recorded in
/// `trail` above `mark`); false when it has none left.
fn advance(
    s: &Step,
    cursor: &mut Cursor,
    mark: usize,
    env: &mut [TermId],
    trail: &mut Vec<u32>,
    ctx: &mut ExecCtx<'_>,
) -> Result<bool, Exceeded> {
    match s {
        Step::Scan {
            rel, args, mask, ..
        } => {
            let relation = &ctx.rels[*rel];
            loop {
                let r = match cursor {
                    Cursor::Chain { index, row, start } => {
                        if *row == NIL || *row < *start {
                            return Ok(false);
                        }
                        let r = *row;
                        *row = relation.older(*index, r);
                        r
                    }
                    Cursor::Range { row, end } => {
                        if *row >= *end {
                            return Ok(false);
                        }
                        *row += 1;
                        *row - 1
                    }
                    Cursor::Once(_) => return Ok(false),
                };
                if *ctx.steps == 0 {
                    return Err(Exceeded::Steps);
                }
                *ctx.steps -= 1;
                let row = relation.row(r);
                let ok = args
                    .iter()
                    .zip(row)
                    .enumerate()
                    .all(|(k, (p, &t))| has(*mask, k) || matches(p, t, env, trail, ctx.store));
                if ok {
                    return Ok(true);
                }
                undo(env, trail, mark);
            }
        }
        _ if matches!(cursor, Cursor::Once(true)) => Ok(false),
        Step::Not { rel, args } => {
            *cursor = Cursor::Once(true);
            let mut row = Row::new();
            for p in args.iter() {
                match resolve(p, env, ctx.store) {
                    Some(t) => row.push(t),
                    // A term that was never built is in no relation.
                    None => return Ok(true),
                }
            }
            Ok(!ctx.rels[*rel].contains(&row))
        }
        Step::Distinct(a, b) => {
            *cursor = Cursor::Once(true);
            let x = build(a, env, ctx.store);
            let y = build(b, env, ctx.store);
            Ok(x != y)
        }
        Step::Equal(a, b) => {
            *cursor = Cursor::Once(true);
            let x = build(a, env, ctx.store);
            Ok(matches(b, x, env, trail, ctx.store))
        }
    }
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
