//! The facts a description declares with `base` (the state facts) and `input` (each role's
//! moves), for `gdlc validate`: compiled games get a mask of the state bits and a table of the
//! moves that are not declared (`gdlc`'s code generator), the interpreter a set of each.
//!
//! The declarations are static relations, evaluated here by the interpreter's engine apart
//! from the game (only the rules `base` and `input` depend on, without the magic-sets
//! rewrite), under small limits: when they read the state or the moves (`true`, `does`), or
//! are too large, they are [`Declaration::Unevaluated`] and nothing is checked against them.

use super::budget::Limits;
use super::engine::{BuildOptions, Engine};
use crate::ast::{Program, kw};
use crate::normalize::{NProgram, rules_for};

/// What a description declares of one kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Declaration<T> {
    /// No rule declares it.
    #[default]
    Absent,
    /// The declared facts.
    Given(T),
    /// Rules declare it, but they could not be evaluated.
    Unevaluated,
}

impl<T> Declaration<T> {
    /// The kind of declaration, as `gdl_runtime` tells it.
    pub fn kind(&self) -> gdl_runtime::Declared {
        match self {
            Declaration::Absent => gdl_runtime::Declared::Absent,
            Declaration::Given(_) => gdl_runtime::Declared::Given,
            Declaration::Unevaluated => gdl_runtime::Declared::Unevaluated,
        }
    }
}

/// The declared facts of a description, as GDL text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Declarations {
    /// Every `X` of `(base X)`, sorted.
    pub base: Declaration<Vec<String>>,
    /// Per role (in the order given), every `M` of `(input ROLE M)`, sorted.
    pub input: Declaration<Vec<Vec<String>>>,
}

impl Declarations {
    pub fn kinds(&self) -> gdl_runtime::Declarations {
        gdl_runtime::Declarations {
            base: self.base.kind(),
            input: self.input.kind(),
        }
    }
}

/// The candidate rows the evaluation of the declarations may visit.
const STEPS: u64 = 50_000_000;

/// The `base` and `input` facts of `nprog` (normalised from `program`), whose roles are
/// `roles` (their text, in order).
pub fn declarations(nprog: &NProgram, program: &Program, roles: &[String]) -> Declarations {
    const BASE: (crate::ast::Sym, u32) = (kw::BASE, 1);
    const INPUT: (crate::ast::Sym, u32) = (kw::INPUT, 2);
    let has = |(rel, arity): (crate::ast::Sym, u32)| {
        nprog
            .rules
            .iter()
            .any(|r| r.head.rel == rel && r.head.args.len() == arity as usize)
    };
    let (has_base, has_input) = (has(BASE), has(INPUT));
    if !has_base && !has_input {
        return Declarations::default();
    }
    let sub = NProgram {
        symbols: nprog.symbols.clone(),
        rules: rules_for(&nprog.rules, &[BASE, INPUT])
            .into_iter()
            .cloned()
            .collect(),
    };
    let options = BuildOptions {
        guards: &Default::default(),
        // A static component past the budget is left unevaluated instead of failing the build.
        static_budget: STEPS,
        limits: Limits {
            max_query_steps: STEPS,
            max_terms: 2_000_000,
            max_relation_cells: 4_000_000,
        },
    };
    let mut engine = Engine::build(&sub, program, &options).ok();
    let materialized = engine
        .as_ref()
        .map(|e| e.materialized())
        .unwrap_or_default();
    // The rows of a relation evaluated in full, as text.
    let mut rows = |(rel, arity): (crate::ast::Sym, u32)| -> Option<Vec<Vec<String>>> {
        let e = engine.as_mut()?;
        if !materialized.contains(&(rel, arity as usize)) {
            return None;
        }
        let id = e.relation(rel, arity as usize);
        let r = e.rows(id);
        let rows = (0..r.len() as u32)
            .map(|i| {
                r.row(i)
                    .iter()
                    .map(|&t| e.store.text(&e.symbols, t))
                    .collect()
            })
            .collect();
        Some(rows)
    };
    let base = match (has_base, rows(BASE)) {
        (false, _) => Declaration::Absent,
        (true, None) => Declaration::Unevaluated,
        (true, Some(rows)) => {
            let mut facts: Vec<String> = rows.into_iter().flatten().collect();
            facts.sort();
            facts.dedup();
            Declaration::Given(facts)
        }
    };
    let input = match (has_input, rows(INPUT)) {
        (false, _) => Declaration::Absent,
        (true, None) => Declaration::Unevaluated,
        (true, Some(rows)) => {
            let mut moves = vec![Vec::new(); roles.len()];
            for row in rows {
                if let [role, mv] = &row[..]
                    && let Some(r) = roles.iter().position(|r| r == role)
                {
                    moves[r].push(mv.clone());
                }
            }
            for m in &mut moves {
                m.sort();
                m.dedup();
            }
            Declaration::Given(moves)
        }
    };
    Declarations { base, input }
}
