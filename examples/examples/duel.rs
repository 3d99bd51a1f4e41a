//! A game played in the terminal between two programs: a uniformly random player against a
//! Monte Carlo tree search player, both the players of `gdl_player` (generic over the
//! `Game` trait).
//!
//! ```sh
//! cargo run --release --example duel -- [ticTacToe|connectFour|breakthrough] [ITERATIONS] [SEED]
//! ```
//!
//! The first role plays at random; the second runs ITERATIONS iterations of UCT (default 2000)
//! per move. The state is
//! printed after every move: facts `(NAME ROW COLUMN VALUE)` with numeric coordinates as a grid
//! of the game's size (an empty cell, or one holding `b`, as `.`), the other facts as text.

use std::io::Write as _;
use std::process::ExitCode;

use gdl_examples::breakthrough::Breakthrough;
use gdl_examples::{GAMES, connect_four::ConnectFour, tic_tac_toe::TicTacToe};
use std::time::{Duration, Instant};

use gdl_player::{Mcts, MctsOptions, Player, RandomPlayer};
use gdl_runtime::Game;

/// `println!` that ignores a closed standard output (e.g. piped into `head`).
macro_rules! out {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "ticTacToe".to_string());
    let iterations = match args.next().map(|s| s.parse::<u32>()) {
        None => 2000,
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
            iterations,
            seed,
        ),
        "connectFour" => duel(
            &ConnectFour,
            Board {
                rows: 6,
                columns: 7,
            },
            iterations,
            seed,
        ),
        "breakthrough" => duel(
            &Breakthrough,
            Board {
                rows: 8,
                columns: 8,
            },
            iterations,
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

fn duel<G: Game>(game: &G, board: Board, iterations: u32, seed: u64) -> ExitCode {
    if game.role_count() != 2 {
        eprintln!("duel: a game of two roles is needed");
        return ExitCode::FAILURE;
    }
    let far = || Instant::now() + Duration::from_secs(3600);
    let mut players: [Box<dyn Player<G>>; 2] = [
        Box::new(RandomPlayer::new(seed)),
        Box::new(Mcts::new(MctsOptions {
            max_iterations: Some(u64::from(iterations)),
            seed: seed.wrapping_add(1),
            ..MctsOptions::default()
        })),
    ];
    for (r, p) in players.iter_mut().enumerate() {
        p.start(game, r, Instant::now());
    }
    out!(
        "{} plays at random; {} is Monte Carlo tree search with {iterations} iterations per move\n",
        game.role_name(0),
        game.role_name(1)
    );
    let mut state = game.initial_state();
    let mut next = state.clone();
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
        for (r, p) in players.iter_mut().enumerate() {
            let Some(mv) = p.choose(game, &state, far()) else {
                eprintln!("{} has no legal move", game.role_name(r));
                return ExitCode::FAILURE;
            };
            joint.push(mv);
        }
        let moves: Vec<String> = (0..game.role_count())
            .map(|r| format!("{} {}", game.role_name(r), game.move_text(r, joint[r])))
            .collect();
        out!("{}", moves.join(", "));
        game.next_state(&state, &joint, &mut next);
        for p in players.iter_mut() {
            p.observe(game, &joint, &next);
        }
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
    eprintln!("usage: duel [{}] [ITERATIONS] [SEED]", GAMES.join("|"));
    ExitCode::from(2)
}
