//! A node of the MCTS tree and what is proven about it (MCTS-Solver, generalised to any number
//! of roles and goals that need not sum to a constant).
//!
//! A node is *proven* when every role's goal from it is known exactly (a vector of goals, as if
//! every role chose as the proof assumes): a terminal state; a turn node (one role, the mover,
//! has more than one legal move and every other role exactly one) with a child that gives the
//! mover 100, or whose children are all proven (the node takes the child best for the mover);
//! a chance node (the mover is GDL-II's `random`) whose children are all proven (the mean of
//! their goals, the moves being drawn uniformly). A node where two roles or more have a choice
//! is proven only when terminal: its value is that of a matrix game, which this search does
//! not solve.

use std::collections::HashMap;

use crate::scaled_goal;
use gdl_runtime::{Game, RoleIndex};

/// Who chooses in a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// Terminal, or a role without a legal move: no child.
    Leaf,
    /// This role alone has more than one legal move (or, for role 0, nobody has: one joint
    /// move).
    Turn(RoleIndex),
    /// GDL-II's `random` alone has more than one legal move.
    Chance(RoleIndex),
    /// Two roles or more have a choice.
    Simultaneous,
}

/// What the children of a turn or chance node have proven, kept once one of them is proven.
#[derive(Debug)]
pub(super) struct Proofs {
    /// Children proven.
    count: usize,
    /// Per move of the mover: the mover's proven goal after it (NaN: not proven).
    pub(super) solved: Vec<f64>,
    /// A turn node: the goals of the proven child best for the mover so far. A chance node:
    /// the sum of the proven children's goals.
    best: Vec<f64>,
}

impl Proofs {
    /// The best goal the mover is sure of (its best proven child), if a child is proven.
    pub(super) fn lower_bound(&self, mover: RoleIndex) -> Option<f64> {
        self.best.get(mover).copied()
    }

    /// Whether the mover's move `i` is proven no better than another of its moves: its goal is
    /// below the lower bound, or 0 (no unproven move can do worse). Some move of an unproven
    /// node is never excluded.
    pub(super) fn excluded(&self, mover: RoleIndex, i: usize) -> bool {
        let v = self.solved[i];
        !v.is_nan() && (v <= 0.0 || self.lower_bound(mover).is_some_and(|l| v < l))
    }
}

pub(super) struct Node<G: Game> {
    pub(super) state: G::State,
    pub(super) kind: Kind,
    /// `goals` is the node's exact value (terminal, or proven by its children).
    pub(super) proven: bool,
    /// A leaf's value: exact when terminal, 0.5 for every role when a role has no legal move.
    /// A proven node's value.
    pub(super) goals: Vec<f64>,
    /// Per role: legal moves, and per move its visits and goal sum.
    pub(super) moves: Vec<Vec<G::Move>>,
    pub(super) visits: Vec<Vec<u32>>,
    pub(super) sums: Vec<Vec<f64>>,
    pub(super) total: u32,
    /// The children by joint move (a move index per role).
    pub(super) children: HashMap<Box<[u32]>, u32>,
    pub(super) proofs: Option<Box<Proofs>>,
}

impl<G: Game> Node<G> {
    pub(super) fn new(game: &G, state: G::State) -> Node<G> {
        let roles = game.role_count();
        let mut node = Node {
            kind: Kind::Leaf,
            proven: false,
            goals: Vec::new(),
            moves: Vec::new(),
            visits: Vec::new(),
            sums: Vec::new(),
            total: 0,
            children: HashMap::new(),
            proofs: None,
            state,
        };
        if game.is_terminal(&node.state) {
            node.proven = true;
            node.goals = (0..roles)
                .map(|r| scaled_goal(game.goal(&node.state, r)))
                .collect();
            return node;
        }
        let mut choosers = Vec::new();
        for r in 0..roles {
            let mut ms = Vec::new();
            game.legal_moves(&node.state, r, &mut ms);
            if ms.is_empty() {
                node.goals = vec![0.5; roles];
                return node;
            }
            if ms.len() > 1 {
                choosers.push(r);
            }
            node.visits.push(vec![0; ms.len()]);
            node.sums.push(vec![0.0; ms.len()]);
            node.moves.push(ms);
        }
        node.kind = match choosers[..] {
            [] => Kind::Turn(0),
            [r] if game.is_random_role(r) => Kind::Chance(r),
            [r] => Kind::Turn(r),
            _ => Kind::Simultaneous,
        };
        node
    }

    /// What the children have proven, in a turn node whose mover is `role`.
    pub(super) fn proofs_for(&self, role: RoleIndex) -> Option<&Proofs> {
        match self.kind {
            Kind::Turn(m) if m == role => self.proofs.as_deref(),
            _ => None,
        }
    }

    /// The child reached by joint move `key` has been proven with `goals`: records it, and
    /// proves this node when that follows. Whether this node is now proven.
    pub(super) fn child_proven(&mut self, key: &[u32], goals: &[f64]) -> bool {
        let (Kind::Turn(m) | Kind::Chance(m)) = self.kind else {
            return false;
        };
        if self.proven {
            return false;
        }
        let count = self.moves[m].len();
        let proofs = self.proofs.get_or_insert_with(|| {
            Box::new(Proofs {
                count: 0,
                solved: vec![f64::NAN; count],
                best: Vec::new(),
            })
        });
        let i = key[m] as usize;
        if !proofs.solved[i].is_nan() {
            return false;
        }
        let mine = goals.get(m).copied().unwrap_or(0.0);
        proofs.solved[i] = mine;
        proofs.count += 1;
        if self.kind == Kind::Chance(m) {
            if proofs.best.is_empty() {
                proofs.best = goals.to_vec();
            } else {
                proofs.best.iter_mut().zip(goals).for_each(|(s, g)| *s += g);
            }
            if proofs.count == count {
                self.goals = proofs.best.iter().map(|s| s / count as f64).collect();
                self.proven = true;
            }
            return self.proven;
        }
        if proofs.lower_bound(m).is_none_or(|l| mine > l) {
            proofs.best = goals.to_vec();
        }
        if mine >= 1.0 || proofs.count == count {
            self.goals = proofs.best.clone();
            self.proven = true;
        }
        self.proven
    }
}
