//! Tests of what the flat node store adds: transpositions, recycling, tree reuse, cycles,
//! MAST playouts, and the choice of search.

use std::time::Instant;

use super::tests::{Nim, Pos, Table, TableState, To, far, trap, turn_of_first};
use super::*;
use gdl_runtime::{Game, RoleIndex};

fn nim_mcts(iterations: u64, seed: u64, options: MctsOptions) -> Mcts<Nim> {
    Mcts::new(MctsOptions {
        max_iterations: Some(iterations),
        seed,
        ..options
    })
}

/// Plays `joint` from `state` for `p`, returning the next state.
fn step(p: &mut Mcts<Nim>, game: &Nim, state: (u32, usize), joint: [u8; 2]) -> (u32, usize) {
    let mut next = state;
    game.next_state(&state, &joint, &mut next);
    p.observe(game, &joint, &next);
    next
}

#[test]
fn two_move_orders_reach_one_node() {
    // Taking 1 then 2, or 2 then 1, leaves the same pile with the same role to move.
    let game = Nim { pile: 10 };
    let search = |p: &mut Mcts<Nim>| {
        p.start(&game, 0, Instant::now());
        p.choose(&game, &(10, 0), far());
    };
    let mut a = nim_mcts(3000, 7, MctsOptions::default());
    search(&mut a);
    let (node, count) = a.nodes_of(&(7, 0)).unwrap();
    assert_eq!(count, 1, "one node for the state");
    let node = node.expect("the state was reached");
    let mut b = nim_mcts(3000, 7, MctsOptions::default());
    search(&mut b);
    // Each path leads to that node (the same search, so the same store, in `b`).
    let s = step(&mut a, &game, (10, 0), [1, 0]);
    step(&mut a, &game, s, [0, 2]);
    let s = step(&mut b, &game, (10, 0), [2, 0]);
    step(&mut b, &game, s, [0, 1]);
    assert_eq!(a.root_node().map(|r| r.0), Some(node));
    assert_eq!(b.root_node().map(|r| r.0), Some(node));
    assert_eq!(a.root_node(), b.root_node());
}

#[test]
fn proofs_through_shared_nodes_are_right() {
    // Nim's piles share nodes along every pair of move orders; a pile that is a multiple of
    // 3 is lost for the role to move, any other won.
    let game = Nim { pile: 15 };
    for pile in 1..=15u32 {
        let mut p = nim_mcts(200_000, u64::from(pile), MctsOptions::default());
        p.start(&game, 0, Instant::now());
        let mv = p.choose(&game, &(pile, 0), far());
        let expected = match pile % 3 {
            0 => [0.0, 1.0],
            _ => [1.0, 0.0],
        };
        assert_eq!(p.root_proven(), Some(&expected[..]), "pile {pile}");
        if pile % 3 != 0 {
            assert_eq!(mv, Some((pile % 3) as u8), "pile {pile}");
        }
        assert!(p.nodes_of(&(pile, 0)).is_ok());
    }
}

#[test]
fn a_cycle_of_states_ends_the_descent() {
    // Role 0 either passes the turn (position 1) or loses at once; role 1 either gives the
    // turn back (position 0: the state repeats) or loses at once. Neither position is proven:
    // the cycle never ends, and a proof cannot rest on it.
    let game = Table {
        roles: vec!["first", "second"],
        positions: vec![
            turn_of_first(2, |i| if i == 0 { To::At(1) } else { To::At(2) }),
            Pos::Moves(vec![1, 2], vec![To::At(0), To::At(3)]),
            Pos::End(vec![0, 100]),
            Pos::End(vec![100, 0]),
        ],
        long: 0,
    };
    let mut p = Mcts::new(MctsOptions {
        max_iterations: Some(3000),
        max_playout_steps: 50,
        ..MctsOptions::default()
    });
    p.start(&game, 0, Instant::now());
    assert_eq!(p.choose(&game, &TableState::At(0), far()), Some(0));
    assert_eq!(p.stats().iterations, 3000);
    assert!(!p.stats().proven && p.root_proven().is_none());
    let moves = p.root_moves();
    assert_eq!(moves[1].proven, Some(0.0), "{moves:?}");
    assert_eq!(moves[0].proven, None, "{moves:?}");
    // Two positions and two ends: one node each.
    assert_eq!(p.tree_size(), 4, "{:?}", p.stats());
}

#[test]
fn recycling_keeps_the_budget_and_still_finds_the_move() {
    // Role 0 has 8 moves: move 5 leads to the long game, every other to a position where
    // role 1 wins at once with one of its 8 replies. The long game alone holds more states
    // than the store.
    let game = trap(0);
    for seed in 0..5 {
        let mut p = Mcts::new(MctsOptions {
            max_iterations: Some(20_000),
            max_nodes: 200,
            exploration: Exploration::Fixed(0.7),
            seed,
            ..MctsOptions::default()
        });
        p.start(&game, 0, Instant::now());
        assert_eq!(
            p.choose(&game, &TableState::At(0), far()),
            Some(5),
            "seed {seed}"
        );
        // The store filled up and the search went on (nothing proves the root).
        assert_eq!(p.stats().iterations, 20_000);
        assert!(
            p.tree_size() <= 200 && p.tree_size() > 150,
            "{:?}",
            p.stats()
        );
        assert!(p.nodes_of(&TableState::At(0)).is_ok());
        let moves = p.root_moves();
        assert!(
            moves.iter().all(|m| m.mv == 5 || m.proven == Some(0.0)),
            "{moves:?}"
        );
    }
    // Played on, the budget holds: the nodes of the states left behind are freed.
    let game = Nim { pile: 1000 };
    let options = MctsOptions {
        max_nodes: 50,
        ..MctsOptions::default()
    };
    let mut p = nim_mcts(2000, 1, options);
    p.start(&game, 0, Instant::now());
    let mut s = (1000, 0);
    for _ in 0..20 {
        let mv = p.choose(&game, &s, far()).unwrap();
        s = step(&mut p, &game, s, [mv, 0]);
        s = step(&mut p, &game, s, [0, 1]);
        assert!(p.tree_size() <= 50, "{:?}", p.stats());
        assert_eq!(p.nodes_of(&s).unwrap(), (p.root_node().map(|r| r.0), 1));
    }
}

#[test]
fn the_tree_is_reused_without_a_copy() {
    let game = Nim { pile: 20 };
    let mut p = nim_mcts(5000, 3, MctsOptions::default());
    p.start(&game, 0, Instant::now());
    let mv = p.choose(&game, &(20, 0), far()).unwrap();
    let child = p.child_of(&[mv, 0]).expect("the move played was searched");
    let size = p.tree_size();
    let mut after = nim_mcts(5000, 3, MctsOptions::default());
    after.start(&game, 0, Instant::now());
    after.choose(&game, &(20, 0), far());
    step(&mut after, &game, (20, 0), [mv, 0]);
    let (root, visits) = after.root_node().unwrap();
    // The child's node, in place, with its visits: nothing copied, nothing freed.
    assert_eq!(root, child);
    assert!(visits > 0);
    assert_eq!(after.tree_size(), size);
    assert_eq!(after.root_state(), Some(&(20 - u32::from(mv), 1)));
    // A joint move of the wrong length or with an unknown move finds no child.
    let before = after.root_node();
    after.observe(&game, &[1], &(20 - u32::from(mv), 1));
    after.observe(&game, &[0, 7, 1], &(20 - u32::from(mv), 1));
    after.observe(&game, &[0, 7], &(20 - u32::from(mv), 1));
    assert_eq!(after.root_node(), before);
    // A state the tree never reached becomes a new root.
    step(&mut after, &game, (5, 0), [2, 0]);
    assert_eq!(after.root_state(), Some(&(3, 1)));
}

#[test]
fn mast_playouts_play_legal_moves_and_win() {
    let game = Nim { pile: 14 };
    let mast = MctsOptions {
        playout: PlayoutPolicy::Mast,
        ..MctsOptions::default()
    };
    let mut wins = 0;
    for seed in 0..10 {
        let mut a = nim_mcts(500, seed, mast.clone());
        let mut b = RandomPlayer::new(seed + 100);
        Player::<Nim>::start(&mut a, &game, 0, far());
        Player::<Nim>::start(&mut b, &game, 1, far());
        let mut s = game.initial_state();
        while !game.is_terminal(&s) {
            let joint = [
                a.choose(&game, &s, far()).unwrap(),
                b.choose(&game, &s, far()).unwrap(),
            ];
            let mut legal = Vec::new();
            game.legal_moves(&s, 0, &mut legal);
            assert!(legal.contains(&joint[0]), "{joint:?} in {s:?}");
            let mut next = s;
            game.next_state(&s, &joint, &mut next);
            a.observe(&game, &joint, &next);
            s = next;
        }
        wins += usize::from(game.goal(&s, 0) == Some(100));
    }
    assert_eq!(wins, 10);
}

#[test]
fn mast_learns_the_mean_goal_of_moves() {
    // Three moves that end the game with 0, 30 and 60 for the mover.
    let game = Table {
        roles: vec!["first", "second"],
        positions: vec![
            turn_of_first(3, |i| To::At(u32::from(i) + 1)),
            Pos::End(vec![0, 100]),
            Pos::End(vec![30, 70]),
            Pos::End(vec![60, 40]),
        ],
        long: 0,
    };
    let mut p = Mcts::new(MctsOptions {
        max_iterations: Some(50),
        playout: PlayoutPolicy::Mast,
        ..MctsOptions::default()
    });
    p.start(&game, 0, Instant::now());
    assert_eq!(p.choose(&game, &TableState::At(0), far()), Some(2));
    assert!(p.stats().proven, "{:?}", p.stats());
    let means = |p: &mut Mcts<Table>| [0, 1, 2].map(|mv| p.mast_mean(&game, 0, mv).unwrap());
    assert_eq!(means(&mut p), [0.0, 0.3, 0.6]);
    // Between moves the statistics decay, the means stay.
    p.observe(&game, &[2, 0], &TableState::At(3));
    assert_eq!(means(&mut p), [0.0, 0.3, 0.6]);
}

#[test]
fn parallel_search_runs_the_search_asked_for() {
    let game = Nim { pile: 10 };
    for (search, name) in [(Search::Mcts, "mcts"), (Search::Baseline, "baseline")] {
        let mut p = ParallelMcts::new(
            MctsOptions {
                max_iterations: Some(2000),
                search,
                ..MctsOptions::default()
            },
            2,
        );
        assert_eq!(Player::<Nim>::name(&p), name);
        p.start(&game, 0, Instant::now());
        assert_eq!(p.choose(&game, &(7, 0), far()), Some(1));
        assert!(p.stats().proven, "{name}: {:?}", p.stats());
    }
    assert_eq!(Search::parse("baseline"), Some(Search::Baseline));
    assert_eq!(PlayoutPolicy::parse("mast"), Some(PlayoutPolicy::Mast));
    assert_eq!(PlayoutPolicy::parse("gibbs"), None);
}

/// Two roles taking turns among `moves` moves each, for `depth` turns; the state is the
/// number of turns played and a hash of the moves, the first role wins when the hash is odd.
struct Wide {
    moves: u16,
    depth: u32,
}

impl Game for Wide {
    type State = (u32, u64);
    type Move = u16;

    fn role_count(&self) -> usize {
        2
    }

    fn role_name(&self, role: RoleIndex) -> &str {
        ["first", "second"][role]
    }

    fn initial_state(&self) -> (u32, u64) {
        (0, 0)
    }

    fn is_terminal(&self, s: &(u32, u64)) -> bool {
        s.0 >= self.depth
    }

    fn legal_moves(&self, s: &(u32, u64), role: RoleIndex, out: &mut Vec<u16>) {
        out.clear();
        match role == s.0 as usize % 2 {
            true => out.extend(0..self.moves),
            false => out.push(0),
        }
    }

    fn next_state(&self, s: &(u32, u64), joint: &[u16], next: &mut (u32, u64)) {
        let mv = u64::from(joint[s.0 as usize % 2]);
        *next = (s.0 + 1, (s.1 ^ mv).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    }

    fn goal(&self, s: &(u32, u64), role: RoleIndex) -> Option<i32> {
        Some(if (s.1 >> 63) as usize == role { 100 } else { 0 })
    }

    fn write_move(&self, _role: RoleIndex, mv: u16, out: &mut String) {
        out.push_str(&mv.to_string());
    }

    fn parse_move(&self, _role: RoleIndex, text: &str) -> Option<u16> {
        text.parse().ok()
    }

    fn write_state(&self, s: &(u32, u64), out: &mut Vec<String>) {
        out.push(format!("(at {} {})", s.0, s.1));
    }
}

#[test]
fn the_memory_budget_bounds_a_wide_tree() {
    // 300 moves a node: about 8 KB of move slots each, so the byte budget binds long before
    // the node budget.
    let game = Wide {
        moves: 300,
        depth: 12,
    };
    let max_memory = 1 << 20;
    let mut p = Mcts::new(MctsOptions {
        max_iterations: Some(5_000),
        max_memory,
        seed: 3,
        ..MctsOptions::default()
    });
    p.start(&game, 0, Instant::now());
    let mut state = game.initial_state();
    for turn in 0..4u16 {
        let mv = match turn % 2 {
            0 => p.choose(&game, &state, far()).expect("a move"),
            _ => 7,
        };
        let joint = if turn % 2 == 0 { [mv, 0] } else { [0, mv] };
        let mut next = state;
        game.next_state(&state, &joint, &mut next);
        p.observe(&game, &joint, &next);
        state = next;
        let bytes = p.store_bytes().expect("the store's invariants hold");
        // One node past the budget at most: the sweep runs before a node is made.
        assert!(
            bytes <= max_memory + (16 << 10),
            "{bytes} bytes, {:?}",
            p.stats()
        );
        assert!(p.tree_size() > 50, "{:?}", p.stats());
    }
    assert_eq!(p.stats().iterations, 5_000);
}

/// Nim counting the states it makes (`next_state` calls).
struct CountedNim {
    nim: Nim,
    steps: std::cell::Cell<u64>,
}

impl Game for CountedNim {
    type State = (u32, usize);
    type Move = u8;

    fn role_count(&self) -> usize {
        self.nim.role_count()
    }

    fn role_name(&self, role: RoleIndex) -> &str {
        self.nim.role_name(role)
    }

    fn initial_state(&self) -> (u32, usize) {
        self.nim.initial_state()
    }

    fn is_terminal(&self, s: &(u32, usize)) -> bool {
        self.nim.is_terminal(s)
    }

    fn legal_moves(&self, s: &(u32, usize), role: RoleIndex, out: &mut Vec<u8>) {
        self.nim.legal_moves(s, role, out);
    }

    fn next_state(&self, s: &(u32, usize), joint: &[u8], next: &mut (u32, usize)) {
        self.steps.set(self.steps.get() + 1);
        self.nim.next_state(s, joint, next);
    }

    fn goal(&self, s: &(u32, usize), role: RoleIndex) -> Option<i32> {
        self.nim.goal(s, role)
    }

    fn write_move(&self, role: RoleIndex, mv: u8, out: &mut String) {
        self.nim.write_move(role, mv, out);
    }

    fn parse_move(&self, role: RoleIndex, text: &str) -> Option<u8> {
        self.nim.parse_move(role, text)
    }

    fn write_state(&self, s: &(u32, usize), out: &mut Vec<String>) {
        self.nim.write_state(s, out);
    }
}

#[test]
fn a_start_clock_already_over_plays_no_game() {
    // Games of about 60,000 steps: one random game would be seen. (A slow engine, the
    // interpreter on a large game, makes a few such games cost seconds past the clock.)
    let game = CountedNim {
        nim: Nim { pile: 90_000 },
        steps: std::cell::Cell::new(0),
    };
    let mut p = Mcts::new(MctsOptions::default());
    p.start(&game, 0, Instant::now());
    assert!(game.steps.get() < 100, "{} steps", game.steps.get());
    // Later, with time, the measurements run and the search plays.
    let mut p = Mcts::new(MctsOptions::default());
    p.start(
        &game,
        0,
        Instant::now() + std::time::Duration::from_millis(300),
    );
    assert!(game.steps.get() > 10_000, "{} steps", game.steps.get());
}

#[test]
fn a_forgotten_tree_keeps_the_start_clock_settings_and_grows_again() {
    let game = CountedNim {
        nim: Nim { pile: 30 },
        steps: std::cell::Cell::new(0),
    };
    let mut p = Mcts::new(MctsOptions {
        max_iterations: Some(2_000),
        ..MctsOptions::default()
    });
    p.start(
        &game,
        0,
        Instant::now() + std::time::Duration::from_millis(100),
    );
    let settings = p.settings();
    assert!(settings.contains("games of"), "{settings}");
    p.choose(&game, &(30, 0), far()).expect("a move");
    assert!(p.tree_size() > 1);
    let steps = game.steps.get();
    p.forget_tree(&game);
    assert_eq!((p.tree_size(), p.root_state()), (0, None));
    assert_eq!(game.steps.get(), steps, "nothing measured again");
    assert_eq!(p.settings(), settings);
    // The next move searched grows a fresh tree from the state given.
    let mv = p.choose(&game, &(20, 0), far()).expect("a move");
    assert!(mv == 1 || mv == 2);
    assert_eq!(p.root_state(), Some(&(20, 0)));
    assert!(p.tree_size() > 1);
}

#[test]
fn a_node_with_more_moves_than_an_arena_chunk_is_searched() {
    // 20,000 moves for the mover and one for the other role: the other role's slot lies past
    // the first chunk of the node's block (16,384 slots), and so do the AMAF statistics.
    let game = Wide {
        moves: 20_000,
        depth: 2,
    };
    for amaf in [AmafMode::Off, AmafMode::Grave] {
        let mut p = Mcts::new(MctsOptions {
            max_iterations: Some(30),
            amaf: AmafOptions {
                mode: amaf,
                ..AmafOptions::default()
            },
            ..MctsOptions::default()
        });
        p.start(&game, 0, Instant::now());
        let mv = p.choose(&game, &game.initial_state(), far());
        assert!(mv.is_some_and(|m| m < 20_000));
        assert_eq!(p.stats().iterations, 30);
        p.store_bytes().expect("the store's invariants hold");
    }
}
