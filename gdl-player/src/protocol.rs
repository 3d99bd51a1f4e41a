//! The messages of the GGP match protocol (`INFO`, `PREVIEW`, `START`, `PLAY`, `STOP`,
//! `ABORT`), read with the crate's S-expression reader, and the replies a player sends.
//!
//! Keywords are matched without regard to case (`( info )`, `NIL`, `nil`); `START` may carry
//! more than five arguments (the extra ones are ignored); a move list is a list or the atom
//! `NIL`; GDL-II's `PLAY <id> <turn> <lastmove> <percepts>` is read too (a PLAY with four
//! arguments is GDL-II's: nothing else tells the two apart), and GDL-II's STOP as a STOP
//! without moves. Terms keep their text in
//! the canonical form of [`gdl_runtime::sexpr::canonical`] (`(mark 1 1)`), and the rules are
//! passed on as the text between START's parentheses. A message that is not one of these is a
//! [`MessageError`] saying what is wrong, for the reply and the log.

use std::fmt;

use gdl_runtime::sexpr::{self, NodeId, SExprs};

/// A message from a game manager.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    Info,
    /// The rules in advance, with the time to look at them (seconds).
    Preview {
        rules: String,
        clock: f64,
    },
    Start {
        match_id: String,
        role: String,
        /// The rules as KIF text (the contents of the list, without its outer parentheses).
        rules: String,
        /// Seconds.
        start_clock: f64,
        play_clock: f64,
    },
    /// `moves`: the last joint move in role order, `None` for `NIL` (the first PLAY).
    Play {
        match_id: String,
        moves: Option<Vec<String>>,
    },
    /// GDL-II: the turn, this player's last move and what it sees.
    PlayPercepts {
        match_id: String,
        turn: u64,
        last_move: Option<String>,
        percepts: Vec<String>,
    },
    Stop {
        match_id: String,
        moves: Option<Vec<String>>,
    },
    Abort {
        match_id: String,
    },
}

impl Message {
    /// The match the message is about (`None` for INFO and PREVIEW).
    pub fn match_id(&self) -> Option<&str> {
        match self {
            Message::Info | Message::Preview { .. } => None,
            Message::Start { match_id, .. }
            | Message::Play { match_id, .. }
            | Message::PlayPercepts { match_id, .. }
            | Message::Stop { match_id, .. }
            | Message::Abort { match_id } => Some(match_id),
        }
    }

    /// The message type as the protocol spells it (`PLAY`), for logs.
    pub fn kind(&self) -> &'static str {
        match self {
            Message::Info => "INFO",
            Message::Preview { .. } => "PREVIEW",
            Message::Start { .. } => "START",
            Message::Play { .. } | Message::PlayPercepts { .. } => "PLAY",
            Message::Stop { .. } => "STOP",
            Message::Abort { .. } => "ABORT",
        }
    }
}

/// Why a message could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MessageError {
    /// Not one S-expression (empty, unbalanced, or several).
    Syntax(String),
    /// Not a list starting with a known keyword.
    UnknownKind(String),
    /// A known message with an argument missing or malformed.
    Argument {
        kind: &'static str,
        what: &'static str,
    },
}

impl fmt::Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MessageError::Syntax(why) => write!(f, "not a message: {why}"),
            MessageError::UnknownKind(k) => write!(f, "unknown message `{k}`"),
            MessageError::Argument { kind, what } => write!(f, "{kind}: {what}"),
        }
    }
}

impl std::error::Error for MessageError {}

/// Reads one message.
pub fn parse(text: &str) -> Result<Message, MessageError> {
    let tree = sexpr::read(text);
    if let Some(e) = tree.errors.first() {
        return Err(MessageError::Syntax(e.message.clone()));
    }
    let [top] = tree.top_level() else {
        return Err(MessageError::Syntax(format!(
            "{} expressions, one expected",
            tree.top_level().len()
        )));
    };
    let items = tree.children(*top);
    let Some(keyword) = items.first().and_then(|&k| tree.atom(text, k)) else {
        return Err(MessageError::Syntax(
            "a list starting with a keyword expected".into(),
        ));
    };
    let args = &items[1..];
    let r = Reader { text, tree: &tree };
    let upper = keyword.to_ascii_uppercase();
    match upper.as_str() {
        "INFO" => Ok(Message::Info),
        "PREVIEW" => {
            let kind = "PREVIEW";
            Ok(Message::Preview {
                rules: r.rules(kind, args.first())?,
                clock: r.number(kind, args.get(1), "the preview clock")?,
            })
        }
        "START" => {
            let kind = "START";
            Ok(Message::Start {
                match_id: r.atom(kind, args.first(), "the match id")?,
                role: r.term(kind, args.get(1), "the role")?,
                rules: r.rules(kind, args.get(2))?,
                start_clock: r.number(kind, args.get(3), "the start clock")?,
                play_clock: r.number(kind, args.get(4), "the play clock")?,
            })
        }
        "PLAY" if args.len() >= 4 => {
            let kind = "PLAY";
            Ok(Message::PlayPercepts {
                match_id: r.atom(kind, args.first(), "the match id")?,
                turn: r.number(kind, args.get(1), "the turn")? as u64,
                last_move: match r.is_nil(args[2]) {
                    true => None,
                    false => Some(r.term(kind, args.get(2), "the last move")?),
                },
                percepts: r.moves(kind, args.get(3))?.unwrap_or_default(),
            })
        }
        // GDL-II's STOP: `<turn> <lastmove> <percepts>`; a player needs none of it.
        "STOP" if args.len() >= 4 => Ok(Message::Stop {
            match_id: r.atom("STOP", args.first(), "the match id")?,
            moves: None,
        }),
        "PLAY" | "STOP" => {
            let kind = if upper == "PLAY" { "PLAY" } else { "STOP" };
            let match_id = r.atom(kind, args.first(), "the match id")?;
            let moves = r.moves(kind, args.get(1))?;
            Ok(if kind == "PLAY" {
                Message::Play { match_id, moves }
            } else {
                Message::Stop { match_id, moves }
            })
        }
        "ABORT" => Ok(Message::Abort {
            match_id: r.atom("ABORT", args.first(), "the match id")?,
        }),
        _ => Err(MessageError::UnknownKind(keyword.to_string())),
    }
}

struct Reader<'a> {
    text: &'a str,
    tree: &'a SExprs,
}

impl Reader<'_> {
    fn missing(kind: &'static str, what: &'static str) -> MessageError {
        MessageError::Argument { kind, what }
    }

    fn atom(
        &self,
        kind: &'static str,
        id: Option<&NodeId>,
        what: &'static str,
    ) -> Result<String, MessageError> {
        id.and_then(|&i| self.tree.atom(self.text, i))
            .map(str::to_string)
            .ok_or(Self::missing(kind, what))
    }

    fn term(
        &self,
        kind: &'static str,
        id: Option<&NodeId>,
        what: &'static str,
    ) -> Result<String, MessageError> {
        id.map(|&i| sexpr::canonical(self.text, self.tree, i))
            .ok_or(Self::missing(kind, what))
    }

    fn number(
        &self,
        kind: &'static str,
        id: Option<&NodeId>,
        what: &'static str,
    ) -> Result<f64, MessageError> {
        id.and_then(|&i| self.tree.atom(self.text, i))
            .and_then(|a| a.parse::<f64>().ok())
            .filter(|x| x.is_finite() && *x >= 0.0)
            .ok_or(Self::missing(kind, what))
    }

    fn is_nil(&self, id: NodeId) -> bool {
        self.tree
            .atom(self.text, id)
            .is_some_and(|a| a.eq_ignore_ascii_case("nil"))
    }

    /// A move list, or `None` for `NIL`.
    fn moves(
        &self,
        kind: &'static str,
        id: Option<&NodeId>,
    ) -> Result<Option<Vec<String>>, MessageError> {
        let Some(&id) = id else {
            return Err(Self::missing(kind, "the moves (a list or NIL)"));
        };
        if self.is_nil(id) {
            return Ok(None);
        }
        if self.tree.atom(self.text, id).is_some() {
            return Err(Self::missing(kind, "the moves (a list or NIL)"));
        }
        Ok(Some(
            self.tree
                .children(id)
                .iter()
                .map(|&m| sexpr::canonical(self.text, self.tree, m))
                .collect(),
        ))
    }

    /// The rules: the text inside the list.
    fn rules(&self, kind: &'static str, id: Option<&NodeId>) -> Result<String, MessageError> {
        let Some(&id) = id else {
            return Err(Self::missing(kind, "the rules"));
        };
        if self.tree.atom(self.text, id).is_some() {
            return Err(Self::missing(kind, "the rules (a list)"));
        }
        let span = self.tree.node(id).span().range();
        let inner = &self.text[span];
        Ok(inner[1..inner.len().saturating_sub(1)].to_string())
    }
}

/// The replies of a player.
pub mod reply {
    /// Whether a player is free, for INFO.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Status<'a> {
        Available,
        /// In a match, played by `engine` (e.g. `compiled`) once it is known.
        Busy {
            engine: Option<&'a str>,
        },
    }

    /// To INFO: `( ( name N ) ( status available ) )`, or `busy` and, when known, the engine
    /// that plays (`( engine compiled )`: ggp-base's manager reads the pairs it knows and
    /// skips the others). Each value is one ASCII atom.
    pub fn info(name: &str, status: Status) -> String {
        let atom = |s: &str| -> String {
            let a: String = s
                .chars()
                .map(|c| match c {
                    '(' | ')' | ';' | '"' => '_',
                    c if c.is_ascii_graphic() => c,
                    _ => '_',
                })
                .collect();
            if a.is_empty() { "_".to_string() } else { a }
        };
        let name = atom(name);
        match status {
            Status::Available => format!("( ( name {name} ) ( status available ) )"),
            Status::Busy { engine: None } => format!("( ( name {name} ) ( status busy ) )"),
            Status::Busy {
                engine: Some(engine),
            } => format!(
                "( ( name {name} ) ( status busy ) ( engine {} ) )",
                atom(engine)
            ),
        }
    }
    pub const READY: &str = "ready";
    pub const DONE: &str = "done";
    pub const ABORTED: &str = "aborted";
    pub const BUSY: &str = "busy";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_in_any_case() {
        assert_eq!(parse("( INFO )"), Ok(Message::Info));
        assert_eq!(parse("( info )"), Ok(Message::Info));
    }

    #[test]
    fn start_with_extra_arguments() {
        let m = parse("( START m.1 xplayer (( role xplayer ) (init (cell 1 1 b))) 30 10 extra )")
            .unwrap();
        assert_eq!(
            m,
            Message::Start {
                match_id: "m.1".into(),
                role: "xplayer".into(),
                rules: "( role xplayer ) (init (cell 1 1 b))".into(),
                start_clock: 30.0,
                play_clock: 10.0,
            }
        );
    }

    #[test]
    fn play_nil_and_moves() {
        assert_eq!(
            parse("( PLAY m.1 NIL )"),
            Ok(Message::Play {
                match_id: "m.1".into(),
                moves: None
            })
        );
        assert_eq!(
            parse("( play m.1 nil )"),
            Ok(Message::Play {
                match_id: "m.1".into(),
                moves: None
            })
        );
        assert_eq!(
            parse("( PLAY m.1 (noop ( mark 3 2 ) ) )"),
            Ok(Message::Play {
                match_id: "m.1".into(),
                moves: Some(vec!["noop".into(), "(mark 3 2)".into()])
            })
        );
        assert_eq!(
            parse("( STOP m.1 (noop noop) )"),
            Ok(Message::Stop {
                match_id: "m.1".into(),
                moves: Some(vec!["noop".into(), "noop".into()])
            })
        );
    }

    #[test]
    fn gdl2_play() {
        assert_eq!(
            parse("( PLAY m 0 NIL NIL )"),
            Ok(Message::PlayPercepts {
                match_id: "m".into(),
                turn: 0,
                last_move: None,
                percepts: vec![]
            })
        );
        assert_eq!(
            parse("( PLAY m 2 (choose 1) ((open 3)) )"),
            Ok(Message::PlayPercepts {
                match_id: "m".into(),
                turn: 2,
                last_move: Some("(choose 1)".into()),
                percepts: vec!["(open 3)".into()]
            })
        );
        assert_eq!(
            parse("( STOP m 4 (guess 3) (correct) )"),
            Ok(Message::Stop {
                match_id: "m".into(),
                moves: None
            })
        );
    }

    #[test]
    fn bad_messages_say_why() {
        assert!(matches!(parse(""), Err(MessageError::Syntax(_))));
        assert!(matches!(parse("( INFO"), Err(MessageError::Syntax(_))));
        assert!(matches!(
            parse("garbage here"),
            Err(MessageError::Syntax(_))
        ));
        assert_eq!(
            parse("( FOO )"),
            Err(MessageError::UnknownKind("FOO".into()))
        );
        assert!(matches!(
            parse("( START m r rules 1 2 )"),
            Err(MessageError::Argument { kind: "START", .. })
        ));
        assert!(matches!(
            parse("( PLAY m )"),
            Err(MessageError::Argument { kind: "PLAY", .. })
        ));
        assert!(matches!(
            parse("( START m r (x) -1 2 )"),
            Err(MessageError::Argument { kind: "START", .. })
        ));
        let e = parse("( FOO )").unwrap_err().to_string();
        assert!(e.contains("FOO"), "{e}");
    }

    #[test]
    fn the_info_reply_is_ascii() {
        use reply::Status;
        assert_eq!(
            reply::info("gdlc", Status::Available),
            "( ( name gdlc ) ( status available ) )"
        );
        assert_eq!(
            reply::info("gdlc", Status::Busy { engine: None }),
            "( ( name gdlc ) ( status busy ) )"
        );
        let busy = reply::info(
            "é (x)",
            Status::Busy {
                engine: Some("compiled MCTS"),
            },
        );
        assert_eq!(
            busy,
            "( ( name ___x_ ) ( status busy ) ( engine compiled_MCTS ) )"
        );
        assert!(sexpr::read(&busy).errors.is_empty());
    }
}
