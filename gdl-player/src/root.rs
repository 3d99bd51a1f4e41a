//! The player's moves at the root of a search, and the move played among them (shared by
//! every tree search, and by root-parallel search over several trees).

/// One move of the player's role at the root, as the search left it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootMove<M> {
    pub mv: M,
    pub visits: u64,
    /// The sum of the player's goals (0..1) over the visits.
    pub sum: f64,
    /// The player's exact goal after the move, when proven.
    pub proven: Option<f64>,
}

impl<M> RootMove<M> {
    /// The proven goal, else the mean.
    pub(super) fn value(&self) -> f64 {
        self.proven.unwrap_or(self.sum / self.visits.max(1) as f64)
    }
}

/// The move to play among the player's root moves: a proven win (goal 1), else the best proven
/// move when every move is proven (with `true`: the choice is proven; among equal proofs, the
/// one that resists longest: the most visited, whose proof took the most search, then the
/// better mean before the proof), else the most visited (ties: the better value) of the moves
/// not proven worse than another.
pub(super) fn choose_root<M>(moves: &[RootMove<M>]) -> Option<(usize, bool)> {
    if let Some(i) = moves
        .iter()
        .position(|m| m.proven.is_some_and(|v| v >= 1.0))
    {
        return Some((i, true));
    }
    let bound = moves.iter().filter_map(|m| m.proven).max_by(f64::total_cmp);
    if !moves.is_empty() && moves.iter().all(|m| m.proven.is_some()) {
        let mean = |m: &RootMove<M>| m.sum / m.visits.max(1) as f64;
        let i = (0..moves.len()).max_by(|&a, &b| {
            let (x, y) = (&moves[a], &moves[b]);
            (x.value().total_cmp(&y.value()))
                .then(x.visits.cmp(&y.visits))
                .then(mean(x).total_cmp(&mean(y)))
        })?;
        return Some((i, true));
    }
    let worse = |m: &RootMove<M>| {
        m.proven
            .is_some_and(|v| v <= 0.0 || bound.is_some_and(|b| v < b))
    };
    let i = (0..moves.len())
        .filter(|&i| !worse(&moves[i]))
        .max_by(|&a, &b| {
            (moves[a].visits.cmp(&moves[b].visits))
                .then(moves[a].value().total_cmp(&moves[b].value()))
        })?;
    Some((i, false))
}

/// The root moves of every tree as one list: visits and sums added, a proof from any tree.
pub(super) fn merge_root_moves<M: Copy + PartialEq>(
    lists: impl IntoIterator<Item = Vec<RootMove<M>>>,
) -> Vec<RootMove<M>> {
    let mut merged: Vec<RootMove<M>> = Vec::new();
    for list in lists {
        for m in list {
            match merged.iter_mut().find(|x| x.mv == m.mv) {
                Some(x) => {
                    x.visits += m.visits;
                    x.sum += m.sum;
                    x.proven = x.proven.or(m.proven);
                }
                None => merged.push(m),
            }
        }
    }
    merged
}
