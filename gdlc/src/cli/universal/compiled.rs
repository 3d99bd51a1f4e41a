//! The compiled engine of a match: when its build is done it takes over
//! ([`takeover`](super::takeover)), run as `BIN engine` and brought to the match's state
//! ([`gdl_player::subprocess`]); its moves are checked, and a failed or repeatedly late engine
//! is given up for the engine in this process.

use std::process::Command;
use std::sync::mpsc;
use std::time::Instant;

use gdl_player::Player;
use gdl_player::subprocess::{self, EngineError};
use gdl_runtime::Game;

use super::network::Network;
use super::takeover::Clock;
use super::{Compiled, MAX_LATE, SLACK, Universal, log};

impl Universal {
    /// Looks at the build; when it is done, and `clock` does not make it wait
    /// ([`takeover`](super::takeover)), starts the compiled engine and replays the match's
    /// moves into it (in a GDL-II match, the turns are told at the next move:
    /// [`imperfect`](super::imperfect)). True when the compiled engine plays from now on.
    pub(super) fn poll_build(&mut self, clock: Clock) -> bool {
        match &self.compiled {
            Compiled::Running { .. } => return true,
            Compiled::Off(_) => return false,
            Compiled::Built { .. } => {}
            Compiled::Building(receiver, began) => {
                let built = match receiver.try_recv() {
                    Ok(built) => built,
                    Err(mpsc::TryRecvError::Empty) => return false,
                    Err(mpsc::TryRecvError::Disconnected) => Err("the build stopped".to_string()),
                };
                let took = began.elapsed().as_secs_f64();
                match built {
                    Ok(binary) => {
                        log(&format!(
                            "{}: the compiled game is built ({took:.1} s)",
                            self.match_id
                        ));
                        self.compiled = Compiled::Built {
                            binary,
                            attempts: 0,
                        };
                    }
                    Err(why) => {
                        log(&format!(
                            "{}: {why}; {} plays on",
                            self.match_id,
                            self.local_name()
                        ));
                        self.compiled = Compiled::Off(why);
                        return false;
                    }
                }
            }
        }
        let Compiled::Built { binary, attempts } = &mut self.compiled else {
            return false;
        };
        if clock.waits() {
            return false;
        }
        *attempts += 1;
        let (binary, attempts) = (binary.clone(), *attempts);
        match self.launch(&binary, clock) {
            Ok(engine) => {
                log(&format!(
                    "{}: the compiled game plays from step {}",
                    self.match_id,
                    self.step()
                ));
                let believed = self.imperfect.then_some(0);
                self.compiled = Compiled::Running {
                    engine,
                    late: 0,
                    believed,
                };
                // The trees in this process are not needed any more; they follow from fresh
                // ones.
                self.mcts.forget_tree(&self.game);
                if let Network::Playing(search) = &mut self.network {
                    search.forget_tree();
                }
                true
            }
            Err(e) if attempts < MAX_LATE => {
                log(&format!(
                    "{}: the compiled game did not start ({e}); trying again at the next move",
                    self.match_id
                ));
                false
            }
            Err(e) => {
                let why = format!("the compiled game did not start: {e}");
                log(&format!(
                    "{}: {why}; {} plays on",
                    self.match_id,
                    self.local_name()
                ));
                self.compiled = Compiled::Off(why);
                false
            }
        }
    }

    /// Runs the compiled game's engine and brings it to the current state: at START it
    /// searches until the deadline; during a match it measures until `clock` says
    /// ([`takeover`](super::takeover)), then gets the moves played so far, within a little
    /// [`SLACK`] more. A GDL-II match is not searched from the initial state: the engine is
    /// told `beliefs` at once.
    pub(super) fn launch(
        &self,
        binary: &std::path::Path,
        clock: Clock,
    ) -> Result<subprocess::Engine, EngineError> {
        let mut command = Command::new(binary);
        command
            .arg("engine")
            .arg(format!("--threads={}", self.threads))
            .arg(format!(
                "--max-nodes={}",
                self.mcts_options.max_nodes.max(1)
            ))
            .arg(format!(
                "--max-memory={}",
                (self.mcts_options.max_memory >> 20).max(1)
            ))
            .arg(format!("--exploration={}", self.mcts_options.exploration))
            .arg(format!("--ponder={}", self.ponder.as_str()))
            .arg(format!("--search={}", self.mcts_options.search.name()))
            .arg(format!("--playout={}", self.mcts_options.playout.name()))
            .arg(format!(
                "--expansion={}",
                self.mcts_options.expansion.name()
            ))
            .arg(format!(
                "--simultaneous={}",
                self.mcts_options.simultaneous.name()
            ))
            .arg(match self.mcts_options.best_line {
                true => "--best-line=on",
                false => "--best-line=off",
            })
            .arg(format!(
                "--heuristic={}",
                self.mcts_options.heuristic.mode.name()
            ))
            .arg(format!("--amaf={}", self.mcts_options.amaf.mode.name()))
            .arg(format!(
                "--factoring={}",
                self.mcts_options.factoring.name()
            ))
            .arg(format!(
                "--opponents={}",
                self.mcts_options.opponents.name()
            ));
        let mut engine = subprocess::Engine::spawn(command)?;
        let search_until = match clock {
            // A GDL-II match is searched from beliefs, not from the initial state.
            _ if self.imperfect => Instant::now(),
            Clock::Start(deadline) => deadline,
            Clock::Play(_) | Clock::Between => clock.measure_until(),
        };
        engine.start(self.game.role_name(self.role), search_until, SLACK)?;
        if self.imperfect {
            // The turns seen so far are told at the next move (`imperfect.rs`).
            engine.beliefs(SLACK)?;
            return Ok(engine);
        }
        let patience = search_until.max(Instant::now() + SLACK);
        for joint in &self.history {
            engine.observe(joint, patience.saturating_duration_since(Instant::now()))?;
        }
        if let Some(judged) = self.judgments() {
            engine.opponents(&judged, patience.saturating_duration_since(Instant::now()))?;
        }
        Ok(engine)
    }

    /// What the search of this process that plays judged of the other roles
    /// ([`Player::judgments`]): the network's, else the interpreter's.
    fn judgments(&self) -> Option<String> {
        match &self.network {
            Network::Playing(search) => search.mcts.judgments(&search.game),
            _ => self.mcts.judgments(&self.game),
        }
    }

    /// The compiled engine's move, when it plays and its move is legal here. A late reply
    /// leaves this move to the engine in this process; [`MAX_LATE`] of them in a row, or any
    /// other failure, leave it the match.
    pub(super) fn compiled_move(&mut self, deadline: Instant) -> Option<String> {
        let Compiled::Running { engine, late, .. } = &mut self.compiled else {
            return None;
        };
        let failure = match engine.choose(deadline, SLACK) {
            Ok(chosen) => {
                *late = 0;
                if self.legal_here(&chosen.text) {
                    self.report = Some(chosen.report);
                    return Some(chosen.text);
                }
                format!("its move `{}` is not legal", chosen.text)
            }
            Err(EngineError::Timeout) if *late + 1 < MAX_LATE => {
                *late += 1;
                return None;
            }
            Err(e) => e.to_string(),
        };
        self.give_up_compiled(failure);
        None
    }

    /// The compiled engine failed: the engine in this process plays on.
    pub(super) fn give_up_compiled(&mut self, why: String) {
        log(&format!(
            "{}: the compiled game failed ({why}); {} plays on",
            self.match_id,
            self.local_name()
        ));
        self.compiled = Compiled::Off(why);
    }
}
