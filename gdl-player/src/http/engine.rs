//! The engine of a match: what the match thread asks at START and PLAY, and [`GameEngine`], the
//! engine of any [`Game`] with any [`Player`] (and, for GDL-II's PLAYs with percepts, a
//! [`BeliefPlayer`](crate::BeliefPlayer), through [`Beliefs`]).

use std::time::{Duration, Instant};

use crate::time_control::Deadlines;
use crate::{Beliefs, Player, Spelling};
use gdl_runtime::{Game, SplitMix64};

/// What a match needs from the match thread: the engine of one match, made at START.
pub trait MatchEngine {
    /// Which engine plays (for INFO and the log), e.g. `compiled` or `interpreted`.
    fn describe(&self) -> String;
    /// PLAY: the last joint move (`None` at the first PLAY), and the move to play, chosen
    /// before `deadline`; an error when the moves are not legal in this game. An engine that
    /// can hands `fallback` a legal move of the state reached as soon as the joint move is
    /// applied, before the search: the server sends it if the answer has not come
    /// [`crate::time_control::FALLBACK_AFTER_CLOCK`] after the play clock.
    fn play(
        &mut self,
        moves: Option<&[String]>,
        deadline: Instant,
        fallback: &mut dyn FnMut(String),
    ) -> Result<String, String>;
    /// What the search of the last PLAY did, for the log (e.g. `1200 iterations, 5000 nodes,
    /// value 0.63`), if the engine can say.
    fn last_stats(&self) -> Option<String> {
        None
    }
    /// A GDL-II PLAY: the turn, the move the manager played for us at the last turn (`None`
    /// at turn 0) and what we saw after it; the move to play, chosen before `deadline`.
    fn play_percepts(
        &mut self,
        turn: u64,
        last_move: Option<&str>,
        percepts: &[String],
        deadline: Instant,
    ) -> Result<String, String> {
        let _ = (turn, last_move, percepts, deadline);
        Err("this engine does not play GDL-II matches".into())
    }
    /// Searches on the opponents' time until `until` (soon: the match thread calls it in
    /// short slices while no request waits); returns the iterations run, 0 when there is
    /// nothing to search (the match thread then waits for a request a while).
    fn ponder(&mut self, until: Instant) -> u64 {
        let _ = until;
        0
    }
    /// Between requests of a player that does not ponder: a look, without searching, at
    /// what may have become ready meanwhile (the universal player's build), every quarter
    /// of a second while no request waits.
    fn idle(&mut self) {}
}

/// A legal move of `role` at `state`, drawn at random (as a manager would for a player that
/// does not answer in time), as text: the fallback of [`MatchEngine::play`].
pub fn fallback_move<G: Game>(
    game: &G,
    state: &G::State,
    role: usize,
    legal: &mut Vec<G::Move>,
) -> Option<String> {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let m = game.random_legal_move(state, role, &mut SplitMix64::new(seed), legal)?;
    Some(game.move_text(role, m))
}

/// Makes the engine of a match at START (`Err`: the player will not play it, and answers
/// `busy`, e.g. rules other than the ones it was built for).
pub type EngineFactory =
    Box<dyn FnMut(&StartRequest) -> Result<Box<dyn MatchEngine>, String> + Send>;

/// A START, as the factory sees it.
#[derive(Clone, Debug)]
pub struct StartRequest {
    pub match_id: String,
    pub role: String,
    pub rules: String,
    pub start_clock: Duration,
    pub play_clock: Duration,
    /// When the START arrived, when the search of the start clock is to end (the clock less
    /// the margin and what START keeps more), when the start clock ends.
    pub deadlines: Deadlines,
    /// The server folds case ([`super::ServerOptions::case_fold`]): the rules and the role
    /// are lower-cased, the moves of PLAY too, and are to be matched against the game's
    /// without regard to case.
    pub case_fold: bool,
}

impl StartRequest {
    /// How our moves named in the match's messages are read: without regard to case when
    /// the server folds case.
    pub fn spelling(&self) -> Spelling {
        match self.case_fold {
            true => Spelling::AnyCase,
            false => Spelling::Exact,
        }
    }
}

/// The engine of a match of one game `G` with one player: the moves of PLAY are read with
/// [`Game::parse_move`] and applied; the player chooses the next move.
pub struct GameEngine<G: Game, P: Player<G>> {
    game: G,
    player: P,
    role: usize,
    state: G::State,
    next: G::State,
    describe: String,
    case_fold: bool,
    legal: Vec<G::Move>,
    beliefs: Beliefs<G>,
    /// Where the time of the last PLAY went, when it went astray: how long the player took
    /// to follow the joint move (and cut its tree), and how late its choice came.
    timing: Timing,
}

/// The times of one PLAY worth a word in the log.
#[derive(Clone, Copy, Debug, Default)]
struct Timing {
    observe: Duration,
    late: Duration,
}

impl Timing {
    /// What the log says of them: nothing when both are under 10 ms.
    fn describe(self) -> Option<String> {
        let ms = |d: Duration| d.as_millis();
        let notable = Duration::from_millis(10);
        let mut said = Vec::new();
        if self.observe >= notable {
            said.push(format!("observed in {} ms", ms(self.observe)));
        }
        if self.late >= notable {
            said.push(format!("chose {} ms past the deadline", ms(self.late)));
        }
        (!said.is_empty()).then(|| said.join(", "))
    }
}

impl<G: Game, P: Player<G>> GameEngine<G, P> {
    /// Prepares `player` to play `start.role` of `game`, searching until the start clock ends
    /// (less the margin). `Err` when the game has no such role.
    pub fn new(
        game: G,
        mut player: P,
        start: &StartRequest,
        describe: &str,
    ) -> Result<Self, String> {
        let role = (0..game.role_count())
            .find(|&r| game.role_name(r).eq_ignore_ascii_case(&start.role))
            .ok_or_else(|| format!("the game has no role `{}`", start.role))?;
        player.start(&game, role, start.deadlines.search);
        let state = game.initial_state();
        Ok(GameEngine {
            next: state.clone(),
            state,
            game,
            player,
            role,
            describe: describe.to_string(),
            case_fold: start.case_fold,
            legal: Vec::new(),
            beliefs: Beliefs::new(start.spelling()),
            timing: Timing::default(),
        })
    }

    /// A move of `role` in the current state, from its text; when folding case, a legal move
    /// whose text equals it without regard to case (the game may spell `moveFile`).
    fn read_move(&mut self, role: usize, text: &str) -> Option<G::Move> {
        if let Some(m) = self.game.parse_move(role, text) {
            return Some(m);
        }
        if !self.case_fold {
            return None;
        }
        self.game.legal_moves(&self.state, role, &mut self.legal);
        let mut spelled = String::new();
        self.legal.iter().copied().find(|&m| {
            spelled.clear();
            self.game.write_move(role, m, &mut spelled);
            spelled.eq_ignore_ascii_case(text)
        })
    }
}

impl<G: Game, P: Player<G>> MatchEngine for GameEngine<G, P> {
    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn play(
        &mut self,
        moves: Option<&[String]>,
        deadline: Instant,
        fallback: &mut dyn FnMut(String),
    ) -> Result<String, String> {
        if let Some(moves) = moves {
            if moves.len() != self.game.role_count() {
                return Err(format!(
                    "{} moves for {} roles",
                    moves.len(),
                    self.game.role_count()
                ));
            }
            let joint: Option<Vec<G::Move>> = moves
                .iter()
                .enumerate()
                .map(|(r, m)| self.read_move(r, m))
                .collect();
            let joint = joint.ok_or_else(|| format!("a move of {moves:?} is not of this game"))?;
            self.game.next_state(&self.state, &joint, &mut self.next);
            let began = Instant::now();
            self.player.observe(&self.game, &joint, &self.next);
            self.timing.observe = began.elapsed();
            std::mem::swap(&mut self.state, &mut self.next);
        } else {
            self.timing.observe = Duration::ZERO;
        }
        if let Some(m) = fallback_move(&self.game, &self.state, self.role, &mut self.legal) {
            fallback(m);
        }
        let chosen = self.player.choose(&self.game, &self.state, deadline);
        self.timing.late = Instant::now().saturating_duration_since(deadline);
        match chosen {
            Some(m) => Ok(self.game.move_text(self.role, m)),
            None => Err("no legal move".to_string()),
        }
    }

    fn last_stats(&self) -> Option<String> {
        match self.beliefs.used() {
            true => self.beliefs.stats(),
            false => match (self.player.report(), self.timing.describe()) {
                (Some(r), Some(t)) => Some(format!("{r}; {t}")),
                (r, t) => r.or(t),
            },
        }
    }

    /// [`Player::ponder`], in GDL-I matches (GDL-II's beliefs do not ponder).
    fn ponder(&mut self, until: Instant) -> u64 {
        match self.beliefs.used() {
            true => 0,
            false => self.player.ponder(&self.game, until),
        }
    }

    fn play_percepts(
        &mut self,
        turn: u64,
        last_move: Option<&str>,
        percepts: &[String],
        deadline: Instant,
    ) -> Result<String, String> {
        self.beliefs
            .play(&self.game, self.role, turn, last_move, percepts, deadline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timings_under_10_ms_go_unsaid() {
        let ms = Duration::from_millis;
        let t = |observe, late| Timing { observe, late }.describe();
        assert_eq!(t(ms(9), ms(9)), None);
        assert_eq!(t(ms(812), ms(0)).as_deref(), Some("observed in 812 ms"));
        assert_eq!(
            t(ms(10), ms(272)).as_deref(),
            Some("observed in 10 ms, chose 272 ms past the deadline")
        );
    }
}
