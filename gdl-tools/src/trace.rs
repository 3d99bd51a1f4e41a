//! Seeded random playouts printed in the reference trace format.
//!
//! ```text
//! roles x o
//! seed 1
//! step 0
//! state (cell 1 1 b) (cell 1 2 b) ... (control x)
//! legal x 9: (mark 1 1) (mark 1 2) ... (mark 3 3)
//! legal o 1: noop
//! joint (mark 2 3) noop
//! step 1
//! ...
//! terminal 8 goals x=0 o=100
//! ```
//!
//! `roles` in the order of the description's `(role ...)` facts; `step N` counts from 0 (the
//! initial state); `state` the true facts, sorted by byte order and joined by one space; `legal`
//! each role's legal-move count and moves, sorted (absent in a terminal state); `joint` the
//! chosen moves in role order, drawn by [`gdl_runtime::SplitMix64`] (one draw per role per step, also
//! for a single legal move); `terminal N goals` each role's goal value, or `undef` where the
//! description gives none, or several.

use std::fmt::{self, Write};

use gdl_runtime::{Game, SplitMix64};

/// How a trace ends other than at a terminal state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceError {
    /// A role had no legal move in a non-terminal state (the game is not playable there).
    NoLegalMove { step: usize, role: String },
    /// The playout reached the step limit without a terminal state.
    StepLimit { steps: usize },
    /// The trace could not be written ([`write_trace_to`]); what was written before stands.
    Output(std::io::ErrorKind),
    /// The game could not answer a query ([`Game::fault`]) at this step; nothing of the step
    /// after the query is written.
    Fault { step: usize, reason: String },
    /// [`TraceExtras::random_moves`]: [`Game::random_legal_move`] drew another move than the
    /// list of [`Game::legal_moves`] gives for the same draw.
    RandomMove { step: usize, role: String },
    /// [`TraceExtras::random_moves`]: [`Game::random_step`] did not step as its default does
    /// (each role's [`Game::random_legal_move`], then [`Game::next_state`]) with the same draws.
    RandomStep { step: usize },
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::NoLegalMove { step, role } => {
                write!(
                    f,
                    "role {role} has no legal move in the non-terminal state of step {step}"
                )
            }
            TraceError::StepLimit { steps } => {
                write!(
                    f,
                    "no terminal state after {steps} steps (the step limit; raise it with \
                     --max-steps)"
                )
            }
            TraceError::Output(kind) => write!(f, "cannot write the trace: {kind}"),
            TraceError::Fault { step, reason } => write!(f, "at step {step}: {reason}"),
            TraceError::RandomMove { step, role } => write!(
                f,
                "at step {step}: the random legal move of role {role} is not the one its list \
                 of legal moves gives for the same draw"
            ),
            TraceError::RandomStep { step } => write!(
                f,
                "at step {step}: the random step is not the one the random legal moves and the \
                 next state give for the same draws"
            ),
        }
    }
}

impl std::error::Error for TraceError {}

/// Options of [`write_trace`].
#[derive(Clone, Debug)]
pub struct TraceOptions {
    /// The seed of the SplitMix64 move chooser.
    pub seed: u64,
    /// Give up after this many steps.
    pub max_steps: usize,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            seed: 1,
            max_steps: 100_000,
        }
    }
}

/// What a trace shows beyond the reference format. All off by default: the trace of
/// [`write_trace`] is the reference format exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceExtras {
    /// GDL-II. After the `seed` line, a line `random R` for each role `R` that
    /// [`Game::is_random_role`] says is random; after each `joint` line, a line
    /// `sees R K: p1 p2 ...` for each role that sees something after that joint move (its `K`
    /// percepts in the order [`Game::percepts`] gives them, which is sorted). A game without
    /// `random` and `sees` has the same trace with or without this.
    pub percepts: bool,
    /// After the `terminal` line, a line `goal-values R K: v1 v2 ...` for each role `R`: its
    /// `K` goal values in the terminal state ([`Game::goal_values`], ascending; `?` for a value
    /// that is no integer), so that several values are told from none.
    pub goal_values: bool,
    /// No line: checks at every step that [`Game::random_legal_move`] draws, with a copy of
    /// the chooser, the move that the same draw picks from the list of [`Game::legal_moves`]
    /// (in the game's order; the trace itself draws from the moves sorted by text), and stops
    /// with [`TraceError::RandomMove`] otherwise; and that [`Game::random_step`] steps as its
    /// default does ([`TraceError::RandomStep`]). It costs the engine a second listing.
    pub random_moves: bool,
}

/// Whether [`Game::random_step`] from `state` with a copy of `rng` gives what its default
/// gives with another copy: the same next state (or the same role without a move), and the
/// same draws made.
fn random_step_agrees<G: Game>(game: &G, state: &G::State, rng: &SplitMix64) -> bool {
    let (mut a, mut b) = (rng.clone(), rng.clone());
    let (mut scratch, mut joint) = (Vec::new(), Vec::new());
    let mut expected = state.clone();
    let want = gdl_runtime::game::default_random_step(
        game,
        state,
        &mut a,
        &mut scratch,
        &mut joint,
        &mut expected,
    );
    let mut next = state.clone();
    let got = game.random_step(state, &mut b, &mut scratch, &mut joint, &mut next);
    // Equal states of the chooser give equal next draws (its output is a bijection).
    let same_draws = a.next_u64() == b.next_u64();
    match (got, want) {
        (Ok(()), Ok(())) => same_draws && next == expected,
        (Err(r), Err(s)) => same_draws && r == s,
        _ => false,
    }
}

/// Plays one seeded random playout of `game` and appends its trace to `out`.
///
/// On an error, `out` holds the trace up to the point of failure.
pub fn write_trace<G: Game>(
    game: &G,
    options: &TraceOptions,
    out: &mut String,
) -> Result<(), TraceError> {
    write_trace_with(game, options, &TraceExtras::default(), out)
}

/// [`write_trace`] with the extra lines of `extras`.
pub fn write_trace_with<G: Game>(
    game: &G,
    options: &TraceOptions,
    extras: &TraceExtras,
    out: &mut String,
) -> Result<(), TraceError> {
    play(game, options, extras, out, &mut |_| Ok(()))
}

/// [`write_trace_with`], streamed: each step is written to `out` as soon as it is computed
/// (and `out` flushed), so a long playout shows progress and takes no memory for its text.
/// A write error stops the playout ([`TraceError::Output`]).
pub fn write_trace_to<G: Game>(
    game: &G,
    options: &TraceOptions,
    extras: &TraceExtras,
    out: &mut dyn std::io::Write,
) -> Result<(), TraceError> {
    let mut buffer = String::new();
    let mut flush = |text: &mut String| {
        let written = out.write_all(text.as_bytes()).and_then(|()| out.flush());
        text.clear();
        written.map_err(|e| TraceError::Output(e.kind()))
    };
    let played = play(game, options, extras, &mut buffer, &mut flush);
    // What the playout wrote before it stopped (the last step, an error's step) is shown too.
    let flushed = flush(&mut buffer);
    played.and(flushed)
}

/// The playout behind the `write_trace*` functions: appends to `out`, and calls `flush` with
/// it after each step.
fn play<G: Game>(
    game: &G,
    options: &TraceOptions,
    extras: &TraceExtras,
    out: &mut String,
    flush: &mut dyn FnMut(&mut String) -> Result<(), TraceError>,
) -> Result<(), TraceError> {
    let roles = game.role_count();
    let mut rng = SplitMix64::new(options.seed);
    out.push_str("roles");
    for r in 0..roles {
        out.push(' ');
        out.push_str(game.role_name(r));
    }
    let _ = write!(out, "\nseed {}\n", options.seed);
    if extras.percepts {
        for r in (0..roles).filter(|&r| game.is_random_role(r)) {
            let _ = writeln!(out, "random {}", game.role_name(r));
        }
    }
    let mut percepts = Vec::new();

    // A game that could not answer a query: the trace stops before writing the answer.
    let faulted = |step: usize| match game.fault() {
        Some(reason) => Err(TraceError::Fault { step, reason }),
        None => Ok(()),
    };
    let mut state = game.initial_state();
    faulted(0)?;
    let mut next = state.clone();
    let mut moves = Vec::new();
    let mut scratch = Vec::new();
    let mut ranked: Vec<(String, G::Move)> = Vec::new();
    let mut joint: Vec<G::Move> = Vec::with_capacity(roles);
    let mut facts = Vec::new();
    for step in 0..=options.max_steps {
        flush(out)?;
        let _ = writeln!(out, "step {step}");
        facts.clear();
        game.write_state(&state, &mut facts);
        facts.sort_unstable();
        facts.dedup();
        out.push_str("state ");
        out.push_str(&facts.join(" "));
        out.push('\n');
        let terminal = game.is_terminal(&state);
        faulted(step)?;
        if terminal {
            let _ = write!(out, "terminal {step} goals");
            for r in 0..roles {
                let goal = game.goal(&state, r);
                faulted(step)?;
                let _ = match goal {
                    Some(v) => write!(out, " {}={v}", game.role_name(r)),
                    None => write!(out, " {}=undef", game.role_name(r)),
                };
            }
            out.push('\n');
            if extras.goal_values {
                let mut values = Vec::new();
                for r in 0..roles {
                    game.goal_values(&state, r, &mut values);
                    faulted(step)?;
                    values.sort_unstable();
                    let _ = write!(out, "goal-values {} {}:", game.role_name(r), values.len());
                    for v in &values {
                        let _ = match v {
                            Some(v) => write!(out, " {v}"),
                            None => write!(out, " ?"),
                        };
                    }
                    out.push('\n');
                }
            }
            return Ok(());
        }
        if step == options.max_steps {
            break;
        }
        if extras.random_moves {
            let agrees = random_step_agrees(game, &state, &rng);
            faulted(step)?;
            if !agrees {
                return Err(TraceError::RandomStep { step });
            }
        }
        joint.clear();
        let mut stuck = None;
        for r in 0..roles {
            game.legal_moves(&state, r, &mut moves);
            faulted(step)?;
            if extras.random_moves {
                let mut draw = rng.clone();
                let listed = (!moves.is_empty()).then(|| moves[draw.clone().below(moves.len())]);
                let drawn = game.random_legal_move(&state, r, &mut draw, &mut scratch);
                faulted(step)?;
                if drawn != listed {
                    return Err(TraceError::RandomMove {
                        step,
                        role: game.role_name(r).to_string(),
                    });
                }
            }
            ranked.clear();
            ranked.extend(moves.iter().map(|&m| (game.move_text(r, m), m)));
            ranked.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            ranked.dedup_by(|a, b| a.0 == b.0);
            let _ = write!(out, "legal {} {}:", game.role_name(r), ranked.len());
            for (text, _) in &ranked {
                out.push(' ');
                out.push_str(text);
            }
            out.push('\n');
            if ranked.is_empty() {
                stuck.get_or_insert(r);
            } else {
                joint.push(ranked[rng.below(ranked.len())].1);
            }
        }
        if let Some(r) = stuck {
            return Err(TraceError::NoLegalMove {
                step,
                role: game.role_name(r).to_string(),
            });
        }
        out.push_str("joint");
        for (r, &m) in joint.iter().enumerate() {
            out.push(' ');
            game.write_move(r, m, out);
        }
        out.push('\n');
        if extras.percepts {
            for r in 0..roles {
                percepts.clear();
                game.percepts(&state, &joint, r, &mut percepts);
                faulted(step)?;
                if percepts.is_empty() {
                    continue;
                }
                let _ = write!(out, "sees {} {}:", game.role_name(r), percepts.len());
                for p in &percepts {
                    out.push(' ');
                    out.push_str(p);
                }
                out.push('\n');
            }
        }
        game.next_state(&state, &joint, &mut next);
        faulted(step)?;
        std::mem::swap(&mut state, &mut next);
    }
    Err(TraceError::StepLimit {
        steps: options.max_steps,
    })
}
