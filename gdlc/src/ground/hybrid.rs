//! Rules evaluated at run time: the last resort of grounding.
//!
//! When a description is too large to ground even on demand, the rules that make it so stay
//! non-ground: Sudoku's `(<= (goodRow ?i) (true (mark ?i 1 ?m1)) .. (exactlyOne 1 ?m1 .. ?m9)
//! ..)` has a ground instance per combination of nine digits, but on an actual state it visits
//! the nine marks of the row. Such a *join rule* is compiled into a
//! [`gdl_propnet::Rule`]: its body literals become tables of the atoms they can
//! match (with the atom each row needs to hold), and its head atoms become nodes of the
//! network, recomputed by the engine whenever an atom its tables read changes.
//!
//! A static relation too large to compute in full (Sudoku's `exactlyOne` of ten arguments) is
//! *lazy*: its rules are kept and run at run time with their head bound, when a join asks
//! whether the relation holds for bound arguments.
//!
//! A dynamic relation can be lazy too (*deferred*, see `ground_hybrid` in the parent
//! module): when a join rule's head would have more atoms than
//! [`super::GroundOptions::max_join_heads`], or the relation itself too many atoms, the
//! relation is asked on demand by the joins that read it (its rules read the state through
//! their tables). It may be recursive (chess's `clear_row_ig` walks a row square by square):
//! the run-time calls end on cycles (see `gdl_propnet::join`). A variable of a rule that only a
//! lazy literal binds is bound first to the values it can take (`domain`, a static table),
//! and the literal is then a test.
//!
//! While grounding, the head atoms of a join rule are over-approximated by the combinations
//! of the values each head variable takes in the body literals it occurs in (`head_atoms_if_grown`),
//! or, when it reads lazy relations only negatively, by the rule without those literals.

use crate::diag::codes;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use gdl_propnet::{ALWAYS, Arg, Rule, Step, Table};

use super::GroundError;
use crate::diag::Diagnostic;
use crate::normalize::{NAtom, NLit, NRule, NTerm};
use crate::terms::TermId;

use super::Grounder;
use super::join::{self, RelKey, rel_key};
use super::scan_order::scan_order;

/// The rules of a description evaluated at run time.
#[derive(Clone, Debug, Default)]
pub struct GroundJoins {
    /// The tables of the rules' body literals: rows of variable values (term ids); a row's
    /// signal is the atom (its term id) that must hold, or [`ALWAYS`] for static facts.
    pub tables: Vec<Table>,
    /// Per lazy relation, its rules (the head arguments bound by the caller).
    pub lazy: Vec<Vec<Rule>>,
    pub joins: Vec<GroundJoin>,
}

impl GroundJoins {
    pub fn is_empty(&self) -> bool {
        self.joins.is_empty()
    }
}

/// One join rule.
#[derive(Clone, Debug)]
pub struct GroundJoin {
    /// The rule; its head lists the head's variables (whose values identify the output).
    pub rule: Rule,
    /// The head atoms it may derive.
    pub outputs: Vec<TermId>,
    /// Per output, the values of the head variables.
    pub keys: Vec<Vec<TermId>>,
    /// The index of the source rule in `Program::rules`.
    pub origin: usize,
}

/// A ground term that is in no atom: it equals no value.
const MISSING: u32 = u32::MAX - 1;

/// The argument of a term that must be a variable or ground.
fn const_or_var(t: &NTerm, g: &Grounder<'_>) -> Option<Arg> {
    match t {
        NTerm::Var(v) => Some(Arg::Var(*v)),
        t if t.is_ground() => Some(Arg::Const(
            join::ground_term(t, &g.store).unwrap_or(MISSING),
        )),
        _ => None,
    }
}

/// The most table cells (rows times columns) of all joins.
const MAX_CELLS: usize = 20_000_000;

fn unsupported(rule: &NRule, what: &str) -> GroundError {
    GroundError::too_large(Diagnostic::error(
        codes::GROUNDING_TOO_LARGE,
        rule.span,
        format!("too large to ground, and cannot be evaluated at run time: {what}"),
    ))
}

/// The values variable `v` of `rule` can take: the intersection of its values in the
/// positive body literals it occurs in (those of lazy relations through their rules).
/// `None` when no literal bounds it.
///
/// The values of a lazy relation's argument are the union over its rules; for a recursive
/// relation (chess's `clear_row_ig`, hex's `connection2`), the least solution of those
/// equations, found by iterating from no values: an over-approximation, since every rule
/// only narrows.
fn domain(g: &Grounder<'_>, rule: &NRule, v: u32) -> Option<HashSet<TermId>> {
    let mut ctx = Domains::default();
    for _ in 0..MAX_DOMAIN_ROUNDS {
        ctx.changed = false;
        let out = domain_in(g, rule, v, &mut ctx);
        if !ctx.changed {
            return out;
        }
    }
    None
}

/// Rounds of [`domain`]'s iteration before a variable is taken as unbounded.
const MAX_DOMAIN_ROUNDS: usize = 32;

/// The state of [`domain`]'s iteration.
#[derive(Default)]
struct Domains {
    /// Per lazy relation's argument position, the values found so far (`None`: unbounded).
    approx: HashMap<(RelKey, usize), Option<HashSet<TermId>>>,
    /// The positions being computed (a recursive literal reads their values so far).
    visiting: Vec<(RelKey, usize)>,
    /// Whether a round changed a position's values.
    changed: bool,
}

fn domain_in(g: &Grounder<'_>, rule: &NRule, v: u32, ctx: &mut Domains) -> Option<HashSet<TermId>> {
    let mut out: Option<HashSet<TermId>> = None;
    for l in &rule.body {
        let NLit::Pos(a) = l else { continue };
        if !l.distinct_vars().contains(&v) {
            continue;
        }
        let rel = rel_key(a);
        let values: Option<HashSet<TermId>> = if let Some(rules) = g.lazy.get(&rel) {
            // A lazy relation: the values of the argument positions holding exactly `v`.
            a.args
                .iter()
                .position(|t| *t == NTerm::Var(v))
                .and_then(|pos| lazy_values(g, rules, (rel, pos), ctx))
        } else {
            Some(
                g.db.atoms(rel)
                    .iter()
                    .filter_map(|&atom| join::value_of(a, atom, v, &g.store))
                    .collect(),
            )
        };
        if let Some(vals) = values {
            out = Some(match out {
                None => vals,
                Some(o) => o.intersection(&vals).copied().collect(),
            });
        }
    }
    out
}

/// The values argument `at` of lazy relation `rules` can take, `None` when they are not
/// bounded; a position being computed gives its values so far.
fn lazy_values(
    g: &Grounder<'_>,
    rules: &[NRule],
    at: (RelKey, usize),
    ctx: &mut Domains,
) -> Option<HashSet<TermId>> {
    if ctx.visiting.contains(&at) {
        return ctx
            .approx
            .get(&at)
            .cloned()
            .unwrap_or(Some(HashSet::default()));
    }
    if ctx.visiting.len() > 64 {
        return None;
    }
    ctx.visiting.push(at);
    let mut all: Option<HashSet<TermId>> = Some(HashSet::default());
    for r in rules {
        let values = match r.head.args.get(at.1) {
            Some(NTerm::Var(u)) => domain_in(g, r, *u, ctx),
            Some(t) if t.is_ground() => Some(join::ground_term(t, &g.store).into_iter().collect()),
            // A term with variables inside: its values are not listed here.
            _ => None,
        };
        match (&mut all, values) {
            (Some(all), Some(values)) => all.extend(values),
            _ => all = None,
        }
    }
    ctx.visiting.pop();
    if ctx.approx.get(&at) != Some(&all) {
        ctx.changed = true;
        ctx.approx.insert(at, all.clone());
    }
    all
}

/// What the head atoms of a join rule were last computed from ([`head_atoms_if_grown`]): the
/// inputs of its head variables' domains ([`DomainInputs`]) and the domains.
#[derive(Default)]
pub(crate) struct HeadsSeen {
    inputs: Option<DomainInputs>,
    domains: Option<Vec<Vec<TermId>>>,
}

/// What the domains of a rule's variables ([`domain`]) are computed from: the number of atoms of
/// each relation its positive literals read (through the rules of the lazy relations they
/// read, transitively), and the ground head arguments of those lazy rules as the store knows
/// them. Atoms are only ever added, so equal inputs mean equal domains.
#[derive(Clone, Debug, PartialEq, Eq)]
struct DomainInputs {
    /// Per positive literal, its relation, the shape of its first compound argument (position,
    /// functor, arity), and how many atoms have that shape ([`matching_atoms`]).
    sizes: Vec<(LiteralShape, usize)>,
    ground_args: Vec<Option<TermId>>,
}

/// A literal's relation and the shape of its first compound argument (position, functor, arity).
type LiteralShape = (RelKey, Option<(u32, crate::ast::Sym, u32)>);

fn domain_inputs(g: &Grounder<'_>, rule: &NRule) -> DomainInputs {
    let mut inputs = DomainInputs {
        sizes: Vec::new(),
        ground_args: Vec::new(),
    };
    let mut visited: HashSet<RelKey> = HashSet::default();
    let mut stack: Vec<&NRule> = vec![rule];
    while let Some(r) = stack.pop() {
        for l in &r.body {
            let NLit::Pos(a) = l else { continue };
            let rel = rel_key(a);
            match g.lazy.get(&rel) {
                Some(_) if !visited.insert(rel) => {}
                Some(rules) => {
                    for lr in rules {
                        inputs.ground_args.extend(
                            lr.head
                                .args
                                .iter()
                                .filter(|t| !matches!(t, NTerm::Var(_)) && t.is_ground())
                                .map(|t| join::ground_term(t, &g.store)),
                        );
                        stack.push(lr);
                    }
                }
                None => inputs.sizes.push(matching_atoms(g, a)),
            }
        }
    }
    inputs
}

/// How many atoms of its relation literal `a` may match: those of the shape of its first
/// compound argument (the `(cell ..)` atoms of `(true (cell ?x ?y ?p))`, not every `true` atom,
/// of which a step counter adds one every round), else all of them.
fn matching_atoms(g: &Grounder<'_>, a: &NAtom) -> (LiteralShape, usize) {
    let rel = rel_key(a);
    for (pos, t) in a.args.iter().enumerate() {
        if let NTerm::Func(f, args) = t {
            let shape = (pos as u32, *f, args.len() as u32);
            let n = g.db.atoms_shaped(rel, shape.0, shape.1, shape.2).len();
            return ((rel, Some(shape)), n);
        }
    }
    ((rel, None), g.db.atoms(rel).len())
}

/// The head atoms a join rule may derive (see the module documentation), or none when the
/// domains of the head variables are those of `seen`: the fixpoint asks every round, and a
/// relaxed reachability may take hundreds of rounds in which the domains stay the same
/// (chess's step counter: 200 rounds, each recomputing the 262,144 head atoms of
/// `threatened_with_capture`, 40% of the CPU time of grounding). The domains are not even
/// computed again when the relations they are computed from have not grown (chess: computing
/// them every round was a fifth of the CPU time of gdlc).
pub(crate) fn head_atoms_if_grown(
    g: &mut Grounder<'_>,
    rule: &NRule,
    seen: &mut HeadsSeen,
) -> Result<Vec<TermId>, GroundError> {
    let inputs = domain_inputs(g, rule);
    if seen.inputs.as_ref() == Some(&inputs) {
        return Ok(Vec::new());
    }
    let (head_vars, domains) = head_domains(g, rule)?;
    seen.inputs = Some(inputs);
    if seen.domains.as_ref() == Some(&domains) {
        return Ok(Vec::new());
    }
    let heads = product(g, rule, &head_vars, &domains);
    seen.domains = Some(domains);
    Ok(heads)
}

/// The head variables of a join rule and the values each may take (sorted), within
/// [`super::GroundOptions::max_join_heads`] combinations.
#[allow(clippy::type_complexity)]
fn head_domains(
    g: &Grounder<'_>,
    rule: &NRule,
) -> Result<(Vec<u32>, Vec<Vec<TermId>>), GroundError> {
    let mut head_vars = Vec::new();
    rule.head.for_each_var(&mut |v| {
        if !head_vars.contains(&v) {
            head_vars.push(v)
        }
    });
    let mut domains: Vec<Vec<TermId>> = Vec::new();
    for &v in &head_vars {
        let Some(d) = domain(g, rule, v) else {
            return Err(unsupported(rule, "a head variable takes unbounded values"));
        };
        let mut d: Vec<TermId> = d.into_iter().collect();
        d.sort_unstable();
        domains.push(d);
    }
    let total = domains
        .iter()
        .try_fold(1usize, |n, d| n.checked_mul(d.len()))
        .unwrap_or(usize::MAX);
    if total > g.options.max_join_heads {
        let mut e = unsupported(rule, "its head has too many possible atoms");
        // Asked on demand at run time instead, its atoms need not be listed.
        if !super::is_game_output(rule.head.rel) {
            e.defer = Some(rel_key(&rule.head));
        }
        return Err(e);
    }
    Ok((head_vars, domains))
}

/// The head atoms of `rule` for every combination of `domains` of `head_vars`.
fn product(
    g: &mut Grounder<'_>,
    rule: &NRule,
    head_vars: &[u32],
    domains: &[Vec<TermId>],
) -> Vec<TermId> {
    let total = domains.iter().map(Vec::len).product::<usize>();
    let mut out = Vec::with_capacity(total);
    let mut binding: Vec<Option<TermId>> = vec![None; rule.var_names.len()];
    let mut idx = vec![0usize; domains.len()];
    if domains.iter().any(Vec::is_empty) {
        return out;
    }
    loop {
        for (k, &v) in head_vars.iter().enumerate() {
            binding[v as usize] = Some(domains[k][idx[k]]);
        }
        if let Some(a) = join::intern_atom(&rule.head, &binding, &mut g.store) {
            out.push(a);
        }
        // Next combination.
        let mut k = 0;
        loop {
            if k == idx.len() {
                return out;
            }
            idx[k] += 1;
            if idx[k] < domains[k].len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
}

/// Builds the [`GroundJoins`] of a grounding.
#[derive(Default)]
pub(crate) struct JoinBuilder {
    out: GroundJoins,
    lazy_ids: HashMap<RelKey, u32>,
    cells: usize,
}

impl JoinBuilder {
    pub fn finish(self) -> GroundJoins {
        self.out
    }

    /// Adds join rule `rule`, whose head atoms are in the database.
    pub fn join(&mut self, g: &Grounder<'_>, rule: &NRule) -> Result<(), GroundError> {
        let mut head_vars = Vec::new();
        rule.head.for_each_var(&mut |v| {
            if !head_vars.contains(&v) {
                head_vars.push(v)
            }
        });
        let steps = self.plan(g, rule, &[])?;
        let mut outputs = Vec::new();
        let mut keys = Vec::new();
        for &atom in g.db.atoms(rel_key(&rule.head)) {
            if let Some(vals) = join::match_atom(&rule.head, atom, &g.store) {
                let key: Option<Vec<TermId>> = head_vars
                    .iter()
                    .map(|&v| vals.get(v as usize).copied().flatten())
                    .collect();
                if let Some(key) = key {
                    outputs.push(atom);
                    keys.push(key);
                }
            }
        }
        self.out.joins.push(GroundJoin {
            rule: Rule {
                vars: rule.var_names.len() as u32,
                head: head_vars.iter().map(|&v| Arg::Var(v)).collect(),
                steps,
            },
            outputs,
            keys,
            origin: rule.origin,
        });
        Ok(())
    }

    /// The number of lazy relation `rel`, its rules compiled on first use.
    fn lazy(&mut self, g: &Grounder<'_>, rel: RelKey, depth: u32) -> Result<u32, GroundError> {
        if let Some(&id) = self.lazy_ids.get(&rel) {
            return Ok(id);
        }
        let id = self.out.lazy.len() as u32;
        self.lazy_ids.insert(rel, id);
        self.out.lazy.push(Vec::new());
        let rules = g.lazy.get(&rel).cloned().unwrap_or_default();
        let mut compiled = Vec::new();
        for r in &rules {
            if depth > 16 {
                return Err(unsupported(r, "lazy relations nest too deep"));
            }
            let mut head = Vec::new();
            let mut bound = Vec::new();
            for t in &r.head.args {
                let a = const_or_var(t, g)
                    .ok_or_else(|| unsupported(r, "a lazy relation's head nests variables"))?;
                if let Arg::Var(v) = a {
                    bound.push(v);
                }
                head.push(a);
            }
            let steps = self.plan_at(g, r, &bound, depth + 1)?;
            compiled.push(Rule {
                vars: r.var_names.len() as u32,
                head,
                steps,
            });
        }
        self.out.lazy[id as usize] = compiled;
        Ok(id)
    }

    fn plan(
        &mut self,
        g: &Grounder<'_>,
        rule: &NRule,
        bound: &[u32],
    ) -> Result<Vec<Step>, GroundError> {
        self.plan_at(g, rule, bound, 0)
    }

    /// The steps of `rule`'s body with the variables `bound` given: scans of the positive
    /// literals (the most bound first), the other literals as soon as their variables are
    /// bound.
    fn plan_at(
        &mut self,
        g: &Grounder<'_>,
        rule: &NRule,
        bound: &[u32],
        depth: u32,
    ) -> Result<Vec<Step>, GroundError> {
        let mut bound: Vec<u32> = bound.to_vec();
        let mut left: Vec<usize> = (0..rule.body.len()).collect();
        let mut steps = Vec::new();
        let is_lazy = |a: &NAtom| g.lazy.contains_key(&rel_key(a));
        let order = scan_order(g, rule, &bound);
        loop {
            // Filters whose variables are bound.
            let mut placed = true;
            while placed {
                placed = false;
                let mut k = 0;
                while k < left.len() {
                    let l = &rule.body[left[k]];
                    let ready = l.distinct_vars().iter().all(|v| bound.contains(v));
                    let filter = match l {
                        NLit::Pos(a) => is_lazy(a),
                        _ => true,
                    };
                    if ready && filter {
                        steps.push(self.filter(g, rule, l, depth)?);
                        left.remove(k);
                        placed = true;
                    } else {
                        k += 1;
                    }
                }
            }
            // The next scan, in the order expected to cost least ([`scan_order`]).
            let next = order.iter().find_map(|i| left.iter().position(|l| l == i));
            let Some(k) = next else {
                // A lazy literal with free variables: each is bound to the values it can take
                // (a static table), and the literal is then a test.
                let free = left.iter().find_map(|&i| match &rule.body[i] {
                    NLit::Pos(a) if is_lazy(a) => rule.body[i]
                        .distinct_vars()
                        .into_iter()
                        .find(|v| !bound.contains(v)),
                    _ => None,
                });
                let Some(v) = free else { break };
                let values = domain(g, rule, v)
                    .ok_or_else(|| unsupported(rule, "a literal's variables are never bound"))?;
                let mut values: Vec<TermId> = values.into_iter().collect();
                values.sort_unstable();
                let table = self.push_table(
                    rule,
                    Table {
                        width: 1,
                        signals: vec![ALWAYS; values.len()],
                        rows: values,
                    },
                )?;
                bound.push(v);
                steps.push(Step::Scan {
                    table,
                    cols: vec![v],
                    bound: 0,
                });
                continue;
            };
            let i = left.remove(k);
            let NLit::Pos(a) = &rule.body[i] else { break };
            let cols = rule.body[i].distinct_vars();
            let table = self.table(g, rule, a)?;
            let mut mask = 0u64;
            for (c, v) in cols.iter().enumerate() {
                if bound.contains(v) {
                    mask |= 1 << c;
                }
            }
            for &v in &cols {
                if !bound.contains(&v) {
                    bound.push(v);
                }
            }
            steps.push(Step::Scan {
                table,
                cols,
                bound: mask,
            });
        }
        if !left.is_empty() {
            return Err(unsupported(rule, "a literal's variables are never bound"));
        }
        Ok(steps)
    }

    /// The step of a literal whose variables are all bound.
    fn filter(
        &mut self,
        g: &Grounder<'_>,
        rule: &NRule,
        l: &NLit,
        depth: u32,
    ) -> Result<Step, GroundError> {
        let arg = |t: &NTerm| -> Result<Arg, GroundError> {
            const_or_var(t, g).ok_or_else(|| unsupported(rule, "a test nests variables in a term"))
        };
        Ok(match l {
            NLit::Pos(a) | NLit::Neg(a) if g.lazy.contains_key(&rel_key(a)) => {
                let args = a.args.iter().map(arg).collect::<Result<_, _>>()?;
                Step::Call {
                    relation: self.lazy(g, rel_key(a), depth)?,
                    args,
                    negated: matches!(l, NLit::Neg(_)),
                }
            }
            NLit::Neg(a) => Step::Absent {
                table: self.table(g, rule, a)?,
                cols: l.distinct_vars(),
            },
            NLit::Distinct(x, y) | NLit::Equal(x, y) => Step::Compare {
                a: arg(x)?,
                b: arg(y)?,
                equal: matches!(l, NLit::Equal(..)),
            },
            NLit::Pos(_) => {
                return Err(unsupported(rule, "internal: a scan planned as a filter"));
            }
        })
    }

    /// The table of the atoms literal pattern `a` can match.
    fn table(&mut self, g: &Grounder<'_>, rule: &NRule, a: &NAtom) -> Result<u32, GroundError> {
        let cols = NLit::Pos(a.clone()).distinct_vars();
        let rel = rel_key(a);
        let dynamic = g.dynamic.contains(&rel);
        let mut t = Table {
            width: cols.len() as u32,
            rows: Vec::new(),
            signals: Vec::new(),
        };
        for &atom in g.db.atoms(rel) {
            let Some(vals) = join::match_atom(a, atom, &g.store) else {
                continue;
            };
            for &v in &cols {
                t.rows
                    .push(vals.get(v as usize).copied().flatten().unwrap_or(0));
            }
            t.signals.push(if dynamic { atom } else { ALWAYS });
        }
        self.push_table(rule, t)
    }

    /// Adds table `t` (read by `rule`), within the limit on cells.
    fn push_table(&mut self, rule: &NRule, t: Table) -> Result<u32, GroundError> {
        self.cells += t.rows.len() + t.signals.len();
        if self.cells > MAX_CELLS {
            return Err(unsupported(rule, "its tables are too large"));
        }
        self.out.tables.push(t);
        Ok(self.out.tables.len() as u32 - 1)
    }
}
