//! The reference interpreter: the semantics of GDL, by bottom-up evaluation.
//!
//! It defines what the compiled code must compute. The description is normalised
//! ([`crate::normalize`]), its relations are split into strongly connected components in
//! dependency order, and each component is evaluated semi-naively (a recursive component
//! re-reads only the rows its previous round added) with hash-indexed joins planned once
//! (`plan`). Components are of three phases:
//!
//! - *static*: independent of `true` and `does`; evaluated once, on first use;
//! - *state*: depend on `true`; evaluated once per state, only those a query needs;
//! - *move*: depend on `does`; evaluated once per state and joint move.
//!
//! Ground terms are hash-consed ([`TermStore`]), so a move is a [`TermId`] and a state a sorted
//! list of them.

mod budget;
pub mod declared;
mod deps;
pub mod embedded;
mod engine;
mod exec;
mod plan;
mod relation;

use std::cell::RefCell;

use gdl_runtime::{Game, RoleIndex};

use rustc_hash::FxHashSet as HashSet;

use crate::ast::{Program, RuleKind, Sym, kw};
use crate::diag::Diagnostic;
use crate::normalize::{NormalizeOptions, normalize};

pub use crate::terms::{TermId, TermStore};
pub use budget::{Exceeded, Fault, Limits};
use declared::Declaration;
use engine::{BuildOptions, Engine};
use plan::RelId;

/// The reference interpreter of one game description.
#[derive(Debug)]
pub struct Interpreter {
    engine: RefCell<Engine>,
    roles: Vec<String>,
    role_ids: Vec<TermId>,
    legal_rel: RelId,
    next_rel: RelId,
    goal_rel: RelId,
    terminal_rel: RelId,
    sees_rel: RelId,
    /// The span of each rule of the program (to locate a fault).
    rule_spans: Vec<crate::ast::Span>,
    /// What `base` and `input` declare ([`declared`]): the facts of `base`
    /// and per role the moves of `input`, when given.
    declared: Declared,
}

/// The declarations as sets of terms.
#[derive(Debug, Default)]
struct Declared {
    kinds: gdl_runtime::Declarations,
    base: HashSet<TermId>,
    input: Vec<HashSet<TermId>>,
}

impl Interpreter {
    /// Reads and checks a description ([`crate::frontend::load`]) and prepares the
    /// interpreter for it: a description the checker rejects is not interpreted, and the
    /// errors are returned.
    pub fn from_source<'a>(
        source: impl Into<crate::frontend::Source<'a>>,
        options: &crate::check::CheckOptions,
    ) -> Result<Interpreter, Vec<Diagnostic>> {
        Interpreter::from_checked(&crate::frontend::load(source, options)?, Limits::default())
    }

    /// Prepares the interpreter, within `limits` (see [`Interpreter::fault`]), for a program
    /// the front end loaded ([`crate::frontend::load`]). Fails only on what evaluation cannot
    /// survive (a description loaded with [`crate::CheckOptions::accept_invalid`] may have
    /// unsafe rules that the game needs, or negation through recursion).
    pub fn from_checked(
        checked: &crate::frontend::Checked,
        limits: Limits,
    ) -> Result<Interpreter, Vec<Diagnostic>> {
        Interpreter::with_limits(&checked.program, limits)
    }

    /// Prepares the interpreter for `program`, which should have passed the checker (nothing
    /// checks it here: [`Interpreter::from_source`] and [`Interpreter::from_checked`] are the
    /// ways in), within `limits`.
    fn with_limits(program: &Program, limits: Limits) -> Result<Interpreter, Vec<Diagnostic>> {
        let nprog = normalize(program, NormalizeOptions::default())?;
        let mut engine = build_engine(&nprog, program, limits)?;
        let mut roles = Vec::new();
        let mut role_ids = Vec::new();
        for rule in &program.rules {
            if rule.head.name == kw::ROLE
                && rule.kind == RuleKind::Fact
                && let [term] = &rule.head.args[..]
                && let Some(id) = engine.intern_ground(term)
                && !role_ids.contains(&id)
            {
                role_ids.push(id);
                roles.push(engine.store.text(&engine.symbols, id));
            }
        }
        let mut rel = |name: Sym, arity: usize| engine.relation(name, arity);
        let (legal_rel, next_rel, goal_rel, terminal_rel, sees_rel) = (
            rel(kw::LEGAL, 2),
            rel(kw::NEXT, 1),
            rel(kw::GOAL, 2),
            rel(kw::TERMINAL, 0),
            rel(kw::SEES, 2),
        );
        for q in [legal_rel, next_rel, goal_rel, terminal_rel, sees_rel] {
            engine.rels[q].ensure_index(if q == next_rel || q == terminal_rel {
                0
            } else {
                1
            });
        }
        let init_rel = engine.relation(kw::INIT, 1);
        if let Err(fault) = engine.ensure(init_rel) {
            return Err(vec![engine::fault_diagnostic(&fault, program)]);
        }
        let declarations = declared::declarations(&nprog, program, &roles);
        let mut declared = Declared {
            kinds: declarations.kinds(),
            ..Declared::default()
        };
        let mut read = |texts: &[String]| -> HashSet<TermId> {
            texts.iter().filter_map(|t| engine.read_ground(t)).collect()
        };
        if let Declaration::Given(base) = &declarations.base {
            declared.base = read(base);
        }
        if let Declaration::Given(input) = &declarations.input {
            declared.input = input.iter().map(|m| read(m)).collect();
        }
        Ok(Interpreter {
            declared,
            engine: RefCell::new(engine),
            roles,
            role_ids,
            legal_rel,
            next_rel,
            goal_rel,
            terminal_rel,
            sees_rel,
            rule_spans: program.rules.iter().map(|r| r.span).collect(),
        })
    }

    /// The rows of `rel` whose first column is `role`'s term, second column of each.
    fn by_role(&self, engine: &Engine, rel: RelId, role: RoleIndex, out: &mut Vec<TermId>) {
        out.clear();
        let Some(&role_id) = self.role_ids.get(role) else {
            return;
        };
        let r = engine.rows(rel);
        if let Some(ix) = r.index_of(1) {
            out.extend(r.lookup(ix, &[role_id, 0]).map(|row| r.row(row)[1]));
            out.reverse();
        }
    }

    /// The first query that exceeded the [`Limits`], if one did. From then on the interpreter
    /// answers nothing (no legal moves, not terminal, no goal, an empty next state): a caller
    /// that plays on must check this after each query (the trace does).
    pub fn fault(&self) -> Option<Fault> {
        self.engine.borrow().fault().cloned()
    }

    /// [`Interpreter::fault`] as a diagnostic at the rule it names.
    pub fn fault_diagnostic(&self) -> Option<Diagnostic> {
        self.fault().map(|f| {
            let span = self.rule_spans.get(f.rule).copied().unwrap_or_default();
            engine::fault_at(&f, span)
        })
    }

    /// The text of a term of this game.
    pub fn term_text(&self, id: TermId) -> String {
        let e = self.engine.borrow();
        e.store.text(&e.symbols, id)
    }
}

/// How many candidate rows a static component may visit before it is judged too large to
/// compute in full and is left to demand.
const STATIC_BUDGET: u64 = 1_000_000;

/// Plans the engine: static relations that are cheap in full are computed in full; the rest is
/// rewritten by magic sets so that only demanded instances are derived. If a rewrite is not
/// stratified, the next, less selective one is used, and in the end the rules as they are.
fn build_engine(
    nprog: &crate::normalize::NProgram,
    program: &Program,
    limits: Limits,
) -> Result<Engine, Vec<Diagnostic>> {
    use crate::magic::{MagicOptions, NegationPolicy, magic_sets};
    let none = Default::default();
    let probe = Engine::build(
        nprog,
        program,
        &BuildOptions {
            guards: &none,
            static_budget: STATIC_BUDGET,
            limits,
        },
    )?;
    let materialized = probe.materialized();
    drop(probe);
    for negation in [
        NegationPolicy::Demand,
        NegationPolicy::DemandPositive,
        NegationPolicy::Full,
    ] {
        let options = MagicOptions {
            materialized: materialized.clone(),
            negation,
        };
        let magic = magic_sets(nprog, &options);
        let build = BuildOptions {
            guards: &magic.guards,
            static_budget: u64::MAX,
            limits,
        };
        match Engine::build(&magic.program, program, &build) {
            Ok(engine) => {
                tracing::debug!(
                    ?negation,
                    rules = magic.program.rules.len(),
                    "magic-sets rewrite"
                );
                return Ok(engine);
            }
            Err(e) => tracing::debug!(
                ?negation,
                cycles = e.len(),
                "magic-sets rewrite not stratified"
            ),
        }
    }
    tracing::debug!("evaluating the rules without the magic-sets rewrite");
    Engine::build(
        nprog,
        program,
        &BuildOptions {
            guards: &none,
            static_budget: u64::MAX,
            limits,
        },
    )
}

impl Game for Interpreter {
    type State = Vec<TermId>;
    type Move = TermId;

    fn role_count(&self) -> usize {
        self.roles.len()
    }

    fn role_name(&self, role: RoleIndex) -> &str {
        self.roles.get(role).map_or("", String::as_str)
    }

    fn initial_state(&self) -> Vec<TermId> {
        let mut e = self.engine.borrow_mut();
        let init = e.relation(kw::INIT, 1);
        if e.ensure(init).is_err() {
            return Vec::new();
        }
        let r = &e.rels[init];
        let mut state: Vec<TermId> = (0..r.len() as u32).map(|i| r.row(i)[0]).collect();
        state.sort_unstable();
        state
    }

    fn is_terminal(&self, state: &Vec<TermId>) -> bool {
        let mut e = self.engine.borrow_mut();
        e.load_state(state);
        e.ensure(self.terminal_rel).is_ok() && !e.rels[self.terminal_rel].is_empty()
    }

    fn legal_moves(&self, state: &Vec<TermId>, role: RoleIndex, out: &mut Vec<TermId>) {
        let mut e = self.engine.borrow_mut();
        e.load_state(state);
        out.clear();
        if e.ensure(self.legal_rel).is_ok() {
            self.by_role(&e, self.legal_rel, role, out);
            // The rows come in the order they were derived, which depends on what was asked
            // before (reversi's differed after a next state): the moves of a state are listed
            // in one order, so that the same draw picks the same move.
            out.sort_unstable();
        }
    }

    fn next_state(&self, state: &Vec<TermId>, joint: &[TermId], next: &mut Vec<TermId>) {
        let mut e = self.engine.borrow_mut();
        e.load_state(state);
        e.load_joint(&self.role_ids, joint);
        next.clear();
        if e.ensure(self.next_rel).is_err() {
            return;
        }
        let r = &e.rels[self.next_rel];
        next.extend((0..r.len() as u32).map(|i| r.row(i)[0]));
        next.sort_unstable();
    }

    fn goal(&self, state: &Vec<TermId>, role: RoleIndex) -> Option<i32> {
        let mut e = self.engine.borrow_mut();
        e.load_state(state);
        e.ensure(self.goal_rel).ok()?;
        let mut values = Vec::new();
        self.by_role(&e, self.goal_rel, role, &mut values);
        match values[..] {
            [v] if e.store.args(v).is_empty() => e.symbols.name(e.store.functor(v)).parse().ok(),
            _ => None,
        }
    }

    fn goal_values(&self, state: &Vec<TermId>, role: RoleIndex, out: &mut Vec<Option<i32>>) {
        out.clear();
        let mut e = self.engine.borrow_mut();
        e.load_state(state);
        if e.ensure(self.goal_rel).is_err() {
            return;
        }
        let mut values = Vec::new();
        self.by_role(&e, self.goal_rel, role, &mut values);
        out.extend(values.into_iter().map(|v| {
            if e.store.args(v).is_empty() {
                e.symbols.name(e.store.functor(v)).parse().ok()
            } else {
                None
            }
        }));
    }

    fn fault(&self) -> Option<String> {
        Interpreter::fault(self).map(|f| f.to_string())
    }

    fn write_move(&self, _role: RoleIndex, mv: TermId, out: &mut String) {
        let e = self.engine.borrow();
        e.store.write(&e.symbols, mv, out);
    }

    fn parse_move(&self, _role: RoleIndex, text: &str) -> Option<TermId> {
        self.engine.borrow_mut().read_ground(text)
    }

    fn write_state(&self, state: &Vec<TermId>, out: &mut Vec<String>) {
        let e = self.engine.borrow();
        out.extend(state.iter().map(|&t| e.store.text(&e.symbols, t)));
    }

    fn declarations(&self) -> gdl_runtime::Declarations {
        self.declared.kinds
    }

    fn undeclared_facts(&self, state: &Vec<TermId>, out: &mut Vec<String>) {
        out.clear();
        if self.declared.kinds.base != gdl_runtime::Declared::Given {
            return;
        }
        let e = self.engine.borrow();
        let undeclared = state.iter().filter(|t| !self.declared.base.contains(t));
        out.extend(undeclared.map(|&t| e.store.text(&e.symbols, t)));
        out.sort_unstable();
    }

    fn is_declared_move(&self, role: RoleIndex, mv: TermId) -> bool {
        self.declared.kinds.input != gdl_runtime::Declared::Given
            || self
                .declared
                .input
                .get(role)
                .is_some_and(|m| m.contains(&mv))
    }

    fn percepts(
        &self,
        state: &Vec<TermId>,
        joint: &[TermId],
        role: RoleIndex,
        out: &mut Vec<String>,
    ) {
        let mut e = self.engine.borrow_mut();
        e.load_state(state);
        e.load_joint(&self.role_ids, joint);
        if e.ensure(self.sees_rel).is_err() {
            return;
        }
        let mut seen = Vec::new();
        self.by_role(&e, self.sees_rel, role, &mut seen);
        // In byte order of the text, as compiled games list them.
        let start = out.len();
        out.extend(seen.iter().map(|&t| e.store.text(&e.symbols, t)));
        out[start..].sort_unstable();
    }
}
