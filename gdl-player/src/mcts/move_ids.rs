//! Numbers for moves, for tables of per-move statistics: a game's own dense indices
//! ([`Game::move_index`]) where it has them, else numbers given on first sight (after the
//! dense ones, so that the two never meet).

use std::collections::HashMap;

use gdl_runtime::{Game, RoleIndex};

/// Per role: the numbers of its moves.
pub(super) struct MoveIds<G: Game> {
    /// Per role: [`Game::move_count`].
    counts: Vec<Option<usize>>,
    /// Per role: the numbers given to moves the game does not number.
    given: Vec<HashMap<G::Move, u32>>,
}

impl<G: Game> Clone for MoveIds<G> {
    fn clone(&self) -> Self {
        MoveIds {
            counts: self.counts.clone(),
            given: self.given.clone(),
        }
    }
}

impl<G: Game> MoveIds<G> {
    pub(super) fn new(game: &G) -> Self {
        let roles = game.role_count();
        MoveIds {
            counts: (0..roles).map(|r| game.move_count(r)).collect(),
            given: (0..roles).map(|_| HashMap::new()).collect(),
        }
    }

    /// The number of role `r`'s move `mv` (given now if it has none).
    pub(super) fn id(&mut self, game: &G, r: RoleIndex, mv: G::Move) -> usize {
        if let Some(i) = self.dense(game, r, mv) {
            return i;
        }
        let base = self.counts[r].unwrap_or(0);
        let given = &mut self.given[r];
        let next = given.len() as u32;
        base + *given.entry(mv).or_insert(next) as usize
    }

    /// The number of role `r`'s move `mv` when it has one already.
    pub(super) fn get(&self, game: &G, r: RoleIndex, mv: G::Move) -> Option<usize> {
        self.dense(game, r, mv).or_else(|| {
            let base = self.counts[r].unwrap_or(0);
            self.given[r].get(&mv).map(|&i| base + i as usize)
        })
    }

    fn dense(&self, game: &G, r: RoleIndex, mv: G::Move) -> Option<usize> {
        let count = self.counts[r]?;
        game.move_index(r, mv).filter(|&i| i < count)
    }
}

#[cfg(test)]
mod tests {
    use super::MoveIds;
    use crate::tests::{Pos, Table, To};

    #[test]
    fn moves_are_numbered_once_per_role() {
        let game = Table {
            roles: vec!["a", "b"],
            positions: vec![Pos::Moves(vec![3, 2], vec![To::At(0); 6])],
            long: 0,
        };
        let mut ids = MoveIds::new(&game);
        let (a, b) = (ids.id(&game, 0, 2), ids.id(&game, 0, 0));
        assert_ne!(a, b);
        assert_eq!(ids.id(&game, 0, 2), a);
        assert_eq!(ids.get(&game, 0, 2), Some(a));
        assert_eq!(ids.get(&game, 0, 1), None);
        assert_eq!(ids.get(&game, 1, 2), None);
    }
}
