//! Views into the search for tests.

use super::store::state_hash;
use super::{Mcts, factor_checks, joint_key};
use gdl_runtime::{Game, RoleIndex};

impl<G: Game> Mcts<G> {
    /// Role `role`'s moves at the root of a factored search with their tactical marks, for
    /// tests.
    pub(in crate::mcts) fn root_marks(
        &self,
        role: RoleIndex,
    ) -> Vec<(G::Move, factor_checks::Mark)> {
        self.factored
            .as_ref()
            .map_or_else(Vec::new, |f| f.root_marks(role))
    }

    /// The root's index in the store and its iterations, for tests.
    pub(crate) fn root_node(&self) -> Option<(u32, u32)> {
        let store = self.store.as_ref()?;
        Some((self.root, store.nodes[self.root as usize].total))
    }

    /// The node of `state`, if the store holds one, and how many live nodes hold that state,
    /// for tests (after checking the store's invariants).
    pub(crate) fn nodes_of(&self, state: &G::State) -> Result<(Option<u32>, usize), String> {
        let store = self.store.as_ref().ok_or("no store")?;
        store.check()?;
        let count = (0..store.nodes.len())
            .filter(|&i| store.nodes[i].live && store.states[i] == *state)
            .count();
        Ok((store.find(state_hash(state), state), count))
    }

    /// The bytes the store holds ([`super::store::Store::bytes`]) and its nodes' bytes
    /// apart from their moves, for tests (after checking the store's invariants).
    pub(crate) fn store_bytes(&self) -> Result<usize, String> {
        let store = self.store.as_ref().ok_or("no store")?;
        store.check()?;
        Ok(store.bytes())
    }

    /// MAST's mean goal of role `r`'s move `mv`, for tests.
    pub(crate) fn mast_mean(&mut self, game: &G, r: RoleIndex, mv: G::Move) -> Option<f64> {
        self.scratch.as_mut()?.playout.mast_mean(game, r, mv)
    }

    /// The child the root's edge for `joint` (a move per role) leads to, for tests.
    pub(crate) fn child_of(&self, joint: &[G::Move]) -> Option<u32> {
        let store = self.store.as_ref()?;
        let key = joint_key(store, self.root, joint)?;
        store
            .edge_index(self.root, &key)
            .and_then(|e| store.child(self.root, e))
    }
}
