//! GDL-II players of `gdl_player` (`BeliefPlayer`) against each other on an embedded GDL-II
//! game: the strength benchmark of the belief player's searches (not a timed test).
//!
//! ```sh
//! cargo run --release --example belief_arena -- blindTicTacToe tree@0.1 flat@0.1 100
//! cargo run --release --example belief_arena -- montyHall tree@0.05 flat@0.05 500
//! ```
//!
//! A player is `tree@S` (the information-set tree search) or `flat@S` (flat Monte Carlo), S
//! seconds a move. In a game of two roles besides `random` (blindTicTacToe), the players meet
//! N times in each seat and the line is the first player's wins, draws and losses; in a game of
//! one (montyHall), each plays N matches alone and the line is each one's mean goal. GDL-II's
//! `random` plays uniformly, drawn by the arena.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use gdl_examples::blind_tic_tac_toe::BlindTicTacToe;
use gdl_examples::monty_hall::MontyHall;
use gdl_player::{BeliefOptions, BeliefPlayer, BeliefSearch};
use gdl_runtime::{Game, RoleIndex, SplitMix64};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [game, a, b, rest @ ..] = &args[..] else {
        return usage();
    };
    let (Some(a), Some(b)) = (parse(a), parse(b)) else {
        return usage();
    };
    let n = match rest.first().map(|n| n.parse::<u64>()) {
        None => 50,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => return usage(),
    };
    match game.as_str() {
        "blindTicTacToe" => arena(&BlindTicTacToe, [a, b], n),
        "montyHall" => arena(&MontyHall, [a, b], n),
        _ => usage(),
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: belief_arena blindTicTacToe|montyHall (tree|flat)@S (tree|flat)@S [N]");
    ExitCode::FAILURE
}

/// A player's search and its seconds a move.
#[derive(Clone, Copy)]
struct Spec {
    search: BeliefSearch,
    seconds: f64,
    name: &'static str,
}

fn parse(text: &str) -> Option<Spec> {
    let (kind, seconds) = text.split_once('@')?;
    let seconds: f64 = seconds
        .parse()
        .ok()
        .filter(|s: &f64| *s > 0.0 && *s < 1e6)?;
    let (search, name) = match kind {
        "tree" => (BeliefSearch::Tree, "tree"),
        "flat" => (BeliefSearch::Flat, "flat"),
        _ => return None,
    };
    Some(Spec {
        search,
        seconds,
        name,
    })
}

fn arena<G: Game>(game: &G, specs: [Spec; 2], n: u64) -> ExitCode {
    let seats: Vec<RoleIndex> = (0..game.role_count())
        .filter(|&r| !game.is_random_role(r))
        .collect();
    let label = |s: &Spec| format!("{}@{}", s.name, s.seconds);
    match seats.len() {
        1 => {
            for (k, spec) in specs.iter().enumerate() {
                let total: i64 = (0..n)
                    .map(|g| {
                        let seed = g * 2 + k as u64;
                        i64::from(play(game, &[(seats[0], *spec)], seed)[seats[0]])
                    })
                    .sum();
                println!(
                    "{}: mean goal {:.1} over {n} matches",
                    label(spec),
                    total as f64 / n as f64
                );
            }
        }
        2 => {
            let (mut wins, mut draws, mut losses) = (0, 0, 0);
            for g in 0..2 * n {
                // The first player takes the first seat in the first N games.
                let first = usize::from(g >= n);
                let a_seat = seats[first];
                let b_seat = seats[1 - first];
                let goals = play(game, &[(a_seat, specs[0]), (b_seat, specs[1])], g);
                match goals[a_seat].cmp(&goals[b_seat]) {
                    std::cmp::Ordering::Greater => wins += 1,
                    std::cmp::Ordering::Equal => draws += 1,
                    std::cmp::Ordering::Less => losses += 1,
                }
            }
            println!(
                "{} against {}: {wins} wins, {draws} draws, {losses} losses",
                label(&specs[0]),
                label(&specs[1])
            );
        }
        _ => {
            eprintln!("belief_arena: a game of one or two roles besides `random` is needed");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// One match, the belief players in their seats, `random` (and any other role) uniform; each
/// role's goal (a match past 1,000 steps ends where it is).
fn play<G: Game>(game: &G, seated: &[(RoleIndex, Spec)], seed: u64) -> Vec<i32> {
    let roles = game.role_count();
    let mut rng = SplitMix64::new(seed.wrapping_mul(0x9E37_79B9) ^ 0x5EED);
    let mut players: Vec<Option<(BeliefPlayer<G>, f64)>> = (0..roles)
        .map(|r| {
            let (_, spec) = seated.iter().find(|(s, _)| *s == r)?;
            let options = BeliefOptions {
                search: spec.search,
                seed: seed * 7 + r as u64 + 1,
                ..BeliefOptions::default()
            };
            Some((BeliefPlayer::new(game, r, options), spec.seconds))
        })
        .collect();
    let mut state = game.initial_state();
    let mut next = state.clone();
    let mut moves = Vec::new();
    let mut joint = Vec::with_capacity(roles);
    let mut seen = Vec::new();
    for _ in 0..1000 {
        if game.is_terminal(&state) {
            break;
        }
        joint.clear();
        for (r, p) in players.iter_mut().enumerate() {
            let chosen = match p {
                Some((p, seconds)) => {
                    p.choose(game, Instant::now() + Duration::from_secs_f64(*seconds))
                }
                None => {
                    game.legal_moves(&state, r, &mut moves);
                    moves.get(rng.below(moves.len().max(1))).copied()
                }
            };
            let Some(m) = chosen else {
                return vec![0; roles];
            };
            joint.push(m);
        }
        game.next_state(&state, &joint, &mut next);
        for (r, p) in players.iter_mut().enumerate() {
            if let Some((p, _)) = p {
                seen.clear();
                game.percepts(&state, &joint, r, &mut seen);
                p.observe(
                    game,
                    joint[r],
                    &seen,
                    Instant::now() + Duration::from_secs(1),
                );
            }
        }
        std::mem::swap(&mut state, &mut next);
    }
    (0..roles)
        .map(|r| game.goal(&state, r).unwrap_or(0))
        .collect()
}
