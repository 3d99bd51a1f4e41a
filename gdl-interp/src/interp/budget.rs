//! The limits the interpreter works within, and what it reports when a query exceeds them.

use std::fmt;

/// How much work and memory the interpreter may spend. A query that needs more is not
/// answered: the interpreter records a [`Fault`] naming the rule it was evaluating, and
/// answers nothing more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The candidate rows one query (one evaluation of what a state, a joint move or the
    /// static relations need) may visit: the step budget.
    pub max_query_steps: u64,
    /// The ground terms the interpreter may hold (states, moves and every derived row's
    /// arguments are terms).
    pub max_terms: usize,
    /// The cells (rows times arity) one relation may hold, and one rule may derive in one
    /// evaluation.
    pub max_relation_cells: usize,
}

impl Default for Limits {
    /// Generous: every game of the ggp.org repository plays its reference trace within a
    /// tenth of each (tests/tests/conformance.rs). A relation at the cell limit holds 400 MB of
    /// cells plus its indexes.
    fn default() -> Limits {
        Limits {
            max_query_steps: 2_000_000_000,
            max_terms: 40_000_000,
            max_relation_cells: 100_000_000,
        }
    }
}

/// Which limit was exceeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exceeded {
    /// [`Limits::max_query_steps`].
    Steps,
    /// [`Limits::max_terms`].
    Terms,
    /// [`Limits::max_relation_cells`].
    Cells,
}

/// A query the interpreter gave up, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub exceeded: Exceeded,
    /// The limit, as set.
    pub limit: u64,
    /// The relation being derived, as `name/arity`.
    pub relation: String,
    /// The index in `Program::rules` of the rule being evaluated.
    pub rule: usize,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.exceeded {
            Exceeded::Steps => "visited more candidate rows in one query than the step budget",
            Exceeded::Terms => "built more ground terms than the memory budget",
            Exceeded::Cells => "derived more rows than the memory budget of one relation",
        };
        write!(
            f,
            "the interpreter stopped while deriving `{}`: it {what} ({} {})",
            self.relation,
            self.limit,
            match self.exceeded {
                Exceeded::Steps => "rows",
                Exceeded::Terms => "terms",
                Exceeded::Cells => "cells",
            }
        )
    }
}
