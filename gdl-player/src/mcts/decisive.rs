//! Decisive playouts: in a turn (exactly one role, not GDL-II's `random`, has more than one
//! legal move) the mover plays a move that ends the game with its win when it has one; with
//! `anti`, it also avoids, when it can, a move after which the next mover has such a win.
//! In a game of independent parts ([`super::factors`]), a step where each role with a choice
//! chooses in a part of its own is a turn in each of them: each such role takes a win, and
//! with `anti` avoids giving one to the next role to choose in the part it moves in, with the
//! other roles' moves drawn at random (they change other parts only). Every other step
//! (simultaneous choices, forced moves, `random`) is uniform.
//!
//! A *win* for role `r` is a terminal state where `r`'s goal is at least the highest goal `r`
//! has had in a terminal state of a playout so far (100 before any) and above every other
//! role's goal (above 0 in a game of one role): it holds for games whose goals are not 0 and
//! 100, and never calls a draw or a shared result a win.
//!
//! Only moves seen to end the game are tried for wins (Sancho's "terminating moves"): each
//! role's moves after which a playout reached a terminal state are remembered by their
//! number, and a step computes the state after a move only for those. Where a few moves end
//! the game (a piece reaching the last row) a step then costs about what a uniform one does
//! until such a move is legal; where any move may end it (a line of four), every move is
//! tried. Avoiding the next mover's wins costs, for each move tried (a move without such a
//! reply, drawn in a random order, is usually the first), the next mover's legal moves and
//! the states after those of them seen to end the game.

use super::factors::Found;
use super::move_ids::MoveIds;
use gdl_runtime::{Game, RoleIndex, SplitMix64};

/// The index among a role's legal moves from which [`Decisive::step_ordered`] tries the
/// mover's moves.
pub(super) type First<'a, M> = dyn FnMut(RoleIndex, &[M], &mut SplitMix64) -> usize + 'a;

/// The buffers of decisive playouts and what they learnt of the goals and the moves.
pub(super) struct Decisive<G: Game> {
    anti: bool,
    /// Per role: its legal moves in the state of the step.
    moves: Vec<Vec<G::Move>>,
    /// Per role: its legal moves in the state after the move an anti-decisive step played,
    /// when [`Decisive::pending`] says they are all there (the next step starts from them).
    after_moves: Vec<Vec<G::Move>>,
    pending: bool,
    joint: Vec<G::Move>,
    reply_joint: Vec<G::Move>,
    after_reply: G::State,
    /// Per role: the highest goal it had in a terminal state of a playout.
    top: Vec<Option<i32>>,
    ids: MoveIds<G>,
    /// Per role, by the move's number: whether the move was seen to end the game.
    ending: Vec<Vec<bool>>,
    /// What the steps found.
    pub(super) counts: Counts,
    /// Whether the checks changed a turn of this playout.
    changed: bool,
    /// The parts of a factored game ([`Decisive::with_parts`]), and the roles choosing in a
    /// part of their own at the step, with their parts.
    parts: Option<Found<G>>,
    movers: Vec<(RoleIndex, usize)>,
    /// The parts whose next mover this step found without a win at once, and those the last
    /// step found.
    safe_parts: Vec<usize>,
    safe_before: Vec<usize>,
}

/// What decisive steps found, for the measurement at the start clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Counts {
    /// Turns (steps with one mover).
    pub(super) turns: u64,
    /// Steps (every role had a legal move).
    pub(super) steps: u64,
    /// Steps where two roles or more (not `random`) had a choice.
    pub(super) together: u64,
    /// Turns where the mover had a move seen to end the game, and those moves were tried.
    pub(super) tried: u64,
    /// Turns where the mover took a win.
    pub(super) wins: u64,
    /// Turns where a move tried gave the next mover a win and the mover played another.
    pub(super) avoided: u64,
    /// Playouts started ([`Decisive::restart`]).
    pub(super) playouts: u64,
    /// Playouts with at least one turn the checks changed.
    pub(super) changed_playouts: u64,
}

impl Counts {
    /// The share of playouts with a turn whose move the checks changed (`None` before a
    /// playout).
    pub(super) fn changed_share(&self) -> Option<f64> {
        (self.playouts > 0).then(|| self.changed_playouts as f64 / self.playouts as f64)
    }

    /// Whether the roles took turns: no more than `max_share` of the steps had two roles or
    /// more with a choice (`None` before a step).
    pub(super) fn turn_taking(&self, max_share: f64) -> Option<bool> {
        (self.steps > 0).then_some(self.together as f64 <= max_share * self.steps as f64)
    }

    /// The share of turns whose move the checks changed (a win taken or one given avoided),
    /// of turns where they tried a move, and of playouts they changed.
    pub(super) fn describe(&self) -> String {
        let turns = self.turns.max(1) as f64;
        format!(
            "{:.1}% of {} turns changed, {:.1}% tried, {:.0}% of {} playouts changed, \
             {:.1}% of {} steps with two roles choosing",
            100.0 * (self.wins + self.avoided) as f64 / turns,
            self.turns,
            100.0 * self.tried as f64 / turns,
            100.0 * self.changed_share().unwrap_or(0.0),
            self.playouts,
            100.0 * self.together as f64 / self.steps.max(1) as f64,
            self.steps
        )
    }
}

/// The state after a move, as anti-decisive steps see it.
enum After {
    Terminal,
    Safe,
    /// Safe, and every role's legal moves are in [`Decisive::after_moves`].
    Known,
    GivesAWin,
}

impl<G: Game> Decisive<G> {
    pub(super) fn new(game: &G, state: &G::State, anti: bool) -> Self {
        let roles = game.role_count();
        Decisive {
            anti,
            moves: vec![Vec::new(); roles],
            after_moves: vec![Vec::new(); roles],
            pending: false,
            changed: false,
            joint: Vec::new(),
            reply_joint: Vec::new(),
            after_reply: state.clone(),
            top: vec![None; roles],
            ids: MoveIds::new(game),
            ending: vec![Vec::new(); roles],
            counts: Counts::default(),
            parts: None,
            movers: Vec::new(),
            safe_parts: Vec::new(),
            safe_before: Vec::new(),
        }
    }

    /// The checks also at steps where each role with a choice chooses in a part of its own
    /// among `parts`.
    pub(super) fn with_parts(mut self, parts: Found<G>) -> Self {
        self.parts = Some(parts);
        self
    }

    /// Notes the goals of the terminal `state` a playout reached.
    pub(super) fn saw_end(&mut self, game: &G, state: &G::State) {
        for (r, top) in self.top.iter_mut().enumerate() {
            if let Some(g) = game.goal(state, r) {
                *top = Some(top.map_or(g, |t| t.max(g)));
            }
        }
    }

    /// Whether role `r`'s move `mv` was seen to end the game.
    fn ends(&self, game: &G, r: RoleIndex, mv: G::Move) -> bool {
        self.ids
            .get(game, r, mv)
            .is_some_and(|i| self.ending[r].get(i).copied().unwrap_or(false))
    }

    /// Notes that role `r`'s move `mv` ended the game.
    fn saw_ending(&mut self, game: &G, r: RoleIndex, mv: G::Move) {
        let i = self.ids.id(game, r, mv);
        let ending = &mut self.ending[r];
        if i >= ending.len() {
            ending.resize(i + 1, false);
        }
        ending[i] = true;
    }

    /// Whether the terminal `state` is a win for `r`.
    fn wins(&self, game: &G, state: &G::State, r: RoleIndex) -> bool {
        let Some(g) = game.goal(state, r) else {
            return false;
        };
        let roles = game.role_count();
        g >= self.top[r].unwrap_or(100)
            && (0..roles)
                .filter(|&o| o != r)
                .all(|o| game.goal(state, o).is_none_or(|h| g > h))
            && (roles > 1 || g > 0)
    }

    /// The joint move of the last [`Decisive::step`].
    pub(super) fn joint(&self) -> &[G::Move] {
        &self.joint
    }

    /// One step from `state` into `next`; false when a role has no legal move. The steps of
    /// a playout follow each other (each from the last one's `next`) until
    /// [`Decisive::restart`]: a step may start from the legal moves the last one computed.
    pub(super) fn step(
        &mut self,
        game: &G,
        state: &G::State,
        rng: &mut SplitMix64,
        next: &mut G::State,
    ) -> bool {
        self.step_ordered(game, state, rng, next, &mut |_, moves, rng| {
            rng.below(moves.len())
        })
    }

    /// [`Decisive::step`] where the mover's moves are tried (anti-decisive) or drawn from the
    /// index `first` gives (among the role's legal moves), then in their order: the uniform
    /// draw of [`Decisive::step`], or a playout policy's preference.
    pub(super) fn step_ordered(
        &mut self,
        game: &G,
        state: &G::State,
        rng: &mut SplitMix64,
        next: &mut G::State,
        first: &mut First<'_, G::Move>,
    ) -> bool {
        self.joint.clear();
        let known = std::mem::take(&mut self.pending);
        std::mem::swap(&mut self.safe_parts, &mut self.safe_before);
        self.safe_parts.clear();
        if known {
            std::mem::swap(&mut self.moves, &mut self.after_moves);
        }
        // The roles with a choice (`random` counted), the last of them, and those not `random`.
        let (mut choosers, mut last, mut players) = (0, 0, 0);
        for r in 0..game.role_count() {
            if !known {
                game.legal_moves(state, r, &mut self.moves[r]);
            }
            let moves = &self.moves[r];
            if moves.is_empty() {
                return false;
            }
            if moves.len() > 1 {
                choosers += 1;
                last = r;
                players += usize::from(!game.is_random_role(r));
            }
            self.joint.push(moves[rng.below(moves.len())]);
        }
        self.counts.steps += 1;
        self.counts.together += u64::from(players > 1);
        // A turn: exactly one role has a choice, and it is not `random`.
        let mover = (choosers == 1 && players == 1).then_some(last);
        let Some(m) = mover else {
            if self.turns_in_parts(game) {
                self.part_step(game, state, rng, next);
            } else {
                game.next_state(state, &self.joint, next);
            }
            return true;
        };
        self.counts.turns += 1;
        let n = self.moves[m].len();
        // After an anti-decisive step that found a safe move, the mover has no win: that step
        // checked its replies.
        if !known && self.take_win(game, state, m, next) {
            return true;
        }
        let offset = first(m, &self.moves[m], rng).min(n - 1);
        if self.anti {
            for k in 0..n {
                let mv = self.moves[m][(offset + k) % n];
                self.joint[m] = mv;
                game.next_state(state, &self.joint, next);
                match self.after(game, next, m) {
                    After::Terminal => {
                        self.saw_ending(game, m, mv);
                        return true;
                    }
                    After::Safe => {
                        self.avoided(k > 0);
                        return true;
                    }
                    After::Known => {
                        self.pending = true;
                        self.avoided(k > 0);
                        return true;
                    }
                    After::GivesAWin => {}
                }
            }
        }
        let mv = self.moves[m][offset];
        self.joint[m] = mv;
        game.next_state(state, &self.joint, next);
        if !self.anti && game.is_terminal(next) {
            self.saw_ending(game, m, mv);
        }
        true
    }

    /// Whether mover `m` has a move seen to end the game that wins at once, the other roles
    /// playing their moves in [`Decisive::joint`]: then that move is in the joint and `next`
    /// is the state after it.
    fn take_win(&mut self, game: &G, state: &G::State, m: RoleIndex, next: &mut G::State) -> bool {
        let mut tried = false;
        for i in 0..self.moves[m].len() {
            let mv = self.moves[m][i];
            if !self.ends(game, m, mv) {
                continue;
            }
            tried = true;
            self.joint[m] = mv;
            game.next_state(state, &self.joint, next);
            if game.is_terminal(next) && self.wins(game, next, m) {
                self.counts.tried += 1;
                self.counts.wins += 1;
                self.note_change();
                return true;
            }
        }
        self.counts.tried += u64::from(tried);
        false
    }

    /// Whether the roles with a choice at this step (two or more, not `random`) choose in
    /// parts of their own; they are then [`Decisive::movers`].
    fn turns_in_parts(&mut self, game: &G) -> bool {
        self.movers.clear();
        let Some(parts) = &self.parts else {
            return false;
        };
        for (r, moves) in self.moves.iter().enumerate() {
            if moves.len() < 2 {
                continue;
            }
            let part = parts.factors.of_choice(&parts.ids, game, r, moves);
            match part {
                Some(p) if !game.is_random_role(r) && self.movers.iter().all(|&(_, q)| q != p) => {
                    self.movers.push((r, p));
                }
                _ => return false,
            }
        }
        self.movers.len() > 1
    }

    /// A step where each of [`Decisive::movers`] has a turn in its own part: each takes a
    /// win when it has one (the others' moves as drawn), else with `anti` the first of its
    /// moves from a random one that gives the next role to choose in its part no win at
    /// once.
    fn part_step(&mut self, game: &G, state: &G::State, rng: &mut SplitMix64, next: &mut G::State) {
        for k in 0..self.movers.len() {
            let (m, part) = self.movers[k];
            self.counts.turns += 1;
            let drawn = self.joint[m];
            // The last step checked this mover's replies in its part: it has no win there.
            if !self.safe_before.contains(&part) && self.take_win(game, state, m, next) {
                return;
            }
            self.joint[m] = drawn;
        }
        if self.anti {
            for k in 0..self.movers.len() {
                let (m, part) = self.movers[k];
                let n = self.moves[m].len();
                let offset = rng.below(n);
                for j in 0..n {
                    let mv = self.moves[m][(offset + j) % n];
                    self.joint[m] = mv;
                    game.next_state(state, &self.joint, next);
                    let gives = self.gives_a_win_in(game, next, m, part);
                    if gives != Some(true) {
                        if gives == Some(false) {
                            self.safe_parts.push(part);
                        }
                        self.avoided(j > 0);
                        break;
                    }
                    if j + 1 == n {
                        self.joint[m] = self.moves[m][offset];
                    }
                }
            }
        }
        game.next_state(state, &self.joint, next);
        if game.is_terminal(next) {
            for k in 0..self.movers.len() {
                let (m, _) = self.movers[k];
                self.saw_ending(game, m, self.joint[m]);
            }
        }
    }

    /// Whether in `state`, reached by a move of `me` in part `part`, another role choosing in
    /// that part next has a move seen to end the game that wins at once (the other roles
    /// playing their first legal moves); `None` when no such role was checked (the game is
    /// over, or none chooses there next).
    fn gives_a_win_in(
        &mut self,
        game: &G,
        state: &G::State,
        me: RoleIndex,
        part: usize,
    ) -> Option<bool> {
        let parts = self.parts.as_ref()?;
        if game.is_terminal(state) {
            return None;
        }
        self.reply_joint.clear();
        let mut rival = None;
        for r in 0..game.role_count() {
            let replies = &mut self.after_moves[r];
            game.legal_moves(state, r, replies);
            let &first = replies.first()?;
            self.reply_joint.push(first);
            if r != me
                && !game.is_random_role(r)
                && parts.factors.of_choice(&parts.ids, game, r, replies) == Some(part)
            {
                rival = Some(r);
            }
        }
        let o = rival?;
        Some(self.reply_wins(game, state, o))
    }

    /// Whether role `o` has, among its legal moves in `state` ([`Decisive::after_moves`]), one
    /// seen to end the game that wins at once, the others playing their moves in
    /// [`Decisive::reply_joint`].
    fn reply_wins(&mut self, game: &G, state: &G::State, o: RoleIndex) -> bool {
        for i in 0..self.after_moves[o].len() {
            let reply = self.after_moves[o][i];
            if !self.ends(game, o, reply) {
                continue;
            }
            self.reply_joint[o] = reply;
            game.next_state(state, &self.reply_joint, &mut self.after_reply);
            if game.is_terminal(&self.after_reply) && self.wins(game, &self.after_reply, o) {
                return true;
            }
        }
        false
    }

    /// What `state`, reached by a move of `me`, is: terminal, or another role is the mover
    /// and has a move seen to end the game that wins at once, or neither.
    fn after(&mut self, game: &G, state: &G::State, me: RoleIndex) -> After {
        if game.is_terminal(state) {
            return After::Terminal;
        }
        self.reply_joint.clear();
        let mut mover = None;
        for r in 0..game.role_count() {
            let replies = &mut self.after_moves[r];
            game.legal_moves(state, r, replies);
            match replies.len() {
                0 => return After::Safe,
                1 => self.reply_joint.push(replies[0]),
                _ if mover.is_some() || game.is_random_role(r) || r == me => return After::Safe,
                _ => {
                    mover = Some(r);
                    self.reply_joint.push(replies[0]);
                }
            }
        }
        match mover {
            Some(o) if self.reply_wins(game, state, o) => After::GivesAWin,
            _ => After::Known,
        }
    }

    /// Counts a turn whose move the checks changed to avoid giving a win, when `changed`.
    fn avoided(&mut self, changed: bool) {
        if changed {
            self.counts.avoided += 1;
            self.note_change();
        }
    }

    /// Counts this playout as changed by the checks, once.
    fn note_change(&mut self) {
        if !self.changed {
            self.changed = true;
            self.counts.changed_playouts += 1;
        }
    }

    /// A playout starts: the next step computes its legal moves.
    pub(super) fn restart(&mut self) {
        self.pending = false;
        self.safe_parts.clear();
        self.changed = false;
        self.counts.playouts += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::super::policy::Playout;
    use super::Decisive;
    use crate::PlayoutPolicy;
    use crate::tests::{Pos, Table, TableState, To, trap, turn_of_first};
    use gdl_runtime::{Game, SplitMix64};

    /// The states one step of `d` reaches from `from`, over 200 draws.
    fn steps(d: &mut Decisive<Table>, game: &Table, from: TableState) -> Vec<TableState> {
        let mut rng = SplitMix64::new(3);
        let mut next = from;
        let mut seen = Vec::new();
        for _ in 0..200 {
            d.restart();
            assert!(d.step(game, &from, &mut rng, &mut next));
            if !seen.contains(&next) {
                seen.push(next);
            }
        }
        seen
    }

    #[test]
    fn the_mover_takes_a_win_in_one() {
        // Move 13 of 20 wins for the first role; the others lead to the long game.
        let game = Table {
            roles: vec!["first", "second"],
            positions: vec![
                turn_of_first(20, |i| if i == 13 { To::At(1) } else { To::Long }),
                Pos::End(vec![100, 0]),
            ],
            long: 200,
        };
        let from = TableState::At(0);
        let mut d = Decisive::new(&game, &from, false);
        // Until move 13 is seen to end the game, moves are uniform.
        assert!(steps(&mut d, &game, from).len() > 1);
        assert_eq!(steps(&mut d, &game, from), [TableState::At(1)]);
        assert!(d.counts.wins > 0 && d.counts.tried >= d.counts.wins);
        // Playouts of one step each: a playout is changed when its win was taken.
        assert_eq!(d.counts.playouts, 400);
        assert_eq!(d.counts.changed_playouts, d.counts.wins);
        assert!(d.counts.changed_share() >= Some(0.5));
    }

    #[test]
    fn decisive_steps_only_in_the_first_steps_of_a_playout() {
        // Move 13 of 20 wins for the first role at once; the others lead to the long game,
        // which the second role wins about half the time.
        let game = Table {
            roles: vec!["first", "second"],
            positions: vec![
                turn_of_first(20, |i| if i == 13 { To::At(1) } else { To::Long }),
                Pos::End(vec![100, 0]),
            ],
            long: 20,
        };
        let from = TableState::At(0);
        let mut rng = SplitMix64::new(5);
        let lost = |steps: Option<usize>, rng: &mut SplitMix64| {
            let mut p =
                Playout::new(&game, &from, PlayoutPolicy::Decisive).with_decisive_steps(steps);
            // The first playouts learn which move ends the game.
            for _ in 0..100 {
                p.run(&game, &from, rng, 1000);
            }
            (0..100)
                .filter(|_| p.run(&game, &from, rng, 1000)[0] < 1.0)
                .count()
        };
        // The win is taken in the first step.
        assert_eq!(lost(None, &mut rng), 0);
        assert_eq!(lost(Some(1), &mut rng), 0);
        // With no decisive step, the first move is uniform: the long game is mostly played.
        assert!(lost(Some(0), &mut rng) > 20);
    }

    #[test]
    fn anti_decisive_avoids_giving_a_win_in_one() {
        // After each move of the first role but move 5, the second has a win in one (reply
        // 3); move 5 leads to the long game, where the first moves again.
        let game = trap(10);
        let from = TableState::At(0);
        let long = TableState::Long { left: 200, sum: 0 };
        let mut anti = Decisive::new(&game, &from, true);
        // Before reply 3 is seen to end the game, the trap is not seen.
        assert!(steps(&mut anti, &game, from).contains(&TableState::At(1)));
        steps(&mut anti, &game, TableState::At(1));
        assert_eq!(steps(&mut anti, &game, from), [long]);
        assert!(anti.counts.avoided > 0);
        assert_eq!(
            anti.counts.changed_playouts,
            anti.counts.wins + anti.counts.avoided
        );
        // Decisive moves alone play into the trap, where the second role takes its win.
        let mut decisive = Decisive::new(&game, &from, false);
        let reached = steps(&mut decisive, &game, from);
        assert!(reached.contains(&TableState::At(1)), "{reached:?}");
        steps(&mut decisive, &game, TableState::At(1));
        assert_eq!(
            steps(&mut decisive, &game, TableState::At(1)),
            [TableState::At(2)]
        );
    }

    #[test]
    fn the_mover_s_moves_are_tried_from_the_one_asked() {
        // Move 5 alone is safe once reply 3 is seen to end the game.
        let game = trap(10);
        let from = TableState::At(0);
        let long = TableState::Long { left: 200, sum: 0 };
        let mut rng = SplitMix64::new(5);
        let mut next = from;
        let mut step = |d: &mut Decisive<Table>, state: TableState, first: usize| {
            d.restart();
            assert!(
                d.step_ordered(&game, &state, &mut rng, &mut next, &mut |_, moves, _| {
                    assert_eq!(moves.len(), 8, "the mover's moves");
                    first
                })
            );
            next
        };
        // Without checks the move asked is played.
        let mut decisive = Decisive::new(&game, &from, false);
        assert_eq!(step(&mut decisive, from, 2), TableState::At(1));
        assert_eq!(step(&mut decisive, from, 5), long);
        // With them, from the move asked on: the safe one at once, or after the traps.
        let mut anti = Decisive::new(&game, &from, true);
        // Reply 3 seen to end the game.
        assert_eq!(step(&mut anti, TableState::At(1), 3), TableState::At(2));
        assert_eq!(step(&mut anti, from, 5), long);
        assert_eq!(anti.counts.avoided, 0, "nothing avoided");
        assert_eq!(step(&mut anti, from, 6), long);
        assert_eq!(anti.counts.avoided, 1, "moves 6, 7 and 0 to 4 avoided");
    }

    #[test]
    fn anti_decisive_playouts_play_legal_moves_only() {
        // A step may start from the legal moves the last step's check computed: each joint
        // move of a playout is legal in the state it is played in.
        let game = crate::tests::Nim { pile: 40 };
        let from = game.initial_state();
        let mut p = Playout::new(&game, &from, PlayoutPolicy::AntiDecisive);
        p.keep_joints();
        let mut rng = SplitMix64::new(9);
        let (mut moves, mut next) = (Vec::new(), from);
        for _ in 0..200 {
            p.run(&game, &from, &mut rng, 1000);
            let mut state = from;
            for joint in p.joints().expect("kept").chunks(2) {
                for (r, mv) in joint.iter().enumerate() {
                    game.legal_moves(&state, r, &mut moves);
                    assert!(moves.contains(mv), "{state:?}: {joint:?}");
                }
                game.next_state(&state, joint, &mut next);
                state = next;
            }
            assert!(game.is_terminal(&state));
        }
    }

    #[test]
    fn a_win_is_the_highest_goal_seen_not_100() {
        // One role; moves 0 and 2 end with 50, move 1 with 30, move 3 goes on.
        let game = Table {
            roles: vec!["only"],
            positions: vec![
                Pos::Moves(vec![4], vec![To::At(1), To::At(2), To::At(1), To::At(3)]),
                Pos::End(vec![50]),
                Pos::End(vec![30]),
                Pos::Moves(vec![1], vec![To::At(2)]),
            ],
            long: 0,
        };
        let from = TableState::At(0);
        let mut d = Decisive::new(&game, &from, false);
        // Before any playout ended, only 100 wins: every move is played (moves 0 and 2
        // reach one state).
        assert_eq!(steps(&mut d, &game, from).len(), 3);
        d.saw_end(&game, &TableState::At(2));
        d.saw_end(&game, &TableState::At(1));
        assert_eq!(steps(&mut d, &game, from), [TableState::At(1)]);
    }

    #[test]
    fn simultaneous_choices_and_shared_results_are_not_wins() {
        // Both roles choose at once; joint move (1, 1) ends with a win for the first.
        let game = Table {
            roles: vec!["a", "b"],
            positions: vec![
                Pos::Moves(vec![2, 2], vec![To::At(2), To::At(2), To::At(2), To::At(1)]),
                Pos::End(vec![100, 0]),
                Pos::Moves(vec![3, 1], vec![To::At(3), To::At(4), To::At(4)]),
                Pos::End(vec![100, 100]),
                Pos::End(vec![0, 0]),
            ],
            long: 0,
        };
        let mut d = Decisive::new(&game, &TableState::At(0), false);
        let reached = steps(&mut d, &game, TableState::At(0));
        assert_eq!(reached.len(), 2, "{reached:?}");
        // A shared 100 is no win: the mover's moves are drawn uniformly.
        let reached = steps(&mut d, &game, TableState::At(2));
        assert_eq!(reached.len(), 2, "{reached:?}");
        assert!(game.is_terminal(&TableState::At(3)));
    }
}
