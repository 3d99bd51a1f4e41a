use std::time::{Duration, Instant};

use super::{DetectOptions, detect};
use crate::mcts::factor_checks::Mark;
use crate::{Expansion, Factoring, Mcts, MctsOptions, Player, PlayoutPolicy};
use gdl_runtime::{Game, RoleIndex};

/// Two boards of four cells. Each step the role in control of the first board (bit 16) takes
/// an empty cell there, and the other role one of the second board; then they swap. A cell's
/// two bits say who took it (bits 0..8 the first board, 8..16 the second). The game ends when
/// a board is full; the first role wins when its cells are worth more in all (a cell is worth
/// its number on the board plus one).
///
/// `pairs`: the game also ends when a role holds two neighbouring cells of a board, and a role
/// that does wins (both do: a draw).
///
/// `coupled`: a cell of the first board is legal only when the same cell of the second board
/// is empty, so the first board is no game of its own. `one_board`: only the first board is
/// played (the other role passes).
struct TwinBoards {
    coupled: bool,
    one_board: bool,
    pairs: bool,
}

const CELLS: u64 = 4;

/// The two boards, free of each other.
const TWO_BOARDS: TwinBoards = TwinBoards {
    coupled: false,
    one_board: false,
    pairs: false,
};

/// The two boards, ended by a pair.
const PAIRS: TwinBoards = TwinBoards {
    pairs: true,
    ..TWO_BOARDS
};

fn taken(state: u64, board: u64, cell: u64) -> bool {
    state >> (8 * board + 2 * cell) & 3 != 0
}

/// Whether role `r` holds two neighbouring cells of a board.
fn holds_pair(state: u64, r: u64) -> bool {
    let own = |b: u64, c: u64| state >> (8 * b + 2 * c + r) & 1 != 0;
    (0..2).any(|b| (0..CELLS - 1).any(|c| own(b, c) && own(b, c + 1)))
}

impl TwinBoards {
    /// The board role `role` plays on in `state`.
    fn board(&self, state: u64, role: RoleIndex) -> u64 {
        let control = state >> 16 & 1;
        u64::from(role as u64 != control)
    }
}

impl Game for TwinBoards {
    type State = Vec<u64>;
    type Move = u8;
    fn role_count(&self) -> usize {
        2
    }
    fn role_name(&self, role: RoleIndex) -> &str {
        ["first", "second"][role.min(1)]
    }
    fn initial_state(&self) -> Vec<u64> {
        vec![0]
    }
    fn is_terminal(&self, state: &Vec<u64>) -> bool {
        (0..2).any(|b| (0..CELLS).all(|c| taken(state[0], b, c)))
            || (self.pairs && (holds_pair(state[0], 0) || holds_pair(state[0], 1)))
    }
    fn legal_moves(&self, state: &Vec<u64>, role: RoleIndex, out: &mut Vec<u8>) {
        out.clear();
        let s = state[0];
        let board = self.board(s, role);
        if self.one_board && board == 1 {
            out.push(255);
            return;
        }
        for c in 0..CELLS {
            let blocked = self.coupled && board == 0 && taken(s, 1, c);
            if !taken(s, board, c) && !blocked {
                out.push((board * CELLS + c) as u8);
            }
        }
        if out.is_empty() {
            out.push(255);
        }
    }
    fn next_state(&self, state: &Vec<u64>, joint: &[u8], next: &mut Vec<u64>) {
        let mut s = state[0];
        for (r, &m) in joint.iter().enumerate() {
            if m != 255 {
                let (board, cell) = (u64::from(m) / CELLS, u64::from(m) % CELLS);
                s |= 1 << (8 * board + 2 * cell + r as u64);
            }
        }
        next.clear();
        next.push(s ^ 1 << 16);
    }
    fn goal(&self, state: &Vec<u64>, role: RoleIndex) -> Option<i32> {
        // A cell is worth its number plus one; the first role wins with more in all.
        let worth = |r: u64| -> u64 {
            (0..2 * CELLS)
                .filter(|i| state[0] >> (2 * i + r) & 1 != 0)
                .map(|i| i % CELLS + 1)
                .sum()
        };
        let pairs = |r| self.pairs && holds_pair(state[0], r);
        let (first, second) = match (pairs(0), pairs(1)) {
            (false, false) => (worth(0), worth(1)),
            (a, b) => (u64::from(a), u64::from(b)),
        };
        let won = match first.cmp(&second) {
            std::cmp::Ordering::Greater => 100,
            std::cmp::Ordering::Equal => 50,
            std::cmp::Ordering::Less => 0,
        };
        Some(if role == 0 { won } else { 100 - won })
    }
    fn write_move(&self, _role: RoleIndex, mv: u8, out: &mut String) {
        out.push_str(&mv.to_string());
    }
    fn parse_move(&self, _role: RoleIndex, text: &str) -> Option<u8> {
        text.parse().ok()
    }
    fn write_state(&self, _state: &Vec<u64>, _out: &mut Vec<String>) {}
    fn fact_bits<'a>(&self, state: &'a Vec<u64>) -> Option<&'a [u64]> {
        Some(state)
    }
    fn move_count(&self, _role: RoleIndex) -> Option<usize> {
        Some(2 * CELLS as usize)
    }
    fn move_index(&self, _role: RoleIndex, mv: u8) -> Option<usize> {
        Some(usize::from(mv))
    }
}

fn far() -> Instant {
    Instant::now() + Duration::from_secs(30)
}

#[test]
fn two_boards_played_side_by_side_are_two_factors() {
    let game = TWO_BOARDS;
    let factors = detect(&game, 1, far(), &DetectOptions::default())
        .expect("factors")
        .factors;
    assert_eq!(factors.len(), 2);
    assert_eq!(factors.describe(), "2 factors (8, 8 facts; 48 shared)");
    // Each role's moves of a board decide that board's factor, whoever makes them.
    for r in 0..2 {
        let first = factors.of_move(r, 0).expect("seen");
        let second = factors.of_move(r, 4).expect("seen");
        assert_ne!(first, second);
        assert_eq!(factors.of_move(r, 3), Some(first));
        assert_eq!(factors.of_move(r, 7), Some(second));
    }
    // A factor's key sees its own board and the control bit, not the other board.
    let f = factors.of_move(0, 0).expect("seen");
    let base = factors.key(f, &[0b01]);
    assert_eq!(factors.key(f, &[0b01 | 1 << 9]), base);
    assert_ne!(factors.key(f, &[0b01 | 1 << 16]), base);
    assert_ne!(factors.key(f, &[0b10]), base);
}

#[test]
fn boards_that_constrain_each_other_are_not_factored() {
    let game = TwinBoards {
        coupled: true,
        ..TWO_BOARDS
    };
    assert!(detect(&game, 1, far(), &DetectOptions::default()).is_none());
}

#[test]
fn one_board_is_one_factor() {
    let game = TwinBoards {
        one_board: true,
        ..TWO_BOARDS
    };
    assert!(detect(&game, 1, far(), &DetectOptions::default()).is_none());
}

#[test]
fn no_time_no_factors() {
    let game = TWO_BOARDS;
    let begun = Instant::now();
    assert!(detect(&game, 1, begun, &DetectOptions::default()).is_none());
    assert!(begun.elapsed() < Duration::from_millis(50));
}

/// A search of `game` as `factoring` says, started for `role` and given `iterations` a move.
fn searcher(
    game: &TwinBoards,
    factoring: Factoring,
    role: RoleIndex,
    iterations: u64,
) -> Mcts<TwinBoards> {
    let mut p = Mcts::new(MctsOptions {
        factoring,
        max_iterations: Some(iterations),
        ..MctsOptions::default()
    });
    p.start(game, role, far());
    p
}

#[test]
fn a_tree_per_factor_finds_the_best_cell() {
    let game = TWO_BOARDS;
    // Taking the cell worth 4 first draws; any other cell loses (the cells are then taken
    // greedily).
    for factoring in [Factoring::Auto, Factoring::Off] {
        let mut p = searcher(&game, factoring, 0, 20_000);
        let report = p.report().unwrap_or_default();
        assert_eq!(
            report.contains("a tree per factor: 2 factors"),
            factoring == Factoring::Auto,
            "{report}"
        );
        let mv = p.choose(&game, &game.initial_state(), far());
        assert_eq!(mv, Some(3), "{factoring:?}");
        let visits: u64 = p.root_moves().iter().map(|m| m.visits).sum();
        assert!(visits >= 20_000, "{visits}");
        assert!((p.stats().value - 0.5).abs() < 0.1, "{:?}", p.stats());
    }
}

#[test]
fn mast_learns_from_the_playouts_of_the_factored_trees() {
    let game = TWO_BOARDS;
    for playout in [PlayoutPolicy::Mast, PlayoutPolicy::Nst] {
        let mut p = Mcts::new(MctsOptions {
            playout,
            max_iterations: Some(2_000),
            // Trees too small to hold the boards: the iterations end in playouts.
            max_nodes: 16,
            ..MctsOptions::default()
        });
        p.start(&game, 0, far());
        assert!(p.factored.is_some(), "{playout:?}");
        let initial = game.initial_state();
        assert!(p.choose(&game, &initial, far()).is_some());
        let mut legal = Vec::new();
        game.legal_moves(&initial, 0, &mut legal);
        let f = p.factored.as_mut().expect("factored");
        // A move never played has the mean 1: some have been played and lost sometimes.
        let means: Vec<f64> = legal
            .iter()
            .filter_map(|&mv| f.playout_mut().mast_mean(&game, 0, mv))
            .collect();
        assert_eq!(means.len(), legal.len(), "{playout:?}");
        assert!(means.iter().any(|&m| m < 1.0), "{playout:?}: {means:?}");
    }
}

#[test]
fn a_move_without_choice_is_played() {
    let game = TWO_BOARDS;
    let mut p = searcher(&game, Factoring::Auto, 1, 1_000);
    // Three cells of each board taken: each role has one cell left.
    let state = vec![(1 << 0) | (1 << 3) | (1 << 4) | (1 << 8) | (1 << 11) | (1 << 12) | (1 << 16)];
    let mut legal = Vec::new();
    game.legal_moves(&state, 1, &mut legal);
    assert_eq!(legal.len(), 1);
    assert_eq!(p.choose(&game, &state, far()), Some(legal[0]));
}

#[test]
fn trees_in_parallel_share_the_factors() {
    let game = TWO_BOARDS;
    let options = MctsOptions {
        max_iterations: Some(10_000),
        ..MctsOptions::default()
    };
    let mut p = crate::ParallelMcts::new(options, 2);
    p.start(&game, 0, far());
    let report = p.report().unwrap_or_default();
    assert!(report.contains("a tree per factor: 2 factors"), "{report}");
    assert_eq!(p.choose(&game, &game.initial_state(), far()), Some(3));
}

#[test]
fn a_full_store_frees_its_least_recent_half_and_goes_on() {
    // 16 nodes hold a fraction of the boards' positions: the store is freed many times a move.
    full_store_goes_on(MctsOptions {
        max_nodes: 16,
        ..MctsOptions::default()
    });
}

#[test]
fn the_memory_budget_bounds_the_factored_trees() {
    // A budget of 16 small nodes' bytes, the node budget left at its default.
    full_store_goes_on(MctsOptions {
        max_memory: 16 * 64,
        ..MctsOptions::default()
    });
}

/// A match of the first role against the second's lowest cells, searched with `options`
/// (5,000 iterations a move) in a store too small for it: every move is legal, the store
/// stays within its budgets and consistent, and the first search runs all its iterations.
fn full_store_goes_on(options: MctsOptions) {
    let game = TWO_BOARDS;
    let (max_nodes, max_bytes) = (options.max_nodes, options.max_memory);
    let mut p = Mcts::new(MctsOptions {
        max_iterations: Some(5_000),
        ..options
    });
    p.start(&game, 0, far());
    let mut state = game.initial_state();
    let mut next = state.clone();
    let mut legal = Vec::new();
    let mut steps = 0;
    while !game.is_terminal(&state) {
        let mv = p.choose(&game, &state, far());
        let stats = p.stats();
        assert!(stats.nodes <= max_nodes, "{stats:?}");
        let factored = p.factored.as_ref();
        assert!(factored.is_some_and(|f| f.consistent()));
        // Within the budget but for the nodes of the last step (one per factor at most).
        let bytes = factored.map_or(0, |f| f.bytes());
        assert!(bytes <= max_bytes + 2 * 64, "{bytes} of {max_bytes}");
        assert!(steps > 0 || stats.iterations >= 5_000, "{stats:?}");
        game.legal_moves(&state, 0, &mut legal);
        assert!(mv.is_some_and(|m| legal.contains(&m)), "{mv:?} {legal:?}");
        // The second role plays its lowest cell.
        let mut theirs = Vec::new();
        game.legal_moves(&state, 1, &mut theirs);
        let joint = [mv.unwrap_or(legal[0]), theirs[0]];
        game.next_state(&state, &joint, &mut next);
        p.observe(&game, &joint, &next);
        std::mem::swap(&mut state, &mut next);
        steps += 1;
    }
    assert!(steps >= 4, "{steps}");
}

/// A search of `game` with the default expansion (the tactical checks of the factored trees),
/// started for the first role and given `iterations` a move.
fn checking(game: &TwinBoards, iterations: u64) -> Mcts<TwinBoards> {
    let mut p = Mcts::new(MctsOptions {
        expansion: Expansion::Auto,
        max_iterations: Some(iterations),
        ..MctsOptions::default()
    });
    p.start(game, 0, far());
    p
}

#[test]
fn the_checks_mark_a_win_at_once_and_a_move_that_lets_the_rival_win() {
    let game = PAIRS;
    let report = checking(&game, 100).report().unwrap_or_default();
    assert!(report.contains("a tree per factor: 2 factors"), "{report}");
    assert!(report.contains("shared), moves checked"), "{report}");
    // The first role plays the first board (cells 0..4), the second role the other one.
    // The first role holds cell 0: cell 1 makes a pair.
    let mut p = checking(&game, 100);
    let win = vec![1 << 0];
    assert_eq!(p.choose(&game, &win, far()), Some(1));
    assert_eq!(
        p.root_marks(0),
        [(1, Mark::Win), (2, Mark::Open), (3, Mark::Open)]
    );
    // The second role holds cell 3 and plays this board next: only cell 2 stops its pair.
    let mut p = checking(&game, 100);
    let threat = vec![1 << 7];
    assert_eq!(p.choose(&game, &threat, far()), Some(2));
    assert_eq!(
        p.root_marks(0),
        [(0, Mark::Loss), (1, Mark::Loss), (2, Mark::Open)]
    );
    let visits: Vec<u64> = p.root_moves().iter().map(|m| m.visits).collect();
    assert!(visits[2] >= 95, "{visits:?}");
    // With plain expansion nothing is marked.
    let mut p = Mcts::new(MctsOptions {
        expansion: Expansion::Plain,
        max_iterations: Some(100),
        ..MctsOptions::default()
    });
    p.start(&game, 0, far());
    p.choose(&game, &threat, far());
    assert!(p.root_marks(0).iter().all(|&(_, m)| m == Mark::Open));
}

#[test]
fn a_move_after_which_every_reply_lets_the_mover_win_is_marked_a_win() {
    let game = PAIRS;
    // On an empty board of four cells, the first to move takes cell 1 or 2: two pairs
    // threatened at once, and the rival blocks one. No move wins at once, so only the marks
    // found below (every reply marked a loss) make a win of either (once one is, the search
    // keeps to it).
    let mut p = checking(&game, 2_000);
    let mv = p.choose(&game, &game.initial_state(), far());
    let marks = p.root_marks(0);
    let wins: Vec<u8> = marks
        .iter()
        .filter(|&&(_, m)| m == Mark::Win)
        .map(|&(c, _)| c)
        .collect();
    assert!(
        !wins.is_empty() && wins.iter().all(|c| [1, 2].contains(c)),
        "{marks:?}"
    );
    assert_eq!(mv, Some(wins[0]), "{marks:?}");
    let proven: Vec<Option<f64>> = p.root_moves().iter().map(|m| m.proven).collect();
    assert_eq!(proven[usize::from(wins[0])], Some(1.0), "{proven:?}");
}

/// The states one step of anti-decisive playouts reaches from `from` on `game` over 200
/// draws, after 300 playouts taught them which moves end the game (from the initial state
/// and from the one where the roles play the other boards first); with the parts the
/// measurement finds, when `parts`.
fn anti_steps(game: &TwinBoards, from: &[u64], parts: bool) -> Vec<Vec<u64>> {
    use crate::mcts::decisive::Decisive;
    use gdl_runtime::SplitMix64;
    let initial = game.initial_state();
    let mut d = Decisive::new(game, &initial, true);
    if parts {
        d = d.with_parts(detect(game, 1, far(), &DetectOptions::default()).expect("factors"));
    }
    let mut rng = SplitMix64::new(5);
    let (mut state, mut next) = (initial.clone(), initial.clone());
    for k in 0..300 {
        d.restart();
        state.clone_from(&initial);
        state[0] |= (k & 1) << 16;
        while !game.is_terminal(&state) && d.step(game, &state, &mut rng, &mut next) {
            std::mem::swap(&mut state, &mut next);
        }
        d.saw_end(game, &state);
    }
    let from = from.to_vec();
    let mut seen = Vec::new();
    for _ in 0..200 {
        d.restart();
        assert!(d.step(game, &from, &mut rng, &mut next));
        if !seen.contains(&next) {
            seen.push(next.clone());
        }
    }
    seen
}

#[test]
fn anti_decisive_playouts_take_and_stop_pairs_on_each_board() {
    let game = PAIRS;
    // The first role plays the first board and holds its cell 0: cell 1 (bit 2) is a pair,
    // whatever the second role does on the other board.
    let win = [1 << 0];
    let seen = anti_steps(&game, &win, true);
    assert!(seen.iter().all(|s| s[0] & 1 << 2 != 0), "{seen:?}");
    // The second role holds cell 3 of the first board and plays it next: the first role takes
    // cell 2 (bit 4), the only one that stops the pair.
    let threat = [1 << 7];
    let seen = anti_steps(&game, &threat, true);
    assert!(seen.iter().all(|s| s[0] & 1 << 4 != 0), "{seen:?}");
    assert!(
        seen.len() >= 3,
        "the second role's moves stay random: {seen:?}"
    );
    // Without the parts both roles choose at once: the step is uniform.
    let seen = anti_steps(&game, &threat, false);
    assert!(seen.iter().any(|s| s[0] & 1 << 4 == 0), "{seen:?}");
}

#[test]
fn the_start_clock_times_the_playouts_in_the_parts() {
    use crate::mcts::tuning::{TuningOptions, auto_playout};
    let auto = |factoring| MctsOptions {
        playout: PlayoutPolicy::Auto,
        factoring,
        ..MctsOptions::default()
    };
    // Trees of a few nodes: the game is so small that larger ones hold it whole, and the
    // playouts would have no turns left to check.
    let tuning = TuningOptions {
        max_nodes: 4,
        ..TuningOptions::default()
    };
    // Each step both roles choose, each on its own board: only the parts make them turns.
    let parts = auto_playout(&PAIRS, &auto(Factoring::Auto), &tuning, far()).expect("auto");
    assert_eq!(parts.chosen, "anti-decisive", "{}", parts.summary);
    let whole = auto_playout(&PAIRS, &auto(Factoring::Off), &tuning, far()).expect("auto");
    assert_eq!(whole.chosen, "uniform", "{}", whole.summary);
}
