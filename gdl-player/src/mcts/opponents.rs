//! Opponents that play like random: in a game of three roles or more, a role whose moves
//! the tree predicts no better than chance is searched as chance (its moves drawn uniformly,
//! its nodes the mean of their children), not as a player who takes its best move.
//!
//! The tree's search assumes every role plays its best for itself. With three roles that
//! makes coalitions: a role that gains when another wins is expected to help it, and the
//! third may find itself proven lost against the two; a random player helps no one, and a
//! player who believes it lost plays no better than one. So the moves of each other role are
//! weighed as they come: at the root, where the role chooses, the tree's visits of its moves
//! (mixed half and half with a uniform choice, so that one surprise does not weigh too much)
//! model a player who plays well, and a uniform choice one who plays at random; the log of
//! the ratio of the two likelihoods of the move played adds up over the match. A role whose
//! sum falls to [`THRESHOLD`] below zero after [`MIN_MOVES`] moves is searched as random
//! from then on, for the rest of the match.

use super::store::{Kind, Store};
use gdl_runtime::{Game, RoleIndex};

/// The log-likelihood ratio (playing well against random) at which a role is judged random.
const THRESHOLD: f64 = 2.0;

/// The moves of a role weighed before it may be judged random.
const MIN_MOVES: u32 = 4;

/// A root with fewer visits than this says too little of the role's moves.
const MIN_VISITS: u64 = 1_000;

/// What the match showed of the other roles.
#[derive(Clone, Debug, Default)]
pub(super) struct Opponents {
    /// Per role: the log-likelihood ratio of its moves so far, and how many were weighed.
    ratio: Vec<f64>,
    weighed: Vec<u32>,
    /// The roles judged random, a bit each, and their names.
    random: u64,
    names: Vec<String>,
}

impl Opponents {
    /// The roles searched as random (a bit each).
    pub(super) fn random(&self) -> u64 {
        self.random
    }

    /// Weighs role `role`'s move `played` (its index among the role's moves at the root) where
    /// the tree visited the role's moves `visits` times each: whether the role is now judged
    /// random (and was not before).
    pub(super) fn weigh(&mut self, role: usize, visits: &[u64], played: usize) -> bool {
        let total: u64 = visits.iter().sum();
        let k = visits.len();
        if k < 2 || total < MIN_VISITS || played >= k || role >= 64 || self.random >> role & 1 == 1
        {
            return false;
        }
        if self.ratio.len() <= role {
            self.ratio.resize(role + 1, 0.0);
            self.weighed.resize(role + 1, 0);
        }
        let well = 0.5 * visits[played] as f64 / total as f64 + 0.5 / k as f64;
        self.ratio[role] += (well * k as f64).ln();
        self.weighed[role] += 1;
        if self.weighed[role] >= MIN_MOVES && self.ratio[role] <= -THRESHOLD {
            self.random |= 1 << role;
            return true;
        }
        false
    }

    /// The evidence so far as one line, for another engine that takes the match over
    /// ([`Opponents::from_text`]): `ROLE:RATIO:WEIGHED` for each role weighed, space-separated;
    /// `None` when no move was weighed.
    pub(super) fn to_text<G: Game>(&self, game: &G) -> Option<String> {
        let parts: Vec<String> = (0..self.weighed.len().min(game.role_count()))
            .filter(|&r| self.weighed[r] > 0)
            .map(|r| {
                format!(
                    "{}:{:?}:{}",
                    game.role_name(r),
                    self.ratio[r],
                    self.weighed[r]
                )
            })
            .collect();
        (!parts.is_empty()).then(|| parts.join(" "))
    }

    /// The evidence of [`Opponents::to_text`], with the roles it judges random (by the same
    /// rule as [`Opponents::weigh`]). `Err` names what is not understood.
    pub(super) fn from_text<G: Game>(game: &G, text: &str) -> Result<Opponents, String> {
        let mut opponents = Opponents::default();
        for part in text.split_whitespace() {
            let mut fields = part.rsplitn(3, ':');
            let (Some(weighed), Some(ratio), Some(name)) =
                (fields.next(), fields.next(), fields.next())
            else {
                return Err(format!("not ROLE:RATIO:WEIGHED: `{part}`"));
            };
            let role = crate::subprocess::find_role(game, name)
                .filter(|&r| r < 64)
                .ok_or_else(|| format!("the game has no role `{name}`"))?;
            let ratio: f64 = ratio
                .parse()
                .ok()
                .filter(|r: &f64| r.is_finite())
                .ok_or_else(|| format!("not a ratio: `{ratio}`"))?;
            let weighed: u32 = weighed
                .parse()
                .map_err(|_| format!("not a count of moves: `{weighed}`"))?;
            if opponents.ratio.len() <= role {
                opponents.ratio.resize(role + 1, 0.0);
                opponents.weighed.resize(role + 1, 0);
            }
            opponents.ratio[role] = ratio;
            opponents.weighed[role] = weighed;
        }
        for role in 0..opponents.ratio.len() {
            if opponents.weighed[role] >= MIN_MOVES && opponents.ratio[role] <= -THRESHOLD {
                opponents.random |= 1 << role;
                opponents.names.push(game.role_name(role).to_owned());
            }
        }
        Ok(opponents)
    }

    /// What was judged, for the log: the roles searched as random, by name.
    pub(super) fn describe(&self) -> Option<String> {
        (!self.names.is_empty()).then(|| format!("searched as random: {}", self.names.join(", ")))
    }
}

/// In a game of three roles or more, weighs the move in `joint` of the role that chooses at
/// node `n` (when it is not `me`): whether that role is now judged random.
pub(super) fn weigh_move<G: Game>(
    game: &G,
    opponents: &mut Opponents,
    store: &Store<G>,
    n: u32,
    me: RoleIndex,
    joint: &[G::Move],
) -> bool {
    let Kind::Turn(m) = store.nodes[n as usize].kind else {
        return false;
    };
    let m = m as usize;
    if store.roles() < 3 || m == me || m >= joint.len() {
        return false;
    }
    let moves = store.moves(n, m);
    let Some(played) = moves.iter().position(|s| s.mv == joint[m]) else {
        return false;
    };
    let visits: Vec<u64> = moves.iter().map(|s| u64::from(s.visits)).collect();
    let judged = opponents.weigh(m, &visits, played);
    if judged {
        opponents.names.push(game.role_name(m).to_owned());
    }
    judged
}

#[cfg(test)]
mod tests {
    use super::Opponents;
    use gdl_runtime::SplitMix64;

    /// The tree's visits of 8 moves: most on the first.
    const VISITS: [u64; 8] = [9_000, 300, 200, 150, 120, 100, 80, 50];

    #[test]
    fn a_role_that_plays_at_random_is_judged_random_and_one_that_plays_well_is_not() {
        let mut rng = SplitMix64::new(3);
        let mut opponents = Opponents::default();
        let mut judged_at = None;
        for turn in 0..40 {
            // Role 1 plays uniformly; role 2 the tree's first move 6 times in 10.
            if opponents.weigh(1, &VISITS, rng.below(8)) {
                judged_at = Some(turn);
            }
            let good = if rng.below(10) < 6 { 0 } else { rng.below(8) };
            assert!(!opponents.weigh(2, &VISITS, good));
        }
        assert!(judged_at.is_some_and(|t| t < 20), "{judged_at:?}");
        assert_eq!(opponents.random(), 0b10);
    }

    #[test]
    fn a_surprise_or_a_root_with_few_visits_is_not_enough() {
        let mut opponents = Opponents::default();
        // Three moves the tree hardly visited, then none of note.
        for _ in 0..3 {
            assert!(!opponents.weigh(1, &VISITS, 7));
        }
        assert!(!opponents.weigh(1, &[1, 2, 3], 2));
        assert!(!opponents.weigh(1, &[5_000], 0));
        assert_eq!(opponents.random(), 0);
        assert_eq!(opponents.describe(), None);
    }
}
