//! The checks of single states shared by the breadth-first search, its parallel expansion and
//! the playouts: goal values, `base` / `input` declarations, the details of findings.

use super::Kind;
use gdl_runtime::{Game, RoleIndex};

/// A role's goal in a state: none.
pub(super) const NO_GOAL: i32 = i32::MIN;
/// Several goal values.
pub(super) const SEVERAL: i32 = i32::MIN + 1;
/// One goal value that is no integer.
pub(super) const NOT_INTEGER: i32 = i32::MIN + 2;
/// Whether `goal` (as stored) is a proper goal value.
pub(super) fn is_proper(goal: i32) -> bool {
    (0..=100).contains(&goal)
}

/// The goal of a role from its goal values.
pub(super) fn goal_of(values: &[Option<i32>]) -> i32 {
    match values {
        [] => NO_GOAL,
        [Some(v)] => *v,
        [None] => NOT_INTEGER,
        _ => SEVERAL,
    }
}

/// The finding (if any) of a role's goal values in a state; the same check for playouts.
pub(super) fn goal_finding(terminal: bool, values: &[Option<i32>]) -> Option<Kind> {
    let goal = goal_of(values);
    if goal == SEVERAL {
        Some(Kind::SeveralGoals)
    } else if terminal && goal == NO_GOAL {
        Some(Kind::TerminalWithoutGoal)
    } else if terminal && !is_proper(goal) {
        Some(Kind::GoalOutOfRange)
    } else {
        None
    }
}

/// What [`goal_finding`] found, in words.
pub(super) fn goal_detail(terminal: bool, values: &[Option<i32>]) -> String {
    let texts: Vec<String> = values
        .iter()
        .map(|v| v.map_or("a non-integer".to_string(), |v| v.to_string()))
        .collect();
    let place = if terminal { "terminal" } else { "non-terminal" };
    match values {
        [] => format!("no goal value in a {place} state"),
        [_] => format!("goal value {} in a {place} state", texts[0]),
        _ => format!("goal values {} in a {place} state", texts.join(", ")),
    }
}

/// The checks of `base` and `input` ([`Game::declarations`]), shared by the breadth-first
/// search and the playouts.
pub(super) struct Declarations {
    facts: bool,
    moves: bool,
    undeclared: Vec<String>,
}

impl Declarations {
    pub fn of<G: Game>(game: &G) -> Self {
        let d = game.declarations();
        Declarations {
            facts: d.base == gdl_runtime::Declared::Given,
            moves: d.input == gdl_runtime::Declared::Given,
            undeclared: Vec::new(),
        }
    }

    /// Tells `found` each finding of `state`, whose roles' legal moves are `legal`: its facts
    /// that no `base` declares ([`Kind::UndeclaredFact`]), and per role its first legal move
    /// that no `input` declares ([`Kind::UndeclaredMove`]), each with its detail.
    pub fn check<G: Game>(
        &mut self,
        game: &G,
        state: &G::State,
        legal: &[Vec<G::Move>],
        found: &mut dyn FnMut(Kind, Option<RoleIndex>, String),
    ) {
        if self.facts {
            game.undeclared_facts(state, &mut self.undeclared);
            if !self.undeclared.is_empty() {
                found(
                    Kind::UndeclaredFact,
                    None,
                    undeclared_detail(&self.undeclared),
                );
            }
        }
        if self.moves {
            for (r, moves) in legal.iter().enumerate() {
                if let Some(&m) = moves.iter().find(|&&m| !game.is_declared_move(r, m)) {
                    let detail = format!(
                        "legal move {} is no input of the role",
                        game.move_text(r, m)
                    );
                    found(Kind::UndeclaredMove, Some(r), detail);
                }
            }
        }
    }
}

/// The detail of [`Kind::UndeclaredFact`]: the first few facts.
fn undeclared_detail(facts: &[String]) -> String {
    const SHOWN: usize = 4;
    let list = facts[..facts.len().min(SHOWN)].join(", ");
    match facts.len() {
        1 => format!("state fact {list} is no base fact"),
        n if n <= SHOWN => format!("state facts {list} are no base facts"),
        n => format!(
            "state facts {list} and {} more are no base facts",
            n - SHOWN
        ),
    }
}

/// The detail of [`Kind::NoLegalMove`].
pub(super) const NO_MOVE: &str = "no legal move in a non-terminal state";
