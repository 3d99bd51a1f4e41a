use std::time::{Duration, Instant};

use super::root::{RootMove, choose_root, merge_root_moves};
use super::*;
use gdl_runtime::Game;

/// Two roles take 1 or 2 from a pile in turn; whoever takes the last wins (100, the other 0).
/// A pile that is a multiple of 3 is lost for the role to move.
#[derive(Clone, Copy, Debug)]
pub(super) struct Nim {
    pub(super) pile: u32,
}

impl Game for Nim {
    /// (pile, role to move)
    type State = (u32, usize);
    type Move = u8;

    fn role_count(&self) -> usize {
        2
    }

    fn role_name(&self, role: RoleIndex) -> &str {
        ["first", "second"][role]
    }

    fn initial_state(&self) -> (u32, usize) {
        (self.pile, 0)
    }

    fn is_terminal(&self, s: &(u32, usize)) -> bool {
        s.0 == 0
    }

    fn legal_moves(&self, s: &(u32, usize), role: RoleIndex, out: &mut Vec<u8>) {
        out.clear();
        if role != s.1 {
            out.push(0); // noop
        } else {
            out.push(1);
            if s.0 >= 2 {
                out.push(2);
            }
        }
    }

    fn next_state(&self, s: &(u32, usize), joint: &[u8], next: &mut (u32, usize)) {
        *next = (s.0.saturating_sub(u32::from(joint[s.1])), 1 - s.1);
    }

    fn goal(&self, s: &(u32, usize), role: RoleIndex) -> Option<i32> {
        // The role that just moved (not the one to move) took the last.
        Some(if role != s.1 { 100 } else { 0 })
    }

    fn write_move(&self, _role: RoleIndex, mv: u8, out: &mut String) {
        out.push_str(["noop", "(take 1)", "(take 2)"][mv as usize]);
    }

    fn parse_move(&self, _role: RoleIndex, _text: &str) -> Option<u8> {
        None
    }

    fn write_state(&self, s: &(u32, usize), out: &mut Vec<String>) {
        out.push(format!("(pile {})", s.0));
    }
}

pub(super) fn far() -> Instant {
    Instant::now() + Duration::from_secs(60)
}

fn mcts(iterations: u64, seed: u64) -> Mcts<Nim> {
    Mcts::new(MctsOptions {
        max_iterations: Some(iterations),
        seed,
        ..MctsOptions::default()
    })
}

#[test]
fn mcts_finds_the_winning_move() {
    let game = Nim { pile: 10 };
    for pile in [4u32, 5, 7, 8, 10] {
        let mut p = mcts(3000, u64::from(pile));
        p.start(&game, 0, Instant::now());
        let mv = p.choose(&game, &(pile, 0), far());
        assert_eq!(mv, Some((pile % 3) as u8), "pile {pile}: {:?}", p.stats());
        assert!(p.stats().value > 0.8, "pile {pile}: {:?}", p.stats());
    }
}

#[test]
fn mcts_plays_the_second_role_too() {
    let game = Nim { pile: 10 };
    let mut p = mcts(3000, 5);
    p.start(&game, 1, Instant::now());
    assert_eq!(p.choose(&game, &(8, 1), far()), Some(2));
    // Not its turn: the only move.
    assert_eq!(p.choose(&game, &(8, 0), far()), Some(0));
}

#[test]
fn the_baseline_copies_the_subtree_kept_between_moves() {
    let game = Nim { pile: 12 };
    let mut p = BaselineMcts::new(MctsOptions {
        max_iterations: Some(2000),
        seed: 3,
        ..MctsOptions::default()
    });
    p.start(&game, 0, Instant::now());
    let state = (11, 0);
    let mv = p.choose(&game, &state, far()).unwrap();
    let before = p.stats().nodes;
    let joint = [mv, 0];
    let mut next = state;
    game.next_state(&state, &joint, &mut next);
    let (all, _) = p.check_tree().unwrap();
    assert_eq!(all, before);
    p.observe(&game, &joint, &next);
    // What is kept is exactly the subtree of the move played, renumbered, with its visits.
    let (kept, visits) = p.check_tree().unwrap();
    assert_eq!(kept, p.tree_size());
    assert!(visits > 0);
    assert!(
        p.tree_size() > 1 && p.tree_size() < before,
        "{} nodes kept of {before}",
        p.tree_size()
    );
    assert_eq!(p.root_state(), Some(&next));
}

#[test]
fn a_past_deadline_still_gets_a_legal_move() {
    let game = Nim { pile: 30 };
    let past = Instant::now() - Duration::from_millis(1);
    let mut players: Vec<Box<dyn Player<Nim>>> = vec![
        Box::new(RandomPlayer::new(1)),
        Box::new(FlatMonteCarlo::new(1)),
        Box::new(Mcts::new(MctsOptions::default())),
    ];
    for p in &mut players {
        p.start(&game, 0, past);
        let mv = p.choose(&game, &(30, 0), past);
        assert!(matches!(mv, Some(1 | 2)), "{}: {mv:?}", p.name());
    }
}

#[test]
fn the_deadline_is_kept() {
    let game = Nim { pile: 1000 };
    let mut p = Mcts::new(MctsOptions::default());
    p.start(&game, 0, Instant::now());
    let start = Instant::now();
    let deadline = start + Duration::from_millis(100);
    assert!(p.choose(&game, &(1000, 0), deadline).is_some());
    // Checked every 8 iterations; an iteration of this game takes microseconds (the margin is
    // for a loaded machine: without the check the search would never end).
    assert!(Instant::now() < deadline + Duration::from_millis(500));
    assert!(p.stats().iterations > 0);
}

#[test]
fn the_node_budget_is_kept() {
    let game = Nim { pile: 40 };
    let mut p = Mcts::new(MctsOptions {
        max_nodes: 50,
        max_iterations: Some(5000),
        ..MctsOptions::default()
    });
    p.start(&game, 0, Instant::now());
    assert!(p.choose(&game, &(40, 0), far()).is_some());
    assert!(p.stats().nodes <= 50, "{:?}", p.stats());
}

#[test]
fn mcts_beats_random_at_nim() {
    let game = Nim { pile: 14 };
    let mut wins = 0;
    for seed in 0..20 {
        let mut a = mcts(500, seed);
        let mut b = RandomPlayer::new(seed + 100);
        Player::<Nim>::start(&mut a, &game, 0, far());
        Player::<Nim>::start(&mut b, &game, 1, far());
        let mut s = game.initial_state();
        while !game.is_terminal(&s) {
            let joint = [
                a.choose(&game, &s, far()).unwrap(),
                b.choose(&game, &s, far()).unwrap(),
            ];
            let mut next = s;
            game.next_state(&s, &joint, &mut next);
            a.observe(&game, &joint, &next);
            s = next;
        }
        wins += usize::from(game.goal(&s, 0) == Some(100));
    }
    // 14 is a won pile for the first role: perfect play wins every game.
    assert_eq!(wins, 20);
}

#[test]
fn parallel_mcts_proves_the_winning_move_and_uses_every_tree() {
    let game = Nim { pile: 10 };
    let mut p = ParallelMcts::new(
        MctsOptions {
            max_iterations: Some(2000),
            ..MctsOptions::default()
        },
        2,
    );
    p.start(&game, 0, Instant::now());
    assert_eq!(p.choose(&game, &(7, 0), far()), Some(1));
    assert!(p.stats().proven, "{:?}", p.stats());
    // A root that is not proven: every tree runs its budget.
    let game = Table {
        roles: vec!["first", "second"],
        positions: vec![turn_of_first(3, |_| To::Long)],
        long: 200,
    };
    let mut p = ParallelMcts::new(
        MctsOptions {
            max_iterations: Some(2000),
            ..MctsOptions::default()
        },
        2,
    );
    p.start(&game, 0, Instant::now());
    assert!(p.choose(&game, &TableState::At(0), far()).is_some());
    assert_eq!(p.stats().iterations, 4000, "{:?}", p.stats());
}

/// Where a position of [`Table`] leads.
#[derive(Clone, Copy, Debug)]
pub(super) enum To {
    At(u32),
    /// [`Table::long`] turns of the parity game.
    Long,
}

/// A position of [`Table`].
#[derive(Clone, Debug)]
pub(super) enum Pos {
    /// Terminal, with every role's goal.
    End(Vec<i32>),
    /// Each role's number of moves, and where each joint move leads (the joint move's index
    /// is mixed radix, role 0 the most significant).
    Moves(Vec<u8>, Vec<To>),
}

/// A game given as a table of positions (the first is the initial one) that may lead into a
/// long game: roles 0 and 1 take turns adding 1 or 2 to a sum, `long` turns in all; an even
/// sum wins for role 0, an odd one for role 1 (100, every other role 0). Random play gives
/// each of the two about 50, and a search of a few hundred iterations proves nothing of it
/// (with transpositions, its states are some `long * long / 2` nodes: a long game of 30
/// turns is small enough to be proven, one of 200 is not).
#[derive(Clone, Debug)]
pub(super) struct Table {
    pub(super) roles: Vec<&'static str>,
    pub(super) positions: Vec<Pos>,
    pub(super) long: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum TableState {
    At(u32),
    Long { left: u8, sum: u16 },
}

impl Game for Table {
    type State = TableState;
    type Move = u8;

    fn role_count(&self) -> usize {
        self.roles.len()
    }

    fn role_name(&self, role: RoleIndex) -> &str {
        self.roles[role]
    }

    fn initial_state(&self) -> TableState {
        TableState::At(0)
    }

    fn is_terminal(&self, s: &TableState) -> bool {
        match *s {
            TableState::At(p) => matches!(self.positions[p as usize], Pos::End(_)),
            TableState::Long { left, .. } => left == 0,
        }
    }

    fn legal_moves(&self, s: &TableState, role: RoleIndex, out: &mut Vec<u8>) {
        out.clear();
        let count = match *s {
            TableState::At(p) => match &self.positions[p as usize] {
                Pos::End(_) => 0,
                Pos::Moves(counts, _) => counts[role],
            },
            TableState::Long { left: 0, .. } => 0,
            TableState::Long { left, .. } => {
                if role == usize::from(left % 2) {
                    2
                } else {
                    1
                }
            }
        };
        out.extend(0..count);
    }

    fn next_state(&self, s: &TableState, joint: &[u8], next: &mut TableState) {
        *next = match *s {
            TableState::At(p) => {
                let Pos::Moves(counts, to) = &self.positions[p as usize] else {
                    return;
                };
                let index = joint
                    .iter()
                    .zip(counts)
                    .fold(0usize, |i, (&m, &c)| i * usize::from(c) + usize::from(m));
                match to[index] {
                    To::At(q) => TableState::At(q),
                    To::Long => TableState::Long {
                        left: self.long,
                        sum: 0,
                    },
                }
            }
            TableState::Long { left, sum } => TableState::Long {
                left: left - 1,
                sum: sum + 1 + u16::from(joint[usize::from(left % 2)]),
            },
        };
    }

    fn goal(&self, s: &TableState, role: RoleIndex) -> Option<i32> {
        match *s {
            TableState::At(p) => match &self.positions[p as usize] {
                Pos::End(goals) => Some(goals[role]),
                Pos::Moves(..) => None,
            },
            TableState::Long { sum, .. } => {
                Some(if usize::from(sum % 2) == role { 100 } else { 0 })
            }
        }
    }

    fn write_move(&self, _role: RoleIndex, mv: u8, out: &mut String) {
        out.push_str(&format!("(m {mv})"));
    }

    fn parse_move(&self, _role: RoleIndex, _text: &str) -> Option<u8> {
        None
    }

    fn write_state(&self, s: &TableState, out: &mut Vec<String>) {
        out.push(format!("{s:?}"));
    }
}

/// A turn of role 0 of two among `width` moves, whose joint moves (role 1 plays its only
/// move) lead to `to(i)`.
/// Matching pennies: both roles choose at once, every joint move ends the game (the first
/// wins when the moves match).
pub(super) fn matching_pennies() -> Table {
    Table {
        roles: vec!["even", "odd"],
        positions: vec![
            Pos::Moves(vec![2, 2], vec![To::At(1), To::At(2), To::At(2), To::At(1)]),
            Pos::End(vec![100, 0]),
            Pos::End(vec![0, 100]),
        ],
        long: 0,
    }
}

pub(super) fn turn_of_first(width: u8, to: impl Fn(u8) -> To) -> Pos {
    Pos::Moves(vec![width, 1], (0..width).map(to).collect())
}

/// Role 0 has 8 moves; after each but move 5, role 1 has 8 replies of which one (reply 3)
/// ends the game at once with goals `first` for role 0 and 100 for role 1, the others lead to
/// the long game (of 200 turns); move 5 leads to the long game.
pub(super) fn trap(first: i32) -> Table {
    let trap = Pos::Moves(
        vec![1, 8],
        (0..8)
            .map(|i| if i == 3 { To::At(2) } else { To::Long })
            .collect(),
    );
    Table {
        roles: vec!["first", "second"],
        positions: vec![
            turn_of_first(8, |i| if i == 5 { To::Long } else { To::At(1) }),
            trap,
            Pos::End(vec![first, 100]),
        ],
        long: 200,
    }
}

fn table_mcts(role: RoleIndex, iterations: u64, seed: u64, game: &Table) -> Mcts<Table> {
    let mut p = mcts_of(iterations, seed);
    p.start(game, role, Instant::now());
    p
}

fn mcts_of<G: Game>(iterations: u64, seed: u64) -> Mcts<G> {
    Mcts::new(MctsOptions {
        max_iterations: Some(iterations),
        seed,
        ..MctsOptions::default()
    })
}

#[test]
fn a_win_in_one_is_proven_and_played_at_once() {
    // Move 13 of 20 wins; every other leads to the long game.
    let game = Table {
        roles: vec!["first", "second"],
        positions: vec![
            turn_of_first(20, |i| if i == 13 { To::At(1) } else { To::Long }),
            Pos::End(vec![100, 0]),
        ],
        long: 200,
    };
    for seed in 0..10 {
        let mut p = table_mcts(0, 10_000, seed, &game);
        assert_eq!(p.choose(&game, &TableState::At(0), far()), Some(13));
        let stats = p.stats();
        // Untried moves come first: the win is found within 20 iterations, and proves the
        // root.
        assert!(stats.proven && stats.iterations <= 20, "{stats:?}");
        assert_eq!(stats.value, 1.0);
        assert_eq!(p.root_proven(), Some(&[1.0, 0.0][..]));
    }
}

#[test]
fn a_loss_in_one_is_avoided() {
    // Role 0 has 8 moves; after each but move 5, role 1 has 8 replies of which one wins for
    // it at once (reply 3), the others lead to the long game; move 5 leads to the long game.
    let game = trap(0);
    for seed in 0..10 {
        let mut p = table_mcts(0, 400, seed, &game);
        assert_eq!(p.choose(&game, &TableState::At(0), far()), Some(5));
        let stats = p.stats();
        assert!(!stats.proven && stats.iterations == 400, "{stats:?}");
        // With more exploration (the default leaves a trap alone once its first replies
        // lost) every trap is proven lost, and once proven no longer searched: one visit made
        // the trap's node, at most 8 more tried its replies until the winning one.
        let mut p = Mcts::new(MctsOptions {
            max_iterations: Some(400),
            exploration: Exploration::Fixed(0.7),
            seed,
            ..MctsOptions::default()
        });
        p.start(&game, 0, Instant::now());
        assert_eq!(p.choose(&game, &TableState::At(0), far()), Some(5));
        let moves = p.root_moves();
        for m in &moves {
            let expected = (m.mv != 5).then_some(0.0);
            assert_eq!(m.proven, expected, "seed {seed}: {moves:?}");
            assert!(m.mv == 5 || m.visits <= 9, "seed {seed}: {moves:?}");
        }
    }
}

#[test]
fn a_proven_loss_is_played_only_when_every_move_loses() {
    // Both moves lose at once: the root is proven lost and a move is still played.
    let game = Table {
        roles: vec!["first", "second"],
        positions: vec![turn_of_first(2, |_| To::At(1)), Pos::End(vec![0, 100])],
        long: 0,
    };
    let mut p = table_mcts(0, 100, 1, &game);
    assert!(p.choose(&game, &TableState::At(0), far()).is_some());
    assert!(
        p.stats().proven && p.stats().value == 0.0,
        "{:?}",
        p.stats()
    );
}

#[test]
fn three_roles_prove_vectors_for_the_mover() {
    // a moves first: move 0 gives c the turn, where c's move 2 gives c 100 (and a 0, b 30),
    // its other moves the long game (roles a and b play it; c gets 0); move 1 ends with 40
    // for every role. c takes its win, so a is sure of 0 after move 0 and plays move 1.
    let c_turn = Pos::Moves(
        vec![1, 1, 4],
        (0..4)
            .map(|i| if i == 2 { To::At(2) } else { To::Long })
            .collect(),
    );
    let game = Table {
        roles: vec!["a", "b", "c"],
        positions: vec![
            Pos::Moves(vec![2, 1, 1], vec![To::At(1), To::At(3)]),
            c_turn,
            Pos::End(vec![0, 30, 100]),
            Pos::End(vec![40, 40, 40]),
        ],
        long: 200,
    };
    let mut c = table_mcts(2, 10_000, 1, &game);
    assert_eq!(c.choose(&game, &TableState::At(1), far()), Some(2));
    assert_eq!(c.root_proven(), Some(&[0.0, 0.3, 1.0][..]));
    let mut a = table_mcts(0, 10_000, 1, &game);
    assert_eq!(a.choose(&game, &TableState::At(0), far()), Some(1));
    assert!(a.stats().iterations < 100, "{:?}", a.stats());
    assert_eq!(a.root_proven(), Some(&[0.4, 0.4, 0.4][..]));
}

#[test]
fn simultaneous_moves_are_not_proven_from_their_children() {
    // Matching pennies: both roles choose at once, every joint move ends the game. The root's
    // value is a mixed equilibrium that the search does not compute: it is never proven.
    let game = matching_pennies();
    let mut p = table_mcts(0, 500, 1, &game);
    assert!(p.choose(&game, &TableState::At(0), far()).is_some());
    assert!(
        !p.stats().proven && p.stats().iterations == 500,
        "{:?}",
        p.stats()
    );
    assert!(p.root_moves().iter().all(|m| m.proven.is_none()));
}

#[test]
fn a_chance_node_is_proven_with_the_mean_of_its_children() {
    // random draws one of 4 outcomes; the player wins after one of them.
    let game = Table {
        roles: vec!["player", "random"],
        positions: vec![
            Pos::Moves(vec![1, 4], vec![To::At(1), To::At(2), To::At(2), To::At(2)]),
            Pos::End(vec![100, 0]),
            Pos::End(vec![0, 0]),
        ],
        long: 0,
    };
    let mut p = table_mcts(0, 10_000, 1, &game);
    assert_eq!(p.choose(&game, &TableState::At(0), far()), Some(0));
    assert!(
        p.stats().proven && p.stats().iterations < 10_000,
        "{:?}",
        p.stats()
    );
    assert_eq!(p.root_proven(), Some(&[0.25, 0.0][..]));
}

#[test]
fn parallel_mcts_merges_proofs() {
    let game = Table {
        roles: vec!["first", "second"],
        positions: vec![
            turn_of_first(20, |i| if i == 13 { To::At(1) } else { To::Long }),
            Pos::End(vec![100, 0]),
        ],
        long: 200,
    };
    let mut p = ParallelMcts::new(
        MctsOptions {
            max_iterations: Some(10_000),
            ..MctsOptions::default()
        },
        2,
    );
    p.start(&game, 0, Instant::now());
    assert_eq!(p.choose(&game, &TableState::At(0), far()), Some(13));
    assert!(
        p.stats().proven && p.stats().iterations <= 40,
        "{:?}",
        p.stats()
    );
    assert_eq!(p.stats().value, 1.0);
    // Proofs from either tree: every move of the first tree proven lost for role 0...
    let lost = RootMove {
        mv: 0u8,
        visits: 50,
        sum: 0.0,
        proven: Some(0.0),
    };
    let open = RootMove {
        proven: None,
        mv: 1,
        visits: 1,
        sum: 0.5,
    };
    // ...is not played when the other tree has an open move, however visited.
    let merged = merge_root_moves([vec![lost, open], vec![lost, RootMove { visits: 2, ..open }]]);
    assert_eq!(merged.len(), 2);
    assert_eq!(merged[1].visits, 3);
    assert_eq!(merged[0].proven, Some(0.0));
    assert_eq!(choose_root(&merged), Some((1, false)));
    // A move proven won in one tree only is played.
    let won = RootMove {
        proven: Some(1.0),
        ..open
    };
    let merged = merge_root_moves([vec![lost, open], vec![lost, won]]);
    assert_eq!(choose_root(&merged), Some((1, true)));
}

#[test]
fn pondering_searches_from_the_last_state_and_grows_the_tree() {
    // A pile large enough not to be proven (with transpositions, a pile of 30 is 60 nodes).
    let game = Nim { pile: 3000 };
    for threads in [1, 2] {
        let mut p = ParallelMcts::new(
            MctsOptions {
                max_iterations: Some(500),
                ..MctsOptions::default()
            },
            threads,
        );
        // Nothing to search before the match starts.
        assert_eq!(Player::ponder(&mut p, &game, far()), 0);
        p.start(&game, 0, Instant::now());
        p.choose(&game, &(3000, 0), far());
        let before = p.stats().nodes;
        let pondered = Player::ponder(&mut p, &game, far());
        assert_eq!(pondered, 500 * threads as u64, "{threads} threads");
        p.choose(&game, &(3000, 0), far());
        assert!(
            p.stats().nodes > before,
            "{threads} threads: {:?}",
            p.stats()
        );
    }
    let mut single = mcts(300, 1);
    assert_eq!(single.ponder(&game, far()), 0);
    single.start(&game, 0, Instant::now());
    assert_eq!(single.ponder(&game, far()), 300);
    assert!(single.tree_size() > 1);
}
