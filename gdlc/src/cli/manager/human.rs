//! The `human` player: a person at the terminal. Each turn it sees what its role knows (the
//! state, listed compactly; in a GDL-II match only what the role saw), the play clock (shown,
//! not enforced) and the legal moves, numbered; it answers with a number or the move's text
//! (`(mark 1 1)` or `mark 1 1`). Anything else is refused and asked again. When standard input
//! closes, the role plays random legal moves from then on, and says so. Prompts and listings
//! go to standard error; standard output keeps the match's result.

use std::io::{BufRead, IsTerminal, Read, Write};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use gdl_runtime::SplitMix64;
use gdl_runtime::sexpr;

use super::clock::seconds;
use super::interrupt;

/// The longest line read from standard input (a longer one is cut into pieces).
const MAX_LINE: u64 = 64 * 1024;

/// Lines of standard input, read on their own thread (so that waiting for a person can be
/// interrupted); `None` once it is closed.
fn lines() -> &'static Mutex<Receiver<Option<String>>> {
    static LINES: OnceLock<Mutex<Receiver<Option<String>>>> = OnceLock::new();
    LINES.get_or_init(|| {
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let stdin = std::io::stdin();
            let mut line = Vec::new();
            loop {
                line.clear();
                match stdin.lock().take(MAX_LINE).read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(None);
                        break;
                    }
                    Ok(_) => {
                        if tx
                            .send(Some(String::from_utf8_lossy(&line).into_owned()))
                            .is_err()
                        {
                            break;
                        }
                    }
                }
            }
        });
        Mutex::new(rx)
    })
}

/// What the person chose.
pub enum Choice {
    /// The index of the move in the list given.
    Move(usize),
    /// Ctrl-C was pressed while waiting.
    Interrupted,
}

/// A person at the terminal.
pub struct Human {
    rng: SplitMix64,
    /// Standard input is closed: random moves from now on.
    closed: bool,
}

/// What the person is asked about: which role, which step, what it sees, the moves.
pub struct Turn<'a> {
    pub role: &'a str,
    pub step: usize,
    /// What the role knows, already laid out ([`listing`]).
    pub view: &'a str,
    /// The legal moves' texts (`(mark 1 1)`), in the game's order.
    pub moves: &'a [String],
    pub play_clock: Duration,
}

fn say(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

/// The canonical text of a typed move: `mark 1 1` and `( mark  1 1 )` are `(mark 1 1)`.
fn typed_move(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for text in [line.to_string(), format!("({line})")] {
        let tree = sexpr::read(&text);
        if let [one] = tree.top_level() {
            if tree.errors.is_empty() {
                out.push(sexpr::canonical(&text, &tree, *one));
            }
        }
    }
    out
}

impl Human {
    pub fn new(seed: u64) -> Human {
        Human {
            rng: SplitMix64::new(seed),
            closed: false,
        }
    }

    /// Asks for a move of `turn.role` until one is given. A single legal move is played
    /// without asking.
    pub fn choose(&mut self, turn: &Turn) -> Choice {
        let n = turn.moves.len();
        if n <= 1 {
            if let Some(m) = turn.moves.first() {
                say(&format!(
                    "{}: {m}, the only legal move (step {})\n",
                    turn.role, turn.step
                ));
            }
            return Choice::Move(0);
        }
        if self.closed {
            return Choice::Move(self.rng.below(n));
        }
        // Listed in text order; `order[k]` is the move numbered k + 1.
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| turn.moves[a].cmp(&turn.moves[b]));
        let mut menu = format!(
            "\nstep {}: {} to move (play clock {}, not enforced)\n{}",
            turn.step,
            turn.role,
            seconds(turn.play_clock),
            turn.view
        );
        for (k, &i) in order.iter().enumerate() {
            menu.push_str(&format!("  {:>3}  {}\n", k + 1, turn.moves[i]));
        }
        say(&menu);
        loop {
            say(&format!(
                "{}: a number from 1 to {n}, or a move: ",
                turn.role
            ));
            let line = match self.next_line() {
                Some(Ok(line)) => {
                    // Typed input is echoed by the terminal; piped input is shown here.
                    if !std::io::stdin().is_terminal() {
                        say(&format!("{}\n", line.trim_end()));
                    }
                    line
                }
                Some(Err(())) => return Choice::Interrupted,
                None => {
                    self.closed = true;
                    say(&format!(
                        "\nstandard input is closed: {} plays random legal moves from now on\n",
                        turn.role
                    ));
                    return Choice::Move(self.rng.below(n));
                }
            };
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            if let Ok(k) = line.parse::<usize>() {
                if (1..=n).contains(&k) {
                    return Choice::Move(order[k - 1]);
                }
                say(&format!("{k} is not between 1 and {n}\n"));
                continue;
            }
            let typed = typed_move(line);
            let exact = turn.moves.iter().position(|m| typed.contains(m));
            let folded = || {
                let mut hits = turn
                    .moves
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| typed.iter().any(|t| t.eq_ignore_ascii_case(m)));
                match (hits.next(), hits.next()) {
                    (Some((i, _)), None) => Some(i),
                    _ => None,
                }
            };
            match exact.or_else(folded) {
                Some(i) => return Choice::Move(i),
                None => say(&format!("`{line}` is not a legal move\n")),
            }
        }
    }

    /// The next line of standard input: `None` when it is closed, `Some(Err)` on Ctrl-C.
    fn next_line(&mut self) -> Option<Result<String, ()>> {
        let Ok(lines) = lines().lock() else {
            return None;
        };
        loop {
            if interrupt::requested() {
                return Some(Err(()));
            }
            match lines.recv_timeout(Duration::from_millis(100)) {
                Ok(Some(line)) => return Some(Ok(line)),
                Ok(None) | Err(RecvTimeoutError::Disconnected) => return None,
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }
}

/// A state (or percepts) for people: the facts grouped by relation, one line each,
/// e.g. `  cell: 1 1 b | 1 2 x | ...` and `  control: o`.
pub fn listing(facts: &[String]) -> String {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    let mut sorted: Vec<&String> = facts.iter().collect();
    sorted.sort();
    for fact in sorted {
        let inner = fact
            .strip_prefix('(')
            .and_then(|f| f.strip_suffix(')'))
            .unwrap_or(fact);
        let (head, rest) = inner.split_once(' ').unwrap_or((inner, ""));
        match groups.last_mut() {
            Some((h, args)) if h == head => args.push(rest.to_string()),
            _ => groups.push((head.to_string(), vec![rest.to_string()])),
        }
    }
    let mut out = String::new();
    for (head, args) in groups {
        let args: Vec<&String> = args.iter().filter(|a| !a.is_empty()).collect();
        if args.is_empty() {
            out.push_str(&format!("  {head}\n"));
        } else {
            let args: Vec<&str> = args.iter().map(|a| a.as_str()).collect();
            out.push_str(&format!("  {head}: {}\n", args.join(" | ")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_are_listed_by_relation() {
        let facts = [
            "(control o)".to_string(),
            "(cell 1 2 x)".to_string(),
            "(cell 1 1 b)".to_string(),
            "open".to_string(),
        ];
        assert_eq!(
            listing(&facts),
            "  cell: 1 1 b | 1 2 x\n  control: o\n  open\n"
        );
    }

    #[test]
    fn typed_moves_are_read_with_or_without_parentheses() {
        assert!(typed_move("mark 1 1").contains(&"(mark 1 1)".to_string()));
        assert!(typed_move("( mark  1 1 )").contains(&"(mark 1 1)".to_string()));
        assert!(typed_move("noop").contains(&"noop".to_string()));
        assert!(typed_move("(mark 1").is_empty());
    }
}
