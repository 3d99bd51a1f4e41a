//! Two players of `gdl_runtime::player` against each other on an embedded game, N games in each
//! colour: the strength benchmark of the players (win/draw/loss counts, not a timed test).
//!
//! ```sh
//! cargo run --release --example arena -- connectFour mcts:10000 random 100
//! cargo run --release --example arena -- breakthrough mcts:1000 flat:1000 50
//! ```
//!
//! A player is `random`, `flat:P` (flat Monte Carlo, P playouts per move) or `mcts:I` (UCT, I
//! iterations per move; `mcts:I:C` with exploration constant C instead of the default). Prints
//! one line per colour and a total, from the first player's side. Games are seeded by their
//! number: a run is repeatable.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use gdl_examples::breakthrough::Breakthrough;
use gdl_examples::{GAMES, connect_four::ConnectFour, tic_tac_toe::TicTacToe};
use gdl_runtime::Game;
use gdl_runtime::player::{FlatMonteCarlo, Mcts, MctsOptions, Player, RandomPlayer};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [game, a, b, rest @ ..] = &args[..] else {
        return usage();
    };
    let games = match rest.first().map(|n| n.parse::<u32>()) {
        None => 20,
        Some(Ok(n)) => n,
        Some(Err(_)) => return usage(),
    };
    if parse::<TicTacToe>(a, 0).is_none() || parse::<TicTacToe>(b, 0).is_none() {
        return usage();
    }
    match game.as_str() {
        "ticTacToe" => arena(&TicTacToe, a, b, games),
        "connectFour" => arena(&ConnectFour, a, b, games),
        "breakthrough" => arena(&Breakthrough, a, b, games),
        _ => usage(),
    }
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: arena [{}] PLAYER PLAYER [GAMES]   (PLAYER: random | flat:P | mcts:I[:C])",
        GAMES.join("|")
    );
    ExitCode::FAILURE
}

/// A player from its description.
fn parse<G: Game + 'static>(spec: &str, seed: u64) -> Option<Box<dyn Player<G>>> {
    let mut parts = spec.split(':');
    let kind = parts.next()?;
    let n: u64 = parts.next().unwrap_or("0").parse().ok()?;
    let exploration: Option<f64> = match parts.next() {
        None => None,
        Some(c) if kind == "mcts" => Some(c.parse().ok().filter(|c: &f64| *c >= 0.0)?),
        Some(_) => return None,
    };
    if parts.next().is_some() {
        return None;
    }
    Some(match kind {
        "random" => Box::new(RandomPlayer::new(seed)),
        "flat" => {
            let mut p = FlatMonteCarlo::new(seed);
            p.max_playouts = Some(n.max(1));
            Box::new(p)
        }
        "mcts" => {
            let defaults = MctsOptions::default();
            Box::new(Mcts::new(MctsOptions {
                max_iterations: Some(n.max(1)),
                exploration: exploration.unwrap_or(defaults.exploration),
                seed,
                ..defaults
            }))
        }
        _ => return None,
    })
}

/// Wins, draws and losses of the first player.
#[derive(Default)]
struct Score {
    wins: u32,
    draws: u32,
    losses: u32,
}

fn arena<G: Game + 'static>(game: &G, a: &str, b: &str, games: u32) -> ExitCode {
    if game.role_count() != 2 {
        eprintln!("arena: a game of two roles is needed");
        return ExitCode::FAILURE;
    }
    let mut total = Score::default();
    for colour in 0..2 {
        let mut score = Score::default();
        let start = Instant::now();
        for g in 0..games {
            let seed = u64::from(g) * 2 + colour as u64;
            let (Some(pa), Some(pb)) = (parse::<G>(a, seed), parse::<G>(b, seed + 1000)) else {
                return usage();
            };
            let mut players = if colour == 0 { [pa, pb] } else { [pb, pa] };
            let goals = play(game, &mut players);
            let (ours, theirs) = (goals[colour], goals[1 - colour]);
            match ours.cmp(&theirs) {
                std::cmp::Ordering::Greater => score.wins += 1,
                std::cmp::Ordering::Equal => score.draws += 1,
                std::cmp::Ordering::Less => score.losses += 1,
            }
        }
        println!(
            "{a} as {} against {b}: {} wins, {} draws, {} losses ({:.1} s)",
            game.role_name(colour),
            score.wins,
            score.draws,
            score.losses,
            start.elapsed().as_secs_f64()
        );
        total.wins += score.wins;
        total.draws += score.draws;
        total.losses += score.losses;
    }
    println!(
        "{a} against {b}: {} wins, {} draws, {} losses",
        total.wins, total.draws, total.losses
    );
    ExitCode::SUCCESS
}

/// Plays one game to its end; the goals (an undefined goal counts as 0).
fn play<G: Game>(game: &G, players: &mut [Box<dyn Player<G>>; 2]) -> [i32; 2] {
    let far = || Instant::now() + Duration::from_secs(3600);
    for (r, p) in players.iter_mut().enumerate() {
        p.start(game, r, Instant::now());
    }
    let mut state = game.initial_state();
    let mut next = state.clone();
    let mut joint = Vec::new();
    for _ in 0..10_000 {
        if game.is_terminal(&state) {
            break;
        }
        joint.clear();
        for p in players.iter_mut() {
            match p.choose(game, &state, far()) {
                Some(m) => joint.push(m),
                None => return [0, 0],
            }
        }
        game.next_state(&state, &joint, &mut next);
        for p in players.iter_mut() {
            p.observe(game, &joint, &next);
        }
        std::mem::swap(&mut state, &mut next);
    }
    [0, 1].map(|r| game.goal(&state, r).unwrap_or(0))
}
