//! A game played in the terminal between two programs: a uniformly random player against a flat
//! Monte Carlo player, both written against the `gdl_runtime::Game` trait only.
//!
//! ```sh
//! cargo run --release --example duel -- [ticTacToe|connectFour] [PLAYOUTS] [SEED]
//! ```
//!
//! The first role plays at random; the second runs PLAYOUTS random playouts (default 200) after
//! each of its legal moves and plays the one with the best average goal value. The state is
//! printed after every move: facts `(NAME ROW COLUMN VALUE)` with numeric coordinates as a grid
//! of the game's size (an empty cell, or one holding `b`, as `.`), the other facts as text.

use std::io::Write as _;
use std::process::ExitCode;

use gdl_examples::{GAMES, connect_four::ConnectFour, tic_tac_toe::TicTacToe};
use gdl_runtime::{Game, RoleIndex, SplitMix64};

/// `println!` that ignores a closed standard output (e.g. piped into `head`).
macro_rules! out {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// A move-choosing strategy.
trait Player<G: Game> {
    /// Picks one of `legal` (never empty) for `role` in `state`.
    fn choose(&mut self, game: &G, state: &G::State, role: RoleIndex, legal: &[G::Move])
    -> G::Move;
}

/// Plays a uniformly random legal move.
struct Random(SplitMix64);

impl<G: Game> Player<G> for Random {
    fn choose(&mut self, _: &G, _: &G::State, _: RoleIndex, legal: &[G::Move]) -> G::Move {
        legal[self.0.below(legal.len())]
    }
}

/// Flat Monte Carlo: for each legal move, `playouts` random games that start with it (the
/// other roles' moves at random); plays the move with the highest average goal value.
struct MonteCarlo {
    rng: SplitMix64,
    playouts: u32,
}

impl<G: Game> Player<G> for MonteCarlo {
    fn choose(
        &mut self,
        game: &G,
        state: &G::State,
        role: RoleIndex,
        legal: &[G::Move],
    ) -> G::Move {
        let mut best = (legal[0], i64::MIN);
        for &mv in legal {
            let total: i64 = (0..self.playouts)
                .map(|_| i64::from(random_playout(game, state, role, mv, &mut self.rng)))
                .sum();
            if total > best.1 {
                best = (mv, total);
            }
        }
        best.0
    }
}

/// Plays `first` for `role` (random moves for the others), then random moves for everyone until
/// the game ends; returns `role`'s goal value (0 if it has none, or the game does not end).
fn random_playout<G: Game>(
    game: &G,
    start: &G::State,
    role: RoleIndex,
    first: G::Move,
    rng: &mut SplitMix64,
) -> i32 {
    let mut state = start.clone();
    let mut next = start.clone();
    let mut moves = Vec::new();
    let mut joint = Vec::with_capacity(game.role_count());
    for step in 0..10_000 {
        if game.is_terminal(&state) {
            return game.goal(&state, role).unwrap_or(0);
        }
        joint.clear();
        for r in 0..game.role_count() {
            if step == 0 && r == role {
                joint.push(first);
                continue;
            }
            game.legal_moves(&state, r, &mut moves);
            if moves.is_empty() {
                return 0;
            }
            joint.push(moves[rng.below(moves.len())]);
        }
        game.next_state(&state, &joint, &mut next);
        std::mem::swap(&mut state, &mut next);
    }
    0
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "ticTacToe".to_string());
    let playouts = match args.next().map(|s| s.parse::<u32>()) {
        None => 200,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => return usage(),
    };
    let seed = match args.next().map(|s| s.parse::<u64>()) {
        None => 1,
        Some(Ok(s)) => s,
        Some(_) => return usage(),
    };
    match name.as_str() {
        "ticTacToe" => duel(
            &TicTacToe,
            Board {
                rows: 3,
                columns: 3,
            },
            playouts,
            seed,
        ),
        "connectFour" => duel(
            &ConnectFour,
            Board {
                rows: 6,
                columns: 7,
            },
            playouts,
            seed,
        ),
        _ => usage(),
    }
}

/// The size of a game's board, for printing.
#[derive(Clone, Copy)]
struct Board {
    rows: usize,
    columns: usize,
}

fn duel<G: Game>(game: &G, board: Board, playouts: u32, seed: u64) -> ExitCode {
    if game.role_count() != 2 {
        eprintln!("duel: a game of two roles is needed");
        return ExitCode::FAILURE;
    }
    let mut random = Random(SplitMix64::new(seed));
    let mut monte_carlo = MonteCarlo {
        rng: SplitMix64::new(seed.wrapping_add(1)),
        playouts,
    };
    out!(
        "{} plays at random; {} is flat Monte Carlo with {playouts} playouts per move\n",
        game.role_name(0),
        game.role_name(1)
    );
    let mut state = game.initial_state();
    let mut next = state.clone();
    let mut legal = Vec::new();
    let mut joint = Vec::new();
    print_state(game, board, &state);
    for _ in 0..10_000 {
        if game.is_terminal(&state) {
            for r in 0..game.role_count() {
                match game.goal(&state, r) {
                    Some(v) => out!("goal of {}: {v}", game.role_name(r)),
                    None => out!("goal of {}: none", game.role_name(r)),
                }
            }
            return ExitCode::SUCCESS;
        }
        joint.clear();
        for r in 0..game.role_count() {
            game.legal_moves(&state, r, &mut legal);
            if legal.is_empty() {
                eprintln!("{} has no legal move", game.role_name(r));
                return ExitCode::FAILURE;
            }
            let mv = if legal.len() == 1 {
                legal[0]
            } else if r == 0 {
                random.choose(game, &state, r, &legal)
            } else {
                monte_carlo.choose(game, &state, r, &legal)
            };
            joint.push(mv);
        }
        let moves: Vec<String> = (0..game.role_count())
            .map(|r| format!("{} {}", game.role_name(r), game.move_text(r, joint[r])))
            .collect();
        out!("{}", moves.join(", "));
        game.next_state(&state, &joint, &mut next);
        std::mem::swap(&mut state, &mut next);
        print_state(game, board, &state);
    }
    eprintln!("duel: the game did not end");
    ExitCode::FAILURE
}

/// Prints `(NAME ROW COLUMN VALUE)` facts with numeric coordinates as a grid, the others as text.
fn print_state<G: Game>(game: &G, board: Board, state: &G::State) {
    let mut facts = Vec::new();
    game.write_state(state, &mut facts);
    facts.sort();
    let mut cells = Vec::new();
    let mut others = Vec::new();
    for fact in &facts {
        let words: Vec<&str> = fact
            .trim_start_matches('(')
            .trim_end_matches(')')
            .split(' ')
            .collect();
        match words[..] {
            [_, row, column, value] => match (row.parse::<usize>(), column.parse::<usize>()) {
                (Ok(r), Ok(c))
                    if (1..=board.rows).contains(&r) && (1..=board.columns).contains(&c) =>
                {
                    cells.push((r, c, value))
                }
                _ => others.push(fact.as_str()),
            },
            _ => others.push(fact.as_str()),
        }
    }
    let mut grid = vec![vec!['.'; board.columns]; board.rows];
    for &(r, c, value) in &cells {
        if value != "b" {
            grid[r - 1][c - 1] = value.chars().next().unwrap_or('?');
        }
    }
    for line in grid {
        let line: Vec<String> = line.iter().map(char::to_string).collect();
        out!("  {}", line.join(" "));
    }
    if !others.is_empty() {
        out!("  {}", others.join(" "));
    }
    out!();
}

fn usage() -> ExitCode {
    eprintln!("usage: duel [{}] [PLAYOUTS] [SEED]", GAMES.join("|"));
    ExitCode::from(2)
}
