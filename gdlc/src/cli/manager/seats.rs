//! Who plays each role: a remote player (`HOST:PORT`, spoken to over HTTP), a player in this
//! process (`random`, `mcts`), a person at the terminal (`human`), or the manager itself (the
//! GDL-II role `random`).

use gdl_player::{Mcts, MctsOptions, Player, RandomPlayer};
use gdlc::interp::Interpreter;

use super::human::Human;

/// A player as the command line gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayerSpec {
    /// `HOST:PORT`.
    Remote(String),
    Random,
    Mcts,
    Human,
}

/// A `--player` that is none of the kinds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError(pub String);

impl std::fmt::Display for SpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` is not HOST:PORT, random, mcts or human", self.0)
    }
}

impl std::str::FromStr for PlayerSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<PlayerSpec, SpecError> {
        match s {
            "random" => Ok(PlayerSpec::Random),
            "mcts" => Ok(PlayerSpec::Mcts),
            "human" => Ok(PlayerSpec::Human),
            _ => match s.rsplit_once(':') {
                Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => {
                    Ok(PlayerSpec::Remote(s.to_string()))
                }
                _ => Err(SpecError(s.to_string())),
            },
        }
    }
}

impl PlayerSpec {
    /// The name in the record (`playerNamesFromHost`) and the score table.
    pub fn label(&self) -> &str {
        match self {
            PlayerSpec::Remote(a) => a,
            PlayerSpec::Random => "random",
            PlayerSpec::Mcts => "mcts",
            PlayerSpec::Human => "human",
        }
    }

    /// A fresh seat for one match; in-process players draw from `seed`.
    pub fn seat(&self, seed: u64) -> Seat {
        let who = match self {
            PlayerSpec::Remote(a) => Who::Remote(a.clone()),
            PlayerSpec::Random => Who::Local(Box::new(RandomPlayer::new(seed))),
            PlayerSpec::Mcts => Who::Local(Box::new(Mcts::new(MctsOptions {
                seed,
                ..MctsOptions::default()
            }))),
            PlayerSpec::Human => Who::Human(Human::new(seed)),
        };
        Seat {
            name: self.label().to_string(),
            who,
        }
    }
}

/// A remote address given twice: a player plays one match, in one role, at a time.
pub fn repeated_remote(specs: &[PlayerSpec]) -> Option<&str> {
    specs.iter().enumerate().find_map(|(k, s)| match s {
        PlayerSpec::Remote(a) if specs[..k].contains(s) => Some(a.as_str()),
        _ => None,
    })
}

/// One role's player in one match.
pub struct Seat {
    pub name: String,
    pub who: Who,
}

pub enum Who {
    Remote(String),
    Local(Box<dyn Player<Interpreter>>),
    Human(Human),
    /// GDL-II's `random`, played by the manager.
    Manager,
}

impl Seat {
    /// The manager's seat for the role `random`.
    pub fn manager() -> Seat {
        Seat {
            name: "random".to_string(),
            who: Who::Manager,
        }
    }

    pub fn address(&self) -> Option<&str> {
        match &self.who {
            Who::Remote(a) => Some(a),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_are_read_from_the_command_line() {
        assert_eq!("mcts".parse(), Ok(PlayerSpec::Mcts));
        assert_eq!("human".parse(), Ok(PlayerSpec::Human));
        assert_eq!(
            "127.0.0.1:9147".parse(),
            Ok(PlayerSpec::Remote("127.0.0.1:9147".into()))
        );
        assert!("localhost".parse::<PlayerSpec>().is_err());
        assert!("host:99999".parse::<PlayerSpec>().is_err());
        assert!(":80".parse::<PlayerSpec>().is_err());
        let specs: Vec<PlayerSpec> = ["a:1", "random", "a:1"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        assert_eq!(repeated_remote(&specs), Some("a:1"));
        assert_eq!(repeated_remote(&specs[..2]), None);
    }
}
