//! `gdlc match`: a game manager. Runs one match of a description between players in role
//! order — remote players (`HOST:PORT`, spoken to over HTTP as `protocol.md` says) or players
//! in this process (`random`, `mcts`) — with the game's rules played by the interpreter. A
//! role named `random` is played by the manager. A remote player that cannot be reached
//! (`CE`), does not answer in time (`TO`) or answers an illegal or unreadable move
//! (`IL <move>`) gets a random legal move and the match goes on. The match record (the
//! ggp.org JSON) is written atomically after every step.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use gdl_runtime::http::{SendError, send};
use gdl_runtime::player::{Mcts, MctsOptions, Player, RandomPlayer};
use gdl_runtime::{Game, SplitMix64};
use gdlc::interp::Interpreter;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game description.
    pub file: PathBuf,
    /// A player, once per role in role order (roles named `random` excepted): `HOST:PORT`, or
    /// `random` / `mcts` played in this process.
    #[arg(long = "player", required = true)]
    pub players: Vec<String>,
    /// Seconds for START.
    #[arg(long, default_value_t = 10.0)]
    pub startclock: f64,
    /// Seconds per move.
    #[arg(long, default_value_t = 5.0)]
    pub playclock: f64,
    /// Seconds a remote player is given beyond each clock.
    #[arg(long, default_value_t = 1.0)]
    pub grace: f64,
    /// Where to write the match record (JSON), after every step.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Seed of the moves the manager draws (for the `random` role and substituted moves).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub limits: super::LimitArgs,
}

/// Who plays a role.
enum Seat {
    Remote(String),
    Local(Box<dyn Player<Interpreter>>),
    /// GDL-II's `random`, played by the manager.
    Manager,
}

/// The record of a match, as the ggp.org JSON has it.
struct Record {
    match_id: String,
    random_token: String,
    start_time: u128,
    start_clock: f64,
    play_clock: f64,
    roles: Vec<String>,
    players: Vec<String>,
    states: Vec<String>,
    moves: Vec<Vec<String>>,
    state_times: Vec<u128>,
    errors: Vec<Vec<String>>,
    goals: Option<Vec<i32>>,
}

impl Record {
    fn json(&self) -> String {
        let mut v = serde_json::json!({
            "matchId": self.match_id,
            "randomToken": self.random_token,
            "startTime": self.start_time as u64,
            "startClock": self.start_clock,
            "playClock": self.play_clock,
            "previewClock": -1,
            "gameRoleNames": self.roles,
            "playerNamesFromHost": self.players,
            "states": self.states,
            "moves": self.moves,
            "stateTimes": self.state_times.iter().map(|&t| t as u64).collect::<Vec<u64>>(),
            "errors": self.errors,
            "isCompleted": self.goals.is_some(),
            "isAborted": false,
        });
        if let Some(goals) = &self.goals {
            v["goalValues"] = serde_json::json!(goals);
        }
        serde_json::to_string_pretty(&v).unwrap_or_default()
    }
}

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// A state as the record writes it: `( ( cell 1 1 b ) ( control x ) )`.
fn state_text(game: &Interpreter, state: &<Interpreter as Game>::State) -> String {
    let mut facts = Vec::new();
    game.write_state(state, &mut facts);
    facts.sort();
    let spaced: Vec<String> = facts
        .iter()
        .map(|f| f.replace('(', "( ").replace(')', " )"))
        .collect();
    format!("( {} )", spaced.join(" "))
}

pub fn run(args: Args) -> ExitCode {
    for (what, x) in [
        ("--startclock", args.startclock),
        ("--playclock", args.playclock),
        ("--grace", args.grace),
    ] {
        if !(x.is_finite() && (0.0..1e6).contains(&x)) {
            eprintln!("gdlc match: {what} must be a number of seconds");
            return ExitCode::from(super::EXIT_USAGE);
        }
    }
    let loaded = match super::Loaded::read(&args.file) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let game = match loaded.interpreter(&args.limits) {
        Ok(g) => g,
        Err(code) => return code,
    };
    let roles: Vec<String> = (0..game.role_count())
        .map(|r| game.role_name(r).to_string())
        .collect();
    let played: Vec<usize> = (0..roles.len())
        .filter(|&r| !game.is_random_role(r))
        .collect();
    if args.players.len() != played.len() {
        eprintln!(
            "gdlc match: {} players given for the {} roles {}",
            args.players.len(),
            played.len(),
            played
                .iter()
                .map(|&r| roles[r].as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return ExitCode::from(super::EXIT_USAGE);
    }
    let mut seats: Vec<Seat> = (0..roles.len()).map(|_| Seat::Manager).collect();
    for (k, spec) in played.iter().zip(&args.players) {
        seats[*k] = match spec.as_str() {
            "random" => Seat::Local(Box::new(RandomPlayer::new(args.seed + *k as u64))),
            "mcts" => Seat::Local(Box::new(Mcts::new(MctsOptions {
                seed: args.seed + *k as u64,
                ..MctsOptions::default()
            }))),
            address if address.contains(':') => Seat::Remote(address.to_string()),
            other => {
                eprintln!("gdlc match: `{other}` is not HOST:PORT, random or mcts");
                return ExitCode::from(super::EXIT_USAGE);
            }
        };
    }
    let runtime = match gdl_runtime::http::runtime() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("gdlc match: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut rng = SplitMix64::new(args.seed);
    let start_time = now_ms();
    let mut record = Record {
        match_id: format!("gdlc.{}.{start_time}", loaded.stem()),
        random_token: format!("{:016x}", SplitMix64::new(start_time as u64).next_u64()),
        start_time,
        start_clock: args.startclock,
        play_clock: args.playclock,
        roles: roles.clone(),
        players: (0..roles.len())
            .map(|r| match &seats[r] {
                Seat::Remote(a) => a.clone(),
                Seat::Local(p) => p.name().to_string(),
                Seat::Manager => "random".to_string(),
            })
            .collect(),
        states: Vec::new(),
        moves: Vec::new(),
        state_times: Vec::new(),
        errors: Vec::new(),
        goals: None,
    };
    let write = |record: &Record| -> Result<(), ExitCode> {
        match &args.out {
            Some(path) => super::write_atomically(path, record.json().as_bytes()).map_err(|e| {
                eprintln!("gdlc match: cannot write {}: {e}", path.display());
                ExitCode::from(super::EXIT_USAGE)
            }),
            None => Ok(()),
        }
    };
    let start_clock = Duration::from_secs_f64(args.startclock);
    let play_clock = Duration::from_secs_f64(args.playclock);
    let grace = Duration::from_secs_f64(args.grace);
    let fault_code = |e: &SendError| match e {
        SendError::Connect(_) => "CE".to_string(),
        SendError::Timeout | SendError::Broken(_) => "TO".to_string(),
    };

    // START, to every remote player at once.
    let rules = &loaded.text;
    let started = runtime.block_on(async {
        let mut tasks = Vec::new();
        for (r, seat) in seats.iter().enumerate() {
            if let Seat::Remote(address) = seat {
                let message = format!(
                    "( START {} {} ( {rules} ) {} {} )",
                    record.match_id, roles[r], args.startclock, args.playclock
                );
                let address = address.clone();
                tasks.push((
                    r,
                    tokio::spawn(
                        async move { send(&address, &message, start_clock + grace).await },
                    ),
                ));
            }
        }
        let mut errors = vec![String::new(); roles.len()];
        for (r, t) in tasks {
            if let Ok(Err(e)) = t.await {
                eprintln!("gdlc match: START to {}: {e}", roles[r]);
                errors[r] = fault_code(&e);
            }
        }
        errors
    });
    let deadline = Instant::now() + start_clock;
    for (r, seat) in seats.iter_mut().enumerate() {
        if let Seat::Local(p) = seat {
            p.start(&game, r, deadline);
        }
    }
    let mut state = game.initial_state();
    record.states.push(state_text(&game, &state));
    record.state_times.push(now_ms());
    record.errors.push(started);
    if let Err(code) = write(&record) {
        return code;
    }

    let mut last: Option<Vec<String>> = None;
    let mut legal = Vec::new();
    let mut next = state.clone();
    for step in 1..=10_000 {
        if game.is_terminal(&state) {
            break;
        }
        let message = match &last {
            None => format!("( PLAY {} NIL )", record.match_id),
            Some(m) => format!("( PLAY {} ( {} ) )", record.match_id, m.join(" ")),
        };
        // Remote players think while the local ones do.
        let remote: Vec<_> = runtime.block_on(async {
            seats
                .iter()
                .enumerate()
                .filter_map(|(r, seat)| match seat {
                    Seat::Remote(address) => {
                        let (address, message) = (address.clone(), message.clone());
                        Some((
                            r,
                            tokio::spawn(async move {
                                send(&address, &message, play_clock + grace).await
                            }),
                        ))
                    }
                    _ => None,
                })
                .collect()
        });
        let deadline = Instant::now() + play_clock;
        let mut joint = Vec::with_capacity(roles.len());
        let mut errors = vec![String::new(); roles.len()];
        for (r, seat) in seats.iter_mut().enumerate() {
            game.legal_moves(&state, r, &mut legal);
            if legal.is_empty() {
                eprintln!("gdlc match: {} has no legal move at step {step}", roles[r]);
                return ExitCode::FAILURE;
            }
            let random = legal[rng.below(legal.len())];
            joint.push(match seat {
                Seat::Local(p) => p.choose(&game, &state, deadline).unwrap_or(random),
                _ => random,
            });
        }
        let replies = runtime.block_on(async {
            let mut out = Vec::new();
            for (r, t) in remote {
                out.push((r, t.await));
            }
            out
        });
        for (r, reply) in replies {
            let reply = match reply {
                Ok(r) => r,
                Err(e) => Err(SendError::Broken(e.to_string())),
            };
            match reply {
                Ok(text) => {
                    game.legal_moves(&state, r, &mut legal);
                    match game.parse_move(r, &text).filter(|m| legal.contains(m)) {
                        Some(m) => joint[r] = m,
                        None => errors[r] = format!("IL {text}"),
                    }
                }
                Err(e) => errors[r] = fault_code(&e),
            }
        }
        let texts: Vec<String> = joint
            .iter()
            .enumerate()
            .map(|(r, &m)| game.move_text(r, m))
            .collect();
        eprintln!(
            "step {step}: {}",
            texts
                .iter()
                .zip(&roles)
                .zip(&errors)
                .map(|((m, role), e)| if e.is_empty() {
                    format!("{role} {m}")
                } else {
                    format!("{role} {m} [{e}]")
                })
                .collect::<Vec<_>>()
                .join(", ")
        );
        game.next_state(&state, &joint, &mut next);
        for seat in seats.iter_mut() {
            if let Seat::Local(p) = seat {
                p.observe(&game, &joint, &next);
            }
        }
        std::mem::swap(&mut state, &mut next);
        record.moves.push(texts.clone());
        record.states.push(state_text(&game, &state));
        record.state_times.push(now_ms());
        record.errors.push(errors);
        if let Some(reason) = game.fault() {
            eprintln!("gdlc match: {reason}");
            return ExitCode::FAILURE;
        }
        if let Err(code) = write(&record) {
            return code;
        }
        last = Some(texts);
    }
    if !game.is_terminal(&state) {
        eprintln!("gdlc match: no end after 10,000 steps");
        return ExitCode::FAILURE;
    }
    let stop = format!(
        "( STOP {} ( {} ) )",
        record.match_id,
        last.map(|m| m.join(" ")).unwrap_or_default()
    );
    runtime.block_on(async {
        for seat in &seats {
            if let Seat::Remote(address) = seat {
                let _ = send(address, &stop, play_clock + grace).await;
            }
        }
    });
    let goals: Vec<i32> = (0..roles.len())
        .map(|r| game.goal(&state, r).unwrap_or(0))
        .collect();
    record.goals = Some(goals.clone());
    if let Err(code) = write(&record) {
        return code;
    }
    let line: Vec<String> = roles
        .iter()
        .zip(&goals)
        .map(|(r, g)| format!("{r}={g}"))
        .collect();
    super::finish_out(&format!("goals {}\n", line.join(" ")))
}
