//! The facts a description declares with `base` (the state facts) and `input` (each role's
//! moves), evaluated as static relations by the grounder's exact fixpoint, for
//! `gdlc validate`: compiled games get a mask of the state bits and a table of the moves that
//! are not declared ([`crate::codegen`]), and the interpreter a set of each.
//!
//! The declarations are evaluated apart from grounding (which leaves `base` and `input` out),
//! under small limits: when they read the state or the moves (`true`, `does`), or are too
//! large, they are [`Declaration::Unevaluated`] and nothing is checked against them.

use std::time::Duration;

use super::fixpoint::{static_component, static_components};
use super::join::{Budget, RelKey, rel_key};
use super::{GroundOptions, Grounder, dynamic_relations, rules_for};
use crate::ast::{Span, kw};
use crate::normalize::NProgram;

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

const BASE: RelKey = (kw::BASE, 1);
const INPUT: RelKey = (kw::INPUT, 2);

/// The `base` and `input` facts of `nprog`, whose roles are `roles` (their text, in order).
pub fn declarations(nprog: &NProgram, roles: &[String]) -> Declarations {
    let has = |k: RelKey| nprog.rules.iter().any(|r| rel_key(&r.head) == k);
    let (has_base, has_input) = (has(BASE), has(INPUT));
    if !has_base && !has_input {
        return Declarations::default();
    }
    let rules = rules_for(&nprog.rules, &[BASE, INPUT]);
    let dynamic = dynamic_relations(&rules);
    let options = GroundOptions {
        max_atoms: 1_000_000,
        max_rule_instances: 1_000_000,
        max_matches: 50_000_000,
        time_limit: Some(Duration::from_secs(2)),
        ..GroundOptions::default()
    };
    let budget = Budget::new(
        options.max_matches,
        options.time_limit.map(super::deadline::Deadline::after),
    );
    let mut g = Grounder {
        dynamic,
        first_span: rules.first().map_or(Span::default(), |r| r.span),
        ..Grounder::new(&options, nprog.symbols.clone(), budget)
    };
    let static_rules: Vec<_> = rules
        .iter()
        .copied()
        .filter(|r| !g.dynamic.contains(&rel_key(&r.head)))
        .collect();
    let evaluated = static_components(&static_rules)
        .and_then(|components| {
            components
                .iter()
                .try_for_each(|c| static_component(&mut g, c))
        })
        .is_ok();
    let known = |k: RelKey| evaluated && !g.dynamic.contains(&k);
    let text = |id| g.store.text(&g.symbols, id);
    let base = if !has_base {
        Declaration::Absent
    } else if !known(BASE) {
        Declaration::Unevaluated
    } else {
        let mut facts: Vec<String> =
            g.db.atoms(BASE)
                .iter()
                .map(|&a| text(g.store.args(a)[0]))
                .collect();
        facts.sort();
        facts.dedup();
        Declaration::Given(facts)
    };
    let input = if !has_input {
        Declaration::Absent
    } else if !known(INPUT) {
        Declaration::Unevaluated
    } else {
        let mut moves = vec![Vec::new(); roles.len()];
        for &a in g.db.atoms(INPUT) {
            let args = g.store.args(a);
            if let Some(r) = roles.iter().position(|r| *r == text(args[0])) {
                moves[r].push(text(args[1]));
            }
        }
        for m in &mut moves {
            m.sort();
            m.dedup();
        }
        Declaration::Given(moves)
    };
    Declarations { base, input }
}
