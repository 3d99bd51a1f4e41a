use std::time::{Duration, Instant};

use super::*;
use crate::Game;

/// Two roles take 1 or 2 from a pile in turn; whoever takes the last wins (100, the other 0).
/// A pile that is a multiple of 3 is lost for the role to move.
#[derive(Clone, Copy, Debug)]
struct Nim {
    pile: u32,
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

fn far() -> Instant {
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
fn the_tree_is_kept_between_moves() {
    let game = Nim { pile: 12 };
    let mut p = mcts(2000, 3);
    p.start(&game, 0, Instant::now());
    let state = (11, 0);
    let mv = p.choose(&game, &state, far()).unwrap();
    let before = p.stats().nodes;
    let joint = [mv, 0];
    let mut next = state;
    game.next_state(&state, &joint, &mut next);
    p.observe(&game, &joint, &next);
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
fn parallel_mcts_finds_the_winning_move_and_uses_every_tree() {
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
    assert_eq!(p.stats().iterations, 4000, "{:?}", p.stats());
}
