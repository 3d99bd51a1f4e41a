//! Two players of `gdl_player` against each other on an embedded game, N games in each
//! colour: the strength benchmark of the players (win/draw/loss counts, not a timed test).
//! With three roles or more, the first player takes every other seat (A B A ...) in N games
//! and the second in the other N (B A B ...), the seats turned by one each game, and every
//! seat of the one is counted against every seat of the other (`3pConnectFour`: two pairs a
//! game).
//!
//! ```sh
//! cargo run --release --example arena -- connectFour mcts:10000 random 100
//! cargo run --release --example arena -- breakthrough mcts:1000 flat:1000 50
//! cargo run --release --example arena -- connectFour mcts@0.1 base@0.1 20
//! cargo run --release --example arena -- connectFour auto@0.1 mcts@0.1 20 4
//! cargo run --release --example arena --features corpus-games -- englishDraughts xmcts@0.1 mcts@0.1 20
//! cargo run --release --example arena --features corpus-games -- 3pConnectFour base@0.25 mcts@0.25 40 0.3
//! ```
//!
//! The games are those of `gdl_examples`; `englishDraughts`, `reversi`, `hex`, `hexPie`, `twoBoards` (the
//! corpus's connectFourSimultaneous: two boards) and `3pConnectFour` (read from the corpus next
//! to the checkout) with the `corpus-games` feature.
//!
//! A player is `random`, `flat:P` (flat Monte Carlo, P playouts per move), `mcts:I` (UCT, I
//! iterations per move; `mcts:I:C` with exploration constant C instead of the default, or `auto`),
//! `base:I` (the baseline UCT, `--search baseline`), `mast:I` (UCT with MAST playouts), `nst:I` (NST playouts), `antinst:I` (anti-decisive in NST's order),
//! `dec:I` (decisive playouts), `anti:I` (anti-decisive playouts), `auto:I` (the playout
//! policy chosen at the start clock), `rm:I` or `exp3:I` (regret matching or Exp3 at
//! simultaneous moves, `--simultaneous`); `x` before any of those but `base` adds decisive
//! expansion (`--expansion decisive`: `xmcts@0.1`, `xanti:1000`), `xx` decisive expansion
//! when a node is made (`--expansion decisive-at-once`), `p` plain expansion (`--expansion
//! plain`; without a prefix: `auto`, decisive in the trees of a factored game only); `decK` and `antiK` look
//! for wins in the first K steps of a playout only (`--decisive-steps K`: `anti4@0.1`);
//! `mcts@S`, `base@S`, ... search S seconds per move
//! instead (`mcts@0.1:C` with constant C). `hon` and `hauto` are `mcts` with the evaluation
//! learnt at the start clock (`--heuristic on|auto`; `hon@0.1:C:K` cuts playouts after K
//! steps); `counts` is `mcts` whose evaluation has no role's share of facts among its
//! candidate features, counts only. `rave` and `grave` are `mcts` with AMAF statistics in
//! selection (`--amaf rave|grave`; `grave@0.1:C:R:B` with reference R and bias B). `whole` is `mcts` with one tree
//! over the whole state where the start clock would find independent parts (`--factoring off`). START_SECONDS (default 0) is each player's start clock. Prints one line per colour (per half, with three roles or more) and a total, from the first player's side, and the
//! longest time each player took to take in a move (`observe`). Games are seeded by their
//! number: a run is repeatable when no player is timed.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use gdl_examples::breakthrough::Breakthrough;
use gdl_examples::connect_four_simultaneous::ConnectFourSimultaneous;
use gdl_examples::{GAMES, connect_four::ConnectFour, tic_tac_toe::TicTacToe};
use gdl_player::{
    AmafMode, AmafOptions, BaselineMcts, Expansion, Exploration, Factoring, FlatMonteCarlo,
    HeuristicMode, HeuristicOptions, Mcts, MctsOptions, Player, PlayoutPolicy, RandomPlayer,
    SimultaneousRule,
};
use gdl_runtime::Game;

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
    let start = match rest.get(1).map(|s| s.parse::<f64>()) {
        None => 0.0,
        Some(Ok(s)) if (0.0..1e6).contains(&s) => s,
        Some(_) => return usage(),
    };
    if parse::<TicTacToe>(a, 0).is_none() || parse::<TicTacToe>(b, 0).is_none() {
        return usage();
    }
    match game.as_str() {
        "ticTacToe" => arena(&TicTacToe, a, b, games, start),
        "connectFour" => arena(&ConnectFour, a, b, games, start),
        "breakthrough" => arena(&Breakthrough, a, b, games, start),
        "connectFourSimultaneous" => arena(&ConnectFourSimultaneous, a, b, games, start),
        #[cfg(feature = "corpus-games")]
        "englishDraughts" => arena(
            &gdl_examples::english_draughts::EnglishDraughts,
            a,
            b,
            games,
            start,
        ),
        #[cfg(feature = "corpus-games")]
        "twoBoards" => arena(&gdl_examples::two_boards::TwoBoards, a, b, games, start),
        #[cfg(feature = "corpus-games")]
        "reversi" => arena(&gdl_examples::reversi::Reversi, a, b, games, start),
        #[cfg(feature = "corpus-games")]
        "hex" => arena(&gdl_examples::hex::Hex, a, b, games, start),
        #[cfg(feature = "corpus-games")]
        "hexPie" => arena(&gdl_examples::hex_pie::HexPie, a, b, games, start),
        #[cfg(feature = "corpus-games")]
        "3pConnectFour" => arena(
            &gdl_examples::three_player_connect_four::ThreePlayerConnectFour,
            a,
            b,
            games,
            start,
        ),
        _ => usage(),
    }
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: arena [{}|connectFourSimultaneous|englishDraughts|reversi|hex|hexPie|twoBoards|3pConnectFour] PLAYER PLAYER [GAMES [START_SECONDS]]   \
         (PLAYER: random | flat:P | \
         [x|xx|p](mcts|base|mast|dec[K]|anti[K]|auto|rm|exp3|hon|hauto|counts|rave|grave)(:I|@SECONDS)[:C|auto[:K[:B]]])",
        GAMES.join("|")
    );
    ExitCode::FAILURE
}

/// A player and the time it is given per move (`None`: its own budget).
struct Seat<G: Game> {
    player: Box<dyn Player<G>>,
    seconds: Option<f64>,
    /// The longest `observe` so far.
    longest_observe: Duration,
}

/// A player from its description.
fn parse<G: Game + 'static>(spec: &str, seed: u64) -> Option<Seat<G>> {
    let mut parts = spec.split(':');
    let head = parts.next()?;
    // `x` before a search's name: decisive expansion; `p`: plain.
    let (head, expansion) = match (head.strip_prefix("xx"), head.strip_prefix('x')) {
        (Some(rest), _) => (rest, Expansion::DecisiveAtOnce),
        (None, Some(rest)) => (rest, Expansion::Decisive),
        _ => match head.strip_prefix('p') {
            Some(rest) => (rest, Expansion::Plain),
            None => (head, Expansion::default()),
        },
    };
    let (kind, seconds) = match head.split_once('@') {
        Some((kind, s)) => (kind, Some(s.parse::<f64>().ok().filter(|s| *s > 0.0)?)),
        None => (head, None),
    };
    // `dec` and `anti` followed by K: decisive steps in the first K steps of a playout only.
    let (kind, decisive_steps) = match kind.find(|c: char| c.is_ascii_digit()) {
        Some(i) if matches!(&kind[..i], "dec" | "anti") => {
            (&kind[..i], Some(kind[i..].parse::<usize>().ok()?))
        }
        _ => (kind, None),
    };
    let n: u64 = match seconds {
        Some(_) => 0,
        None => parts.next().unwrap_or("0").parse().ok()?,
    };
    let searches = matches!(
        kind,
        "mcts"
            | "base"
            | "mast"
            | "nst"
            | "antinst"
            | "dec"
            | "anti"
            | "auto"
            | "rm"
            | "exp3"
            | "hon"
            | "hauto"
            | "counts"
            | "rave"
            | "grave"
            | "whole"
    );
    let amaf = matches!(kind, "rave" | "grave");
    let exploration: Option<Exploration> = match parts.next() {
        None => None,
        Some(c) if searches => Some(Exploration::parse(c)?),
        Some(_) => return None,
    };
    let cutoff: Option<usize> = match parts.next() {
        None => None,
        Some(k) if kind.starts_with('h') || amaf => Some(k.parse().ok()?),
        Some(_) => return None,
    };
    let bias: Option<f64> = match parts.next() {
        None => None,
        Some(b) if amaf => Some(b.parse().ok().filter(|b: &f64| *b >= 0.0)?),
        Some(_) => return None,
    };
    if parts.next().is_some()
        || (seconds.is_some() && !searches)
        || (expansion != Expansion::default() && (!searches || kind == "base"))
    {
        return None;
    }
    let defaults = MctsOptions::default();
    let options = MctsOptions {
        max_iterations: seconds.is_none().then_some(n.max(1)),
        exploration: exploration.unwrap_or(defaults.exploration),
        expansion,
        decisive_steps,
        seed,
        ..defaults
    };
    let player: Box<dyn Player<G>> = match kind {
        "random" => Box::new(RandomPlayer::new(seed)),
        "flat" => {
            let mut p = FlatMonteCarlo::new(seed);
            p.max_playouts = Some(n.max(1));
            Box::new(p)
        }
        "mcts" => Box::new(Mcts::new(options)),
        "whole" => Box::new(Mcts::new(MctsOptions {
            factoring: Factoring::Off,
            ..options
        })),
        "mast" => Box::new(Mcts::new(MctsOptions {
            playout: PlayoutPolicy::Mast,
            ..options
        })),
        "nst" => Box::new(Mcts::new(MctsOptions {
            playout: PlayoutPolicy::Nst,
            ..options
        })),
        "antinst" => Box::new(Mcts::new(MctsOptions {
            playout: PlayoutPolicy::AntiDecisiveNst,
            ..options
        })),
        "dec" => Box::new(Mcts::new(MctsOptions {
            playout: PlayoutPolicy::Decisive,
            ..options
        })),
        "anti" => Box::new(Mcts::new(MctsOptions {
            playout: PlayoutPolicy::AntiDecisive,
            ..options
        })),
        "auto" => Box::new(Mcts::new(MctsOptions {
            playout: PlayoutPolicy::Auto,
            ..options
        })),
        "base" => Box::new(BaselineMcts::new(options)),
        "rm" => Box::new(Mcts::new(MctsOptions {
            simultaneous: SimultaneousRule::RegretMatching,
            ..options
        })),
        "exp3" => Box::new(Mcts::new(MctsOptions {
            simultaneous: SimultaneousRule::Exp3,
            ..options
        })),
        "hon" | "hauto" => Box::new(Mcts::new(MctsOptions {
            heuristic: HeuristicOptions {
                mode: match kind {
                    "hon" => HeuristicMode::On,
                    _ => HeuristicMode::Auto,
                },
                cutoff: cutoff.unwrap_or(HeuristicOptions::default().cutoff),
                ..HeuristicOptions::default()
            },
            ..options
        })),
        "counts" => Box::new(Mcts::new(MctsOptions {
            heuristic: HeuristicOptions {
                shares: false,
                ..HeuristicOptions::default()
            },
            ..options
        })),
        "rave" | "grave" => Box::new(Mcts::new(MctsOptions {
            amaf: AmafOptions {
                mode: match kind {
                    "rave" => AmafMode::Rave,
                    _ => AmafMode::Grave,
                },
                reference: cutoff.map_or(AmafOptions::default().reference, |k| k as u32),
                bias: bias.unwrap_or(AmafOptions::default().bias),
            },
            ..options
        })),
        _ => return None,
    };
    Some(Seat {
        player,
        seconds,
        longest_observe: Duration::ZERO,
    })
}

/// Wins, draws and losses of the first player.
#[derive(Default)]
struct Score {
    wins: u32,
    draws: u32,
    losses: u32,
}

impl Score {
    /// Counts `ours` against `theirs`.
    fn add(&mut self, ours: i32, theirs: i32) {
        match ours.cmp(&theirs) {
            std::cmp::Ordering::Greater => self.wins += 1,
            std::cmp::Ordering::Equal => self.draws += 1,
            std::cmp::Ordering::Less => self.losses += 1,
        }
    }
}

/// Which seats `a` takes in game `g` of the half `half` of an arena of `roles` roles: with
/// two roles, one seat each (`a` first in the first half); with more, `a` in every other seat
/// (A B A ...) in the first half and in the others (B A B ...) in the second, the pattern
/// turned by one seat each game.
fn seats_of_a(roles: usize, half: usize, g: u32) -> Vec<bool> {
    let turn = match roles {
        2 => 0,
        _ => g as usize % roles,
    };
    (0..roles)
        .map(|r| ((r + turn) % roles).is_multiple_of(2) == (half == 0))
        .collect()
}

fn arena<G: Game + 'static>(game: &G, a: &str, b: &str, games: u32, start: f64) -> ExitCode {
    let roles = game.role_count();
    if roles < 2 {
        eprintln!("arena: a game of two roles or more is needed");
        return ExitCode::FAILURE;
    }
    let mut total = Score::default();
    let mut longest = [Duration::ZERO; 2];
    for half in 0..2 {
        let mut score = Score::default();
        let began = Instant::now();
        for g in 0..games {
            let is_a = seats_of_a(roles, half, g);
            let mut players = Vec::with_capacity(roles);
            for (r, &mine) in is_a.iter().enumerate() {
                let seed = (u64::from(g) * 2 + half as u64) * roles as u64 + r as u64;
                let seat = match mine {
                    true => parse::<G>(a, seed),
                    false => parse::<G>(b, seed + 1000),
                };
                let Some(seat) = seat else {
                    return usage();
                };
                players.push(seat);
            }
            let goals = play(game, &mut players, start);
            for (r, p) in players.iter().enumerate() {
                let k = usize::from(!is_a[r]);
                longest[k] = longest[k].max(p.longest_observe);
            }
            // Every seat of `a` against every seat of `b`.
            for (&ours, _) in goals.iter().zip(&is_a).filter(|(_, a)| **a) {
                for (&theirs, _) in goals.iter().zip(&is_a).filter(|(_, a)| !**a) {
                    score.add(ours, theirs);
                }
            }
        }
        let seats = match roles {
            2 => game.role_name(half).to_string(),
            _ => ["every other seat", "the other seats"][half].to_string(),
        };
        println!(
            "{a} as {seats} against {b}: {} wins, {} draws, {} losses ({:.1} s)",
            score.wins,
            score.draws,
            score.losses,
            began.elapsed().as_secs_f64()
        );
        total.wins += score.wins;
        total.draws += score.draws;
        total.losses += score.losses;
    }
    println!(
        "{a} against {b}: {} wins, {} draws, {} losses",
        total.wins, total.draws, total.losses
    );
    println!(
        "longest observe: {a} {:.3} ms, {b} {:.3} ms",
        longest[0].as_secs_f64() * 1000.0,
        longest[1].as_secs_f64() * 1000.0
    );
    ExitCode::SUCCESS
}

/// Plays one game to its end, each player given `start` seconds to start; the goals (an
/// undefined goal counts as 0). A timed player's `observe` of a step counts against its time
/// for the next (as a player's does in a match), down to a tenth of its time.
fn play<G: Game>(game: &G, players: &mut [Seat<G>], start: f64) -> Vec<i32> {
    let far = || Instant::now() + Duration::from_secs(3600);
    for (r, p) in players.iter_mut().enumerate() {
        let deadline = Instant::now() + Duration::from_secs_f64(start);
        p.player.start(game, r, deadline);
        if let Some(report) = p.player.report().filter(|r| r.contains("auto")) {
            eprintln!("{}: {report}", game.role_name(r));
        }
    }
    let roles = players.len();
    let mut state = game.initial_state();
    let mut next = state.clone();
    let mut joint = Vec::new();
    let mut observed = vec![Duration::ZERO; roles];
    for _ in 0..10_000 {
        if game.is_terminal(&state) {
            break;
        }
        joint.clear();
        for (p, &took) in players.iter_mut().zip(&observed) {
            let deadline = match p.seconds {
                Some(s) => {
                    Instant::now()
                        + Duration::from_secs_f64(s)
                            .saturating_sub(took)
                            .max(Duration::from_secs_f64(s / 10.0))
                }
                None => far(),
            };
            match p.player.choose(game, &state, deadline) {
                Some(m) => joint.push(m),
                None => return vec![0; roles],
            }
        }
        game.next_state(&state, &joint, &mut next);
        for (p, took) in players.iter_mut().zip(observed.iter_mut()) {
            let start = Instant::now();
            p.player.observe(game, &joint, &next);
            *took = start.elapsed();
            p.longest_observe = p.longest_observe.max(*took);
        }
        std::mem::swap(&mut state, &mut next);
    }
    (0..roles)
        .map(|r| game.goal(&state, r).unwrap_or(0))
        .collect()
}
