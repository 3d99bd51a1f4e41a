//! The match record, in the ggp.org (Tiltyard) JSON format that `protocol.md` describes, and
//! its invariants: `len(states) == len(moves) + 1 == len(stateTimes)`, `len(errors) ==
//! len(states)`, one entry per role in every row, `goalValues` only when completed. The record
//! only ever grows by whole steps, and is written to its file atomically (a temporary file and
//! a rename), so a crash or Ctrl-C leaves the last complete record.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use gdl_runtime::SplitMix64;

/// Milliseconds since the epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A token of 20 letters and digits, different in every call (ggp.org wants >= 12).
pub fn random_token() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let calls = CALLS.fetch_add(1, Ordering::Relaxed);
    let mut rng = SplitMix64::new(nanos ^ (u64::from(std::process::id()) << 32) ^ calls);
    const DIGITS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    (0..20)
        .map(|_| DIGITS[rng.below(DIGITS.len())] as char)
        .collect()
}

/// What a record knows before the first step.
pub struct Header {
    pub match_id: String,
    pub start_clock: f64,
    pub play_clock: f64,
    pub roles: Vec<String>,
    pub players: Vec<String>,
}

/// The record of a match.
pub struct Record {
    header: Header,
    random_token: String,
    start_time: u64,
    states: Vec<String>,
    moves: Vec<Vec<String>>,
    state_times: Vec<u64>,
    errors: Vec<Vec<String>>,
    goals: Option<Vec<i32>>,
    aborted: bool,
}

/// A clock as JSON: a whole number of seconds without a fraction (`5`, not `5.0`).
fn clock_json(secs: f64) -> serde_json::Value {
    if secs.fract() == 0.0 && secs.abs() < 1e15 {
        serde_json::json!(secs as i64)
    } else {
        serde_json::json!(secs)
    }
}

impl Record {
    pub fn new(header: Header) -> Record {
        Record {
            header,
            random_token: random_token(),
            start_time: now_ms(),
            states: Vec::new(),
            moves: Vec::new(),
            state_times: Vec::new(),
            errors: Vec::new(),
            goals: None,
            aborted: false,
        }
    }

    pub fn match_id(&self) -> &str {
        &self.header.match_id
    }

    /// The initial state, with the errors of START.
    pub fn begin(&mut self, state: String, errors: Vec<String>) {
        self.states.push(state);
        self.state_times.push(now_ms());
        self.errors.push(errors);
    }

    /// One step: the joint move (one text per role), the state it led to, and the errors.
    pub fn step(&mut self, moves: Vec<String>, state: String, errors: Vec<String>) {
        self.moves.push(moves);
        self.states.push(state);
        // Never before the previous state: the clock may step back, the record may not.
        let last = self.state_times.last().copied().unwrap_or(0);
        self.state_times.push(now_ms().max(last));
        self.errors.push(errors);
    }

    /// The steps played so far.
    pub fn steps(&self) -> usize {
        self.moves.len()
    }

    pub fn complete(&mut self, goals: Vec<i32>) {
        self.goals = Some(goals);
    }

    pub fn abort(&mut self) {
        self.aborted = true;
    }

    pub fn json(&self) -> String {
        let mut v = serde_json::json!({
            "matchId": self.header.match_id,
            "randomToken": self.random_token,
            "startTime": self.start_time,
            "startClock": clock_json(self.header.start_clock),
            "playClock": clock_json(self.header.play_clock),
            "previewClock": -1,
            "gameRoleNames": self.header.roles,
            "playerNamesFromHost": self.header.players,
            "states": self.states,
            "moves": self.moves,
            "stateTimes": self.state_times,
            "errors": self.errors,
            "isCompleted": self.goals.is_some(),
            "isAborted": self.aborted,
        });
        if let Some(goals) = &self.goals {
            v["goalValues"] = serde_json::json!(goals);
        }
        serde_json::to_string_pretty(&v).unwrap_or_default()
    }

    /// Writes the record to `path` atomically (nothing without a path).
    pub fn save(&self, path: Option<&Path>) -> std::io::Result<()> {
        match path {
            Some(path) => crate::cli::write_atomically(path, self.json().as_bytes()),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_keeps_its_invariants() {
        let mut r = Record::new(Header {
            match_id: "m".into(),
            start_clock: 5.0,
            play_clock: 0.5,
            roles: vec!["x".into(), "o".into()],
            players: vec!["random".into(), "mcts".into()],
        });
        r.begin("( ( control x ) )".into(), vec![String::new(), "CE".into()]);
        r.step(
            vec!["( mark 1 1 )".into(), "noop".into()],
            "( ( control o ) )".into(),
            vec![String::new(), "CE".into()],
        );
        let v: serde_json::Value = serde_json::from_str(&r.json()).unwrap();
        assert_eq!(v["states"].as_array().unwrap().len(), 2);
        assert_eq!(v["startClock"], 5);
        assert_eq!(v["playClock"], 0.5);
        assert_eq!(v["isCompleted"], false);
        assert!(v.get("goalValues").is_none());
        r.complete(vec![100, 0]);
        let v: serde_json::Value = serde_json::from_str(&r.json()).unwrap();
        assert_eq!(v["goalValues"], serde_json::json!([100, 0]));
        assert!(v["randomToken"].as_str().unwrap().len() >= 12);
        assert_ne!(random_token(), random_token());
    }
}
