//! The evaluation engine: relations, planned rules grouped in components, and the epochs that
//! say which components are up to date for the loaded state and joint move.

use std::collections::HashMap;

use gdl_runtime::sexpr::{self, Node, NodeId, SExprs};

use crate::ast::{Program, Sym, Symbols, Term, kw};
use crate::diag::Diagnostic;
use crate::normalize::{NLit, NProgram};

use super::deps::{self, Phase};
use super::exec;
use super::plan::{self, Catalog, Plan, PlanRequest, RelId, Step};
use super::relation::Relation;
use super::store::{TermId, TermStore};

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
    rel_ids: HashMap<(Sym, usize), RelId>,
    /// The epoch each relation was last cleared in.
    rel_epoch: Vec<u64>,
    comps: Vec<Component>,
    /// For each relation, the components that a query of it needs, in evaluation order.
    needs: HashMap<RelId, Vec<usize>>,
    true_rel: RelId,
    does_rel: RelId,
    epoch: u64,
    state_epoch: u64,
    move_epoch: u64,
    loaded_state: Option<Vec<TermId>>,
    loaded_joint: Option<Vec<TermId>>,
    delta_start: Vec<u32>,
    out: Vec<TermId>,
}

/// Relations by name and arity, with size hints for planning.
struct Cat<'a> {
    rels: &'a mut Vec<Relation>,
    rel_ids: &'a mut HashMap<(Sym, usize), RelId>,
    dynamic: &'a HashMap<RelId, bool>,
}

impl Catalog for Cat<'_> {
    fn relation(&mut self, rel: Sym, arity: usize) -> RelId {
        let next = self.rels.len();
        let id = *self.rel_ids.entry((rel, arity)).or_insert(next);
        if id == next {
            self.rels.push(Relation::new(arity));
        }
        id
    }

    fn size_hint(&self, rel: RelId) -> usize {
        if self.dynamic.get(&rel).copied().unwrap_or(true) { 1000 } else { self.rels[rel].len() }
    }
}

const STATIC_EPOCH: u64 = 0;

impl Engine {
    pub fn relation(&mut self, name: Sym, arity: usize) -> RelId {
        let dynamic = HashMap::new();
        let mut cat = Cat { rels: &mut self.rels, rel_ids: &mut self.rel_ids, dynamic: &dynamic };
        cat.relation(name, arity)
    }

    pub fn build(nprog: &NProgram, program: &Program) -> Result<Engine, Vec<Diagnostic>> {
        let rc = deps::components(&nprog.rules).map_err(|cycles| {
            cycles
                .iter()
                .map(|c| {
                    let rule = &program.rules[nprog.rules[c.rule].origin];
                    Diagnostic::error(
                        "negative-cycle",
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
            epoch: STATIC_EPOCH,
            state_epoch: 1,
            move_epoch: 2,
            loaded_state: None,
            loaded_joint: None,
            delta_start: Vec::new(),
            out: Vec::new(),
        };
        engine.true_rel = engine.relation(kw::TRUE, 1);
        engine.does_rel = engine.relation(kw::DOES, 2);
        let mut dynamic: HashMap<RelId, bool> = HashMap::new();
        for (c, members) in rc.members.iter().enumerate() {
            for &ri in members {
                let h = &nprog.rules[ri].head;
                let rel = engine.relation(h.rel, h.args.len());
                *dynamic.entry(rel).or_insert(false) |= rc.phase[c] != Phase::Static;
            }
        }
        dynamic.insert(engine.true_rel, true);
        dynamic.insert(engine.does_rel, true);
        // Plan component by component, evaluating static ones at once, so that the sizes of
        // static relations guide the plans of later components.
        let mut unsafe_rules = Vec::new();
        for (c, members) in rc.members.iter().enumerate() {
            let mut comp = Component {
                phase: rc.phase[c],
                recursive: rc.recursive[c],
                heads: Vec::new(),
                base: Vec::new(),
                delta: Vec::new(),
                done: None,
            };
            let mut cat =
                Cat { rels: &mut engine.rels, rel_ids: &mut engine.rel_ids, dynamic: &dynamic };
            for &ri in members {
                let h = &nprog.rules[ri].head;
                let head = cat.relation(h.rel, h.args.len());
                if !comp.heads.contains(&head) {
                    comp.heads.push(head);
                }
            }
            for &ri in members {
                let rule = &nprog.rules[ri];
                match plan::plan(&PlanRequest { rule, delta: None }, &mut engine.store, &mut cat) {
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
                        && comp.heads.contains(&cat.relation(a.rel, a.args.len()))
                    {
                        let req = PlanRequest { rule, delta: Some(li) };
                        if let Ok(p) = plan::plan(&req, &mut engine.store, &mut cat) {
                            comp.delta.push(p);
                        }
                    }
                }
            }
            for p in comp.base.iter_mut().chain(comp.delta.iter_mut()) {
                for s in &mut p.steps {
                    if let Step::Scan { rel, mask, index, .. } = s
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
                engine.eval(c, STATIC_EPOCH);
            }
        }
        if !unsafe_rules.is_empty() {
            unsafe_rules.sort_unstable();
            unsafe_rules.dedup();
            return Err(unsafe_rules
                .into_iter()
                .map(|o| {
                    Diagnostic::error(
                        "unsafe-variable",
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
            engine.needs.insert(rel, (0..need.len()).filter(|&c| need[c]).collect());
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

    /// Evaluates component `c` for `epoch`.
    fn eval(&mut self, c: usize, epoch: u64) {
        let Engine { comps, rels, store, delta_start, out, rel_epoch, .. } = self;
        let comp = &mut comps[c];
        comp.done = Some(epoch);
        for &r in &comp.heads {
            if rel_epoch[r] != epoch {
                rels[r].clear();
                rel_epoch[r] = epoch;
            }
            delta_start[r] = rels[r].len() as u32;
        }
        for p in &comp.base {
            run_and_insert(p, rels, store, delta_start, out);
        }
        if !comp.recursive {
            return;
        }
        loop {
            let mut grew = false;
            let before: Vec<u32> = comp.heads.iter().map(|&r| rels[r].len() as u32).collect();
            if comp.heads.iter().zip(&before).all(|(&r, &b)| delta_start[r] == b) {
                break;
            }
            for p in &comp.delta {
                run_and_insert(p, rels, store, delta_start, out);
            }
            for (&r, &b) in comp.heads.iter().zip(&before) {
                grew |= rels[r].len() as u32 > b;
                delta_start[r] = b;
            }
            if !grew {
                break;
            }
        }
    }

    /// Evaluates what a query of `rel` needs, for the loaded state and joint move.
    pub fn ensure(&mut self, rel: RelId) {
        let Some(need) = self.needs.get(&rel) else { return };
        for i in 0..need.len() {
            let c = self.needs[&rel][i];
            let want = match self.comps[c].phase {
                Phase::Static => STATIC_EPOCH,
                Phase::State => self.state_epoch,
                Phase::Move => self.move_epoch,
            };
            if self.comps[c].done != Some(want) {
                self.eval(c, want);
            }
        }
    }

    /// Whether `rel` is defined by rules the engine evaluates.
    pub fn is_derived(&self, rel: RelId) -> bool {
        self.needs.contains_key(&rel)
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
        let r = &mut self.rels[self.true_rel];
        r.clear();
        for &t in state {
            r.insert(&[t]);
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
        let r = &mut self.rels[self.does_rel];
        r.clear();
        for (&role, &mv) in role_ids.iter().zip(joint) {
            r.insert(&[role, mv]);
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

    fn ground_node(&mut self, text: &str, tree: &SExprs, id: NodeId, depth: usize) -> Option<TermId> {
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
                let args: Option<Vec<TermId>> =
                    rest.iter().map(|&a| self.ground_node(text, tree, a, depth + 1)).collect();
                Some(self.store.intern(sym, &args?))
            }
        }
    }
}

fn run_and_insert(
    p: &Plan,
    rels: &mut [Relation],
    store: &mut TermStore,
    delta_start: &[u32],
    out: &mut Vec<TermId>,
) {
    out.clear();
    let found = exec::run(p, &mut exec::ExecCtx { rels, store, delta_start, out });
    let arity = p.head.len();
    let rel = &mut rels[p.head_rel];
    if arity == 0 {
        if found {
            rel.insert(&[]);
        }
        return;
    }
    for row in out.chunks_exact(arity) {
        rel.insert(row);
    }
}
