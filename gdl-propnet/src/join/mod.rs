//! Joins evaluated at run time: the rules of a game too large to ground.
//!
//! A rule such as Sudoku's "row `?i` holds each digit once" has one ground instance per
//! combination of the nine digits of the row, far too many for a circuit; evaluated on the
//! actual state, it visits the row's nine marks. The compiler keeps such rules as they are:
//! a [`Rule`] is a list of [`Step`]s over variables whose values are ground terms (numbered
//! [`Value`]s):
//!
//! - [`Step::Scan`] reads a [`Table`]: the atoms a body literal can match (computed at compile
//!   time), one row of variable values each, with the network node that says whether the
//!   atom holds (or none, for static facts); columns bound by earlier steps are looked up in a
//!   hash index;
//! - [`Step::Absent`] is a negative literal over a table;
//! - [`Step::Call`] asks a *lazy* relation (a static relation too large to list, such as
//!   Sudoku's `exactlyOne` of ten arguments, or a dynamic one with too many atoms, whose rules
//!   read the state through their tables) whether it holds for bound arguments, by running its
//!   rules with their head bound; recursion is allowed: a goal already being proved fails,
//!   and the answers of one evaluation are kept (see `Calls`);
//! - [`Step::Compare`] is `distinct` or its negation.
//!
//! A [`Join`] rule's matches make its head atoms, which are nodes of the network (a group of
//! the engine, recomputed whenever a node its tables read changes).

use std::hash::{BuildHasherDefault, Hasher};

/// The hash maps of the joins: keys are small integers and value lists, hashed by a
/// multiply-rotate hash (SipHash, the standard one, was most of a lookup).
type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// The multiply-rotate hash of [`HashMap`] (FxHash's).
#[derive(Clone, Copy, Default)]
struct FastHasher(u64);

impl FastHasher {
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
}

/// A ground term, numbered by the compiler.
pub type Value = u32;

/// No value yet.
const UNBOUND: Value = u32::MAX;

/// A row signal for facts that always hold.
pub const ALWAYS: u32 = u32::MAX;

/// An argument: a variable of the rule or a ground term.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    Var(u32),
    Const(Value),
}

/// The atoms a literal can match: per row, the values of the literal's variables and the
/// signal (`node << 1 | negated`, or [`ALWAYS`]) that says whether the atom holds.
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub width: u32,
    pub rows: Vec<Value>,
    pub signals: Vec<u32>,
}

impl Table {
    fn row(&self, r: u32) -> &[Value] {
        let w = self.width as usize;
        &self.rows[r as usize * w..(r as usize + 1) * w]
    }

    fn len(&self) -> usize {
        self.signals.len()
    }
}

/// One step of a rule's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// The rows of `table` that agree with the variables of `cols` already bound; the others
    /// are bound to the row's values. `bound` says which columns are bound (bit per column).
    Scan {
        table: u32,
        cols: Vec<u32>,
        bound: u64,
    },
    /// No row of `table` with these (bound) variables holds.
    Absent { table: u32, cols: Vec<u32> },
    /// Lazy relation `relation` holds (`negated`: does not hold) for these bound arguments.
    Call {
        relation: u32,
        args: Vec<Arg>,
        negated: bool,
    },
    /// The arguments are equal (`equal`) or differ.
    Compare { a: Arg, b: Arg, equal: bool },
}

/// A rule: its head arguments and body steps, over `vars` variables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rule {
    pub vars: u32,
    pub head: Vec<Arg>,
    pub steps: Vec<Step>,
}

/// A rule whose matches set network nodes: its head atoms, listed by their arguments.
#[derive(Clone, Debug, Default)]
pub struct Join {
    pub rule: Rule,
    /// The head atoms (argument values), in the order of the join's nodes.
    pub outputs: Vec<Vec<Value>>,
    by_args: HashMap<Vec<Value>, u32>,
}

/// Everything the joins of a network read.
#[derive(Clone, Debug, Default)]
pub struct JoinProgram {
    pub tables: Vec<Table>,
    /// Per lazy relation, its rules.
    pub lazy: Vec<Vec<Rule>>,
    pub joins: Vec<Join>,
    /// Per table, per column mask a scan looks it up by: the rows of each key hash.
    indexes: HashMap<(u32, u64), HashMap<u64, Vec<u32>>>,
}

fn hash_values(vs: impl Iterator<Item = Value>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for v in vs {
        h = (h ^ u64::from(v)).wrapping_mul(0x100_0000_01b3);
        h ^= h >> 29;
    }
    h
}

impl JoinProgram {
    /// A program from its parts; builds the lookup tables.
    pub fn new(
        tables: Vec<Table>,
        lazy: Vec<Vec<Rule>>,
        joins: Vec<(Rule, Vec<Vec<Value>>)>,
    ) -> Self {
        let joins = joins
            .into_iter()
            .map(|(rule, outputs)| {
                let by_args = outputs
                    .iter()
                    .enumerate()
                    .map(|(i, o)| (o.clone(), i as u32))
                    .collect();
                Join {
                    rule,
                    outputs,
                    by_args,
                }
            })
            .collect();
        let mut p = JoinProgram {
            tables,
            lazy,
            joins,
            indexes: HashMap::default(),
        };
        let mut wanted: Vec<(u32, u64)> = Vec::new();
        let rules = p
            .joins
            .iter()
            .map(|j| &j.rule)
            .chain(p.lazy.iter().flatten());
        for rule in rules {
            for s in &rule.steps {
                match s {
                    Step::Scan { table, bound, .. } if *bound != 0 => wanted.push((*table, *bound)),
                    Step::Absent { table, cols } => {
                        wanted.push((*table, (1u64 << cols.len().min(63)) - 1));
                    }
                    _ => {}
                }
            }
        }
        for (t, mask) in wanted {
            let Some(table) = p.tables.get(t as usize) else {
                continue;
            };
            p.indexes.entry((t, mask)).or_insert_with(|| {
                let mut ix: HashMap<u64, Vec<u32>> = HashMap::default();
                for r in 0..table.len() as u32 {
                    let row = table.row(r);
                    let key = hash_values(
                        row.iter()
                            .enumerate()
                            .filter(|(c, _)| mask >> c & 1 == 1)
                            .map(|(_, &v)| v),
                    );
                    ix.entry(key).or_default().push(r);
                }
                ix
            });
        }
        p
    }

    /// Whether every table, relation and variable the rules name exists.
    pub fn validate(&self, nodes: u32) -> bool {
        let tables_ok = self.tables.iter().all(|t| {
            t.rows.len() == t.width as usize * t.signals.len()
                && t.signals.iter().all(|&s| s == ALWAYS || s >> 1 < nodes)
        });
        let rule_ok = |r: &Rule| {
            let var = |a: &Arg| match a {
                Arg::Var(v) => *v < r.vars,
                Arg::Const(_) => true,
            };
            r.head.iter().all(var)
                && r.steps.iter().all(|s| match s {
                    Step::Scan { table, cols, .. } | Step::Absent { table, cols } => {
                        self.tables
                            .get(*table as usize)
                            .is_some_and(|t| t.width as usize == cols.len())
                            && cols.iter().all(|&c| c < r.vars)
                            && cols.len() < 64
                    }
                    Step::Call { relation, args, .. } => {
                        (*relation as usize) < self.lazy.len() && args.iter().all(var)
                    }
                    Step::Compare { a, b, .. } => var(a) && var(b),
                })
        };
        tables_ok
            && self.lazy.iter().flatten().all(rule_ok)
            && self
                .joins
                .iter()
                .all(|j| rule_ok(&j.rule) && j.outputs.iter().all(|o| o.len() == j.rule.head.len()))
    }

    /// The values of join `j`'s outputs, reading node values through `read`.
    pub fn evaluate(&self, j: usize, read: &impl Fn(u32) -> bool) -> Vec<bool> {
        self.evaluate_in(j, read, &mut JoinScratch::default())
    }

    /// [`JoinProgram::evaluate`] with the memory of `scratch` (kept by the caller between
    /// evaluations, so that one evaluation allocates little).
    pub fn evaluate_in(
        &self,
        j: usize,
        read: &impl Fn(u32) -> bool,
        scratch: &mut JoinScratch,
    ) -> Vec<bool> {
        let Some(join) = self.joins.get(j) else {
            return Vec::new();
        };
        let mut out = vec![false; join.outputs.len()];
        let mut env = vec![UNBOUND; join.rule.vars as usize];
        let mut head = Vec::with_capacity(join.rule.head.len());
        let mut found = |env: &[Value]| {
            head.clear();
            head.extend(join.rule.head.iter().map(|a| value(*a, env)));
            if let Some(&i) = join.by_args.get(&head) {
                out[i as usize] = true;
            }
            true
        };
        let calls = &mut scratch.calls;
        calls.clear();
        self.solve(&join.rule, 0, &mut env, read, calls, &mut found);
        out
    }

    /// Runs the steps of `rule` from `k`; calls `found` on each match (which returns whether
    /// to go on). Returns false once stopped.
    fn solve(
        &self,
        rule: &Rule,
        k: usize,
        env: &mut [Value],
        read: &impl Fn(u32) -> bool,
        calls: &mut Calls,
        found: &mut dyn FnMut(&[Value]) -> bool,
    ) -> bool {
        let Some(step) = rule.steps.get(k) else {
            return found(env);
        };
        let holds = |s: u32| s == ALWAYS || read(s >> 1) != (s & 1 != 0);
        match step {
            Step::Scan { table, cols, bound } => {
                let Some(t) = self.tables.get(*table as usize) else {
                    return true;
                };
                let list: Option<&[u32]> = if *bound == 0 {
                    None
                } else {
                    let key = hash_values(
                        cols.iter()
                            .enumerate()
                            .filter(|(c, _)| bound >> c & 1 == 1)
                            .map(|(_, &v)| env[v as usize]),
                    );
                    Some(
                        self.indexes
                            .get(&(*table, *bound))
                            .and_then(|ix| ix.get(&key))
                            .map_or(&[][..], Vec::as_slice),
                    )
                };
                let count = list.map_or(t.len(), <[u32]>::len);
                for i in 0..count {
                    let r = list.map_or(i as u32, |l| l[i]);
                    if !holds(t.signals[r as usize]) {
                        continue;
                    }
                    let row = t.row(r);
                    let agrees = cols
                        .iter()
                        .zip(row)
                        .enumerate()
                        .all(|(c, (&v, &x))| bound >> c & 1 == 0 || env[v as usize] == x);
                    if !agrees {
                        continue;
                    }
                    for (c, (&v, &x)) in cols.iter().zip(row).enumerate() {
                        if bound >> c & 1 == 0 {
                            env[v as usize] = x;
                        }
                    }
                    let go_on = self.solve(rule, k + 1, env, read, calls, found);
                    for (c, &v) in cols.iter().enumerate() {
                        if bound >> c & 1 == 0 {
                            env[v as usize] = UNBOUND;
                        }
                    }
                    if !go_on {
                        return false;
                    }
                }
                true
            }
            Step::Absent { table, cols } => {
                let Some(t) = self.tables.get(*table as usize) else {
                    return true;
                };
                let mask = (1u64 << cols.len().min(63)) - 1;
                let key = hash_values(cols.iter().map(|&v| env[v as usize]));
                let rows = self
                    .indexes
                    .get(&(*table, mask))
                    .and_then(|ix| ix.get(&key))
                    .map_or(&[][..], Vec::as_slice);
                let present = rows.iter().any(|&r| {
                    holds(t.signals[r as usize])
                        && t.row(r)
                            .iter()
                            .zip(cols)
                            .all(|(&x, &v)| env[v as usize] == x)
                });
                present || self.solve(rule, k + 1, env, read, calls, found)
            }
            Step::Call {
                relation,
                args,
                negated,
            } => {
                let holds = self.call(*relation, args, env, read, calls);
                if holds != *negated {
                    self.solve(rule, k + 1, env, read, calls, found)
                } else {
                    true
                }
            }
            Step::Compare { a, b, equal } => {
                let (x, y) = (value(*a, env), value(*b, env));
                if x != UNBOUND && y != UNBOUND && (x == y) == *equal {
                    self.solve(rule, k + 1, env, read, calls, found)
                } else {
                    true
                }
            }
        }
    }

    /// Whether lazy relation `relation` holds for the values of `args` in `env` (false when
    /// one is unbound; see [`Calls`]).
    fn call(
        &self,
        relation: u32,
        args: &[Arg],
        env: &[Value],
        read: &impl Fn(u32) -> bool,
        calls: &mut Calls,
    ) -> bool {
        // The goal, `relation` then its arguments, on top of the goals being proved.
        let start = calls.goals.len();
        calls.goals.push(relation);
        calls.goals.extend(args.iter().map(|&a| value(a, env)));
        let end = calls.goals.len();
        let known = if calls.goals[start + 1..].contains(&UNBOUND) {
            Some(false)
        } else {
            calls.known.get(&calls.goals[start..]).copied()
        };
        if let Some(known) = known {
            calls.goals.truncate(start);
            return known;
        }
        let goal = &calls.goals[start..end];
        if let Some(p) = calls
            .stack
            .iter()
            .position(|&(a, b)| &calls.goals[a..b] == goal)
        {
            // A goal already being proved: a proof through it would be no shorter.
            calls.lowest = calls.lowest.min(p);
            calls.goals.truncate(start);
            return false;
        }
        let Some(rules) = self.lazy.get(relation as usize) else {
            calls.goals.truncate(start);
            return false;
        };
        if calls.stack.len() >= MAX_CALL_DEPTH {
            calls.lowest = 0;
            calls.goals.truncate(start);
            return false;
        }
        let me = calls.stack.len();
        let outer = std::mem::replace(&mut calls.lowest, usize::MAX);
        calls.stack.push((start, end));
        let mut hit = false;
        // One environment for the call's rules, cleared for each.
        let mut env = Vec::new();
        for rule in rules {
            env.clear();
            env.resize(rule.vars as usize, UNBOUND);
            let values = &calls.goals[start + 1..end];
            let unified = rule.head.len() == values.len()
                && rule.head.iter().zip(values).all(|(a, &x)| match *a {
                    Arg::Const(c) => c == x,
                    Arg::Var(v) => {
                        let slot = &mut env[v as usize];
                        if *slot == UNBOUND {
                            *slot = x;
                        }
                        *slot == x
                    }
                });
            if !unified {
                continue;
            }
            self.solve(rule, 0, &mut env, read, calls, &mut |_| {
                hit = true;
                false
            });
            if hit {
                break;
            }
        }
        calls.stack.pop();
        let inner = calls.lowest;
        // A failure that met only goals this call started is final; one that met a goal
        // below it on the stack may be a success in another context.
        if hit || inner >= me {
            calls.known.insert(calls.goals[start..end].to_vec(), hit);
            calls.lowest = outer;
        } else {
            calls.lowest = outer.min(inner);
        }
        calls.goals.truncate(start);
        hit
    }
}

/// The deepest nesting of lazy calls; a deeper call fails (a limit, like the interpreter's).
const MAX_CALL_DEPTH: usize = 512;

/// The memory of [`JoinProgram::evaluate_in`], kept between evaluations by its caller (one per
/// thread: the engine).
#[derive(Clone, Debug, Default)]
pub struct JoinScratch {
    calls: Calls,
}

/// The lazy calls of one evaluation (one state): their answers, and the goals being proved.
///
/// A lazy relation may be recursive (chess's `clear_row_ig` follows a row square by square):
/// a call is proved by running its rules with its arguments bound, depth first. A goal that
/// is already on the stack fails there (a proof that goes through itself has a shorter one
/// that does not), so the recursion ends for any relation over finitely many values. Answers
/// are kept for the rest of the evaluation: a success always, a failure only when it met no
/// goal lower on the stack (which might still succeed by another way).
///
/// A goal is its relation followed by its arguments; the goals being proved lie end to end in
/// `goals`, so that asking a known goal allocates nothing.
#[derive(Clone, Debug)]
struct Calls {
    known: HashMap<Vec<Value>, bool>,
    goals: Vec<Value>,
    /// The goals being proved: their ranges in `goals`.
    stack: Vec<(usize, usize)>,
    /// The lowest stack position a failed call met while on the stack (`usize::MAX`: none).
    lowest: usize,
}

impl Calls {
    /// Forgets the answers (a new state), keeping the memory.
    fn clear(&mut self) {
        self.known.clear();
        self.goals.clear();
        self.stack.clear();
        self.lowest = usize::MAX;
    }
}

impl Default for Calls {
    fn default() -> Self {
        Calls {
            known: HashMap::default(),
            goals: Vec::new(),
            stack: Vec::new(),
            lowest: usize::MAX,
        }
    }
}

fn value(a: Arg, env: &[Value]) -> Value {
    match a {
        Arg::Var(v) => env.get(v as usize).copied().unwrap_or(UNBOUND),
        Arg::Const(c) => c,
    }
}

mod encode;

#[cfg(test)]
mod tests;
