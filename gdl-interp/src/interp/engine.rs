//! The evaluation engine: relations, planned rules grouped in components, and the epochs that
//! say which components are up to date for the loaded state and joint move.

use crate::diag::codes;
use std::collections::{HashMap, HashSet};

use gdl_runtime::sexpr::{self, Node, NodeId, SExprs};

use crate::ast::{Program, Sym, Symbols, Term, kw};
use crate::diag::Diagnostic;
use crate::normalize::{NLit, NProgram, NRule, NTerm};

use super::budget::{Exceeded, Fault, Limits};
use super::deps::{self, Phase};
use super::exec;
use super::plan::{self, Catalog, Plan, PlanRequest, RelId, RelKey, Step};
use super::relation::Relation;
use crate::terms::{TermId, TermStore};

#[derive(Debug)]
struct Component {
    phase: Phase,
    recursive: bool,
    /// The relations its rules define.
    heads: Vec<RelId>,
    /// One plan per rule, reading every row.
    base: Vec<Plan>,
    /// For recursive components: one plan per rule and body literal of a relation the
    /// component defines, that literal reading only the previous round's new rows.
    delta: Vec<Plan>,
    /// The epoch of the last evaluation.
    done: Option<u64>,
}

#[derive(Debug)]
pub struct Engine {
    pub symbols: Symbols,
    pub store: TermStore,
    pub rels: Vec<Relation>,
    rel_ids: HashMap<RelKey, RelId>,
    /// The epoch each relation was last cleared in.
    rel_epoch: Vec<u64>,
    comps: Vec<Component>,
    /// For each relation, the components that a query of it needs, in evaluation order.
    needs: HashMap<RelId, Vec<usize>>,
    true_rel: RelId,
    does_rel: RelId,
    /// The split relations of `true` and `does` (see [`RelKey`]).
    splits: HashMap<RelKey, RelId>,
    /// The static relations evaluated in full.
    materialized: HashSet<RelId>,
    epoch: u64,
    state_epoch: u64,
    move_epoch: u64,
    loaded_state: Option<Vec<TermId>>,
    loaded_joint: Option<Vec<TermId>>,
    delta_start: Vec<u32>,
    out: Vec<TermId>,
    limits: Limits,
    /// The first query that exceeded the limits; nothing is evaluated after it.
    fault: Option<Fault>,
}

/// Relations by key, with size hints for planning.
struct Cat<'a> {
    rels: &'a mut Vec<Relation>,
    rel_ids: &'a mut HashMap<RelKey, RelId>,
    /// Size hints of the relations whose size is not known when planning.
    hints: &'a HashMap<RelId, f64>,
}

impl Catalog for Cat<'_> {
    fn relation(&mut self, key: RelKey) -> RelId {
        let next = self.rels.len();
        let id = *self.rel_ids.entry(key).or_insert(next);
        if id == next {
            let arity = match key {
                RelKey::Plain(_, n) | RelKey::True(_, n) => n,
                RelKey::Does(_, n) => n + 1,
            };
            self.rels.push(Relation::new(arity));
        }
        id
    }

    fn size_hint(&self, rel: RelId) -> f64 {
        self.hints
            .get(&rel)
            .copied()
            .unwrap_or(self.rels[rel].len() as f64)
    }
}

const STATIC_EPOCH: u64 = 0;

/// Options of [`Engine::build`].
pub struct BuildOptions<'a> {
    /// The demand relations of the magic-sets rewrite: a rule whose first literal reads one
    /// evaluates it first.
    pub guards: &'a HashSet<Sym>,
    /// How many candidate rows the evaluation of one static component may visit; a component
    /// that needs more is left unevaluated (see [`Engine::materialized`]).
    pub static_budget: u64,
    /// The limits of every evaluation. With `static_budget` at `u64::MAX`, a static
    /// component that exceeds them fails the build with a diagnostic naming the rule.
    pub limits: Limits,
}

impl Engine {
    pub fn relation(&mut self, name: Sym, arity: usize) -> RelId {
        let hints = HashMap::new();
        let mut cat = Cat {
            rels: &mut self.rels,
            rel_ids: &mut self.rel_ids,
            hints: &hints,
        };
        cat.relation(RelKey::Plain(name, arity))
    }

    /// Plans `nprog` (whose rules come from `program`) and evaluates its static components.
    pub fn build(
        nprog: &NProgram,
        program: &Program,
        options: &BuildOptions<'_>,
    ) -> Result<Engine, Vec<Diagnostic>> {
        let guards = options.guards;
        let rc = deps::components(&nprog.rules).map_err(|cycles| {
            cycles
                .iter()
                .map(|c| {
                    let rule = &program.rules[nprog.rules[c.rule].origin];
                    Diagnostic::error(
                        codes::NEGATIVE_CYCLE,
                        rule.span,
                        "this rule depends on its own negation: the description is not stratified",
                    )
                })
                .collect::<Vec<_>>()
        })?;
        let mut engine = Engine {
            symbols: nprog.symbols.clone(),
            store: TermStore::default(),
            rels: Vec::new(),
            rel_ids: HashMap::new(),
            rel_epoch: Vec::new(),
            comps: Vec::new(),
            needs: HashMap::new(),
            true_rel: 0,
            does_rel: 0,
            splits: HashMap::new(),
            materialized: HashSet::new(),
            epoch: STATIC_EPOCH,
            state_epoch: 1,
            move_epoch: 2,
            loaded_state: None,
            loaded_joint: None,
            delta_start: Vec::new(),
            out: Vec::new(),
            limits: options.limits,
            fault: None,
        };
        engine.true_rel = engine.relation(kw::TRUE, 1);
        engine.does_rel = engine.relation(kw::DOES, 2);
        // Size hints for the relations whose size is unknown at planning time.
        let mut hints: HashMap<RelId, f64> = HashMap::new();
        for (c, members) in rc.members.iter().enumerate() {
            for &ri in members {
                let h = &nprog.rules[ri].head;
                let rel = engine.relation(h.rel, h.args.len());
                if rc.phase[c] != Phase::Static {
                    hints.insert(rel, 100.0);
                }
            }
        }
        hints.insert(engine.true_rel, 100.0);
        hints.insert(engine.does_rel, 4.0);
        for rule in &nprog.rules {
            for lit in &rule.body {
                if let NLit::Pos(a) | NLit::Neg(a) = lit {
                    let key = match (a.rel, &a.args[..]) {
                        (kw::TRUE, [NTerm::Func(f, args)]) => RelKey::True(*f, args.len()),
                        (kw::TRUE, [NTerm::Const(c)]) => RelKey::True(*c, 0),
                        (kw::DOES, [_, NTerm::Func(f, args)]) => RelKey::Does(*f, args.len()),
                        (kw::DOES, [_, NTerm::Const(c)]) => RelKey::Does(*c, 0),
                        _ => continue,
                    };
                    let hints_empty = HashMap::new();
                    let mut cat = Cat {
                        rels: &mut engine.rels,
                        rel_ids: &mut engine.rel_ids,
                        hints: &hints_empty,
                    };
                    let rel = cat.relation(key);
                    hints.insert(
                        rel,
                        if matches!(key, RelKey::True(..)) {
                            10.0
                        } else {
                            1.0
                        },
                    );
                    engine.splits.insert(key, rel);
                }
            }
        }
        for rule in &nprog.rules {
            if guards.contains(&rule.head.rel) {
                let rel = engine.relation(rule.head.rel, rule.head.args.len());
                hints.insert(rel, 1.0);
            }
        }
        // Plan component by component, evaluating static ones at once, so that the sizes of
        // static relations guide the plans of later components.
        let mut unsafe_rules = Vec::new();
        let mut incomplete = HashSet::new();
        // What is left of each relation's budget.
        let mut spent: HashMap<RelId, u64> = HashMap::new();
        for (c, members) in rc.members.iter().enumerate() {
            let mut comp = Component {
                phase: rc.phase[c],
                recursive: rc.recursive[c],
                heads: Vec::new(),
                base: Vec::new(),
                delta: Vec::new(),
                done: None,
            };
            let mut cat = Cat {
                rels: &mut engine.rels,
                rel_ids: &mut engine.rel_ids,
                hints: &hints,
            };
            for &ri in members {
                let h = &nprog.rules[ri].head;
                let head = cat.relation(RelKey::Plain(h.rel, h.args.len()));
                if !comp.heads.contains(&head) {
                    comp.heads.push(head);
                }
            }
            for &ri in members {
                let rule = &nprog.rules[ri];
                let first = guard_of(rule, guards);
                match plan::plan(
                    &PlanRequest {
                        rule,
                        delta: None,
                        first,
                    },
                    &mut engine.store,
                    &mut cat,
                ) {
                    Ok(p) => comp.base.push(p),
                    Err(u) => {
                        unsafe_rules.push(u.origin);
                        continue;
                    }
                }
                if !comp.recursive {
                    continue;
                }
                for (li, lit) in rule.body.iter().enumerate() {
                    if let NLit::Pos(a) = lit
                        && comp
                            .heads
                            .contains(&cat.relation(RelKey::Plain(a.rel, a.args.len())))
                    {
                        let req = PlanRequest {
                            rule,
                            delta: Some(li),
                            first,
                        };
                        if let Ok(p) = plan::plan(&req, &mut engine.store, &mut cat) {
                            comp.delta.push(p);
                        }
                    }
                }
            }
            for p in comp.base.iter_mut().chain(comp.delta.iter_mut()) {
                for s in &mut p.steps {
                    if let Step::Scan {
                        rel, mask, index, ..
                    } = s
                        && *mask != 0
                    {
                        *index = Some(engine.rels[*rel].ensure_index(*mask));
                    }
                }
            }
            engine.comps.push(comp);
            engine.rel_epoch.resize(engine.rels.len(), u64::MAX);
            engine.delta_start.resize(engine.rels.len(), 0);
            if rc.phase[c] == Phase::Static {
                // The budget is shared by all components of one relation.
                let heads = engine.comps[c].heads.clone();
                let mut budget = heads
                    .iter()
                    .map(|h| *spent.entry(*h).or_insert(options.static_budget))
                    .min()
                    .unwrap_or(options.static_budget);
                let ready = rc.inputs[c].iter().all(|i| !incomplete.contains(i));
                let complete = match ready.then(|| engine.eval(c, STATIC_EPOCH, &mut budget)) {
                    Some(Ok(())) => true,
                    None => false,
                    // Probing: a component over the budget is left to demand.
                    Some(Err(_)) if options.static_budget != u64::MAX => false,
                    Some(Err(fault)) => return Err(vec![fault_diagnostic(&fault, program)]),
                };
                for h in heads {
                    spent.insert(h, budget);
                }
                if complete {
                    engine
                        .materialized
                        .extend(engine.comps[c].heads.iter().copied());
                } else {
                    incomplete.insert(c);
                    engine.comps[c].done = None;
                }
            }
        }
        for &c in &incomplete {
            for h in &engine.comps[c].heads {
                engine.materialized.remove(h);
            }
        }
        if !unsafe_rules.is_empty() {
            unsafe_rules.sort_unstable();
            unsafe_rules.dedup();
            return Err(unsafe_rules
                .into_iter()
                .map(|o| {
                    Diagnostic::error(
                        codes::UNSAFE_VARIABLE,
                        program.rules[o].span,
                        "a variable of this rule is never bound by a positive literal",
                    )
                })
                .collect());
        }
        // What a query of each relation needs: its components and their inputs, in order.
        let mut producers: HashMap<RelId, Vec<usize>> = HashMap::new();
        for (c, comp) in engine.comps.iter().enumerate() {
            for &h in &comp.heads {
                producers.entry(h).or_default().push(c);
            }
        }
        for (&rel, starts) in &producers {
            let mut need = vec![false; engine.comps.len()];
            let mut stack = starts.clone();
            while let Some(c) = stack.pop() {
                if !std::mem::replace(&mut need[c], true) {
                    stack.extend(&rc.inputs[c]);
                }
            }
            engine
                .needs
                .insert(rel, (0..need.len()).filter(|&c| need[c]).collect());
        }
        engine.rel_epoch.resize(engine.rels.len(), u64::MAX);
        engine.delta_start.resize(engine.rels.len(), 0);
        Ok(engine)
    }

    /// A ground AST term as a term id.
    pub fn intern_ground(&mut self, t: &Term) -> Option<TermId> {
        match t {
            Term::Var { .. } => None,
            Term::Const { name, .. } => Some(self.store.intern(*name, &[])),
            Term::Func { name, args, .. } => {
                let ids: Option<Vec<TermId>> = args.iter().map(|a| self.intern_ground(a)).collect();
                Some(self.store.intern(*name, &ids?))
            }
        }
    }

    /// Evaluates component `c` for `epoch`, visiting at most `budget` candidate rows (and
    /// at most the step limit).
    fn eval(&mut self, c: usize, epoch: u64, budget: &mut u64) -> Result<(), Fault> {
        let t0 = std::time::Instant::now();
        let result = self.eval_inner(c, epoch, budget);
        if tracing::enabled!(tracing::Level::TRACE) {
            let comp = &self.comps[c];
            let names: Vec<String> = comp.heads.iter().map(|&r| self.rel_name(r)).collect();
            tracing::trace!(component = c, phase = ?comp.phase, elapsed = ?t0.elapsed(), ?result, relations = ?names, "evaluated");
        }
        result
    }

    /// `name/arity` of a relation (for messages).
    fn rel_name(&self, rel: RelId) -> String {
        let key = self
            .rel_ids
            .iter()
            .find(|(_, v)| **v == rel)
            .map(|(k, _)| *k);
        match key {
            Some(RelKey::Plain(s, a) | RelKey::True(s, a) | RelKey::Does(s, a)) => {
                format!("{}/{}", self.symbols.name(s), a)
            }
            None => format!("#{rel}"),
        }
    }

    fn eval_inner(&mut self, c: usize, epoch: u64, budget: &mut u64) -> Result<(), Fault> {
        let limits = self.limits;
        let mut steps = (*budget).min(limits.max_query_steps);
        let given = steps;
        let result = self.eval_plans(c, epoch, &mut steps);
        *budget -= given - steps;
        result.map_err(|(exceeded, plan)| {
            let p = match plan {
                PlanRef::Base(i) => &self.comps[c].base[i],
                PlanRef::Delta(i) => &self.comps[c].delta[i],
            };
            let (rule, head) = (p.origin, p.head_rel);
            Fault {
                exceeded,
                limit: match exceeded {
                    Exceeded::Steps => given,
                    Exceeded::Terms => limits.max_terms as u64,
                    Exceeded::Cells => limits.max_relation_cells as u64,
                },
                relation: self.rel_name(head),
                rule,
            }
        })
    }

    fn eval_plans(
        &mut self,
        c: usize,
        epoch: u64,
        steps: &mut u64,
    ) -> Result<(), (Exceeded, PlanRef)> {
        let Engine {
            comps,
            rels,
            store,
            delta_start,
            out,
            rel_epoch,
            limits,
            ..
        } = self;
        let comp = &mut comps[c];
        comp.done = Some(epoch);
        for &r in &comp.heads {
            if rel_epoch[r] != epoch {
                rels[r].clear();
                rel_epoch[r] = epoch;
            }
            delta_start[r] = rels[r].len() as u32;
        }
        let mut w = Work {
            rels,
            store,
            delta_start,
            out,
            steps,
            limits: *limits,
        };
        for (i, p) in comp.base.iter().enumerate() {
            run_and_insert(p, &mut w).map_err(|e| (e, PlanRef::Base(i)))?;
        }
        if !comp.recursive {
            return Ok(());
        }
        loop {
            let mut grew = false;
            let before: Vec<u32> = comp.heads.iter().map(|&r| w.rels[r].len() as u32).collect();
            if comp
                .heads
                .iter()
                .zip(&before)
                .all(|(&r, &b)| w.delta_start[r] == b)
            {
                break;
            }
            for (i, p) in comp.delta.iter().enumerate() {
                run_and_insert(p, &mut w).map_err(|e| (e, PlanRef::Delta(i)))?;
            }
            for (&r, &b) in comp.heads.iter().zip(&before) {
                grew |= w.rels[r].len() as u32 > b;
                w.delta_start[r] = b;
            }
            if !grew {
                break;
            }
        }
        Ok(())
    }

    /// Evaluates what a query of `rel` needs, for the loaded state and joint move. After a
    /// fault (here or before), nothing is evaluated and the fault is returned.
    pub fn ensure(&mut self, rel: RelId) -> Result<(), Fault> {
        if let Some(f) = &self.fault {
            return Err(f.clone());
        }
        let Some(need) = self.needs.get(&rel) else {
            return Ok(());
        };
        for i in 0..need.len() {
            let c = self.needs[&rel][i];
            let want = match self.comps[c].phase {
                Phase::Static => STATIC_EPOCH,
                Phase::State => self.state_epoch,
                Phase::Move => self.move_epoch,
            };
            if self.comps[c].done != Some(want)
                && let Err(f) = self.eval(c, want, &mut u64::MAX.clone())
            {
                // What was partly evaluated is not to be read again.
                self.comps[c].done = None;
                self.fault = Some(f.clone());
                return Err(f);
            }
        }
        Ok(())
    }

    /// The first query that exceeded the limits, if one did.
    pub fn fault(&self) -> Option<&Fault> {
        self.fault.as_ref()
    }

    /// The static relations (name, arity) that were evaluated in full within the budget.
    pub fn materialized(&self) -> HashSet<(Sym, usize)> {
        self.rel_ids
            .iter()
            .filter(|(_, r)| self.materialized.contains(r))
            .filter_map(|(k, _)| match k {
                RelKey::Plain(s, a) => Some((*s, *a)),
                _ => None,
            })
            .collect()
    }

    /// The rows of `rel` as they stand after [`Engine::ensure`]; empty when nothing defines
    /// `rel`.
    pub fn rows(&self, rel: RelId) -> &Relation {
        &self.rels[rel]
    }

    pub fn load_state(&mut self, state: &[TermId]) {
        if self.loaded_state.as_deref() == Some(state) {
            return;
        }
        for &r in self.splits.values() {
            self.rels[r].clear();
        }
        self.rels[self.true_rel].clear();
        for &t in state {
            self.rels[self.true_rel].insert(&[t]);
            let (f, args) = (self.store.functor(t), self.store.args(t));
            if let Some(&r) = self.splits.get(&RelKey::True(f, args.len())) {
                self.rels[r].insert(args);
            }
        }
        self.epoch += 2;
        self.state_epoch = self.epoch + 1;
        self.move_epoch = self.epoch + 2;
        self.loaded_state = Some(state.to_vec());
        self.loaded_joint = None;
    }

    pub fn load_joint(&mut self, role_ids: &[TermId], joint: &[TermId]) {
        if self.loaded_joint.as_deref() == Some(joint) {
            return;
        }
        for (&key, &r) in &self.splits {
            if let RelKey::Does(..) = key {
                self.rels[r].clear();
            }
        }
        self.rels[self.does_rel].clear();
        let mut row = Vec::new();
        for (&role, &mv) in role_ids.iter().zip(joint) {
            self.rels[self.does_rel].insert(&[role, mv]);
            let (f, args) = (self.store.functor(mv), self.store.args(mv));
            if let Some(&r) = self.splits.get(&RelKey::Does(f, args.len())) {
                row.clear();
                row.push(role);
                row.extend_from_slice(args);
                self.rels[r].insert(&row);
            }
        }
        self.epoch += 1;
        self.move_epoch = self.epoch + 2;
        self.loaded_joint = Some(joint.to_vec());
    }

    /// Reads a ground term of this game from KIF text; `None` if it is not one (unknown names
    /// cannot occur in any state or move).
    pub fn read_ground(&mut self, text: &str) -> Option<TermId> {
        let tree = sexpr::read(text);
        if !tree.errors.is_empty() {
            return None;
        }
        let [id] = tree.top_level() else { return None };
        self.ground_node(text, &tree, *id, 0)
    }

    fn ground_node(
        &mut self,
        text: &str,
        tree: &SExprs,
        id: NodeId,
        depth: usize,
    ) -> Option<TermId> {
        if depth > crate::parse::MAX_DEPTH {
            return None;
        }
        match tree.node(id) {
            Node::Atom { span } => {
                let name = &text[span.range()];
                if name.starts_with('?') {
                    return None;
                }
                let sym = self.symbols.get(name)?;
                Some(self.store.intern(sym, &[]))
            }
            Node::List { .. } => {
                let (&head, rest) = tree.children(id).split_first()?;
                let name = tree.atom(text, head)?;
                let sym = self.symbols.get(name)?;
                let args: Option<Vec<TermId>> = rest
                    .iter()
                    .map(|&a| self.ground_node(text, tree, a, depth + 1))
                    .collect();
                Some(self.store.intern(sym, &args?))
            }
        }
    }
}

/// A plan of a component, by its place.
#[derive(Clone, Copy, Debug)]
enum PlanRef {
    Base(usize),
    Delta(usize),
}

/// What the plans of one evaluation read and write.
struct Work<'a> {
    rels: &'a mut [Relation],
    store: &'a mut TermStore,
    delta_start: &'a mut [u32],
    out: &'a mut Vec<TermId>,
    steps: &'a mut u64,
    limits: Limits,
}

/// Runs a plan and adds what it derives to its head relation.
fn run_and_insert(p: &Plan, w: &mut Work<'_>) -> Result<(), Exceeded> {
    w.out.clear();
    let found = exec::run(
        p,
        &mut exec::ExecCtx {
            rels: w.rels,
            store: w.store,
            delta_start: w.delta_start,
            out: w.out,
            steps: w.steps,
            max_terms: w.limits.max_terms,
            max_out: w.limits.max_relation_cells,
        },
    )?;
    let arity = p.head.len();
    let rel = &mut w.rels[p.head_rel];
    if arity == 0 {
        if found {
            rel.insert(&[]);
        }
        return Ok(());
    }
    for row in w.out.chunks_exact(arity) {
        rel.insert(row);
    }
    if rel.len().saturating_mul(arity) > w.limits.max_relation_cells {
        return Err(Exceeded::Cells);
    }
    Ok(())
}

/// A fault as a diagnostic at the rule it names.
pub fn fault_diagnostic(fault: &Fault, program: &Program) -> Diagnostic {
    let span = program
        .rules
        .get(fault.rule)
        .map(|r| r.span)
        .unwrap_or_default();
    fault_at(fault, span)
}

/// A fault as a diagnostic at `span`.
pub fn fault_at(fault: &Fault, span: crate::ast::Span) -> Diagnostic {
    Diagnostic::error(codes::INTERPRETER_BUDGET, span, fault.to_string()).with_note(
        "the limits are set by gdlc's --max-query-steps, --max-terms and --max-relation-cells",
    )
}

/// The index of a rule's demand guard (see [`crate::magic`]), if it has one.
fn guard_of(rule: &NRule, guards: &HashSet<Sym>) -> Option<usize> {
    match rule.body.first() {
        Some(NLit::Pos(a)) if guards.contains(&a.rel) => Some(0),
        _ => None,
    }
}
