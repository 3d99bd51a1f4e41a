//! The manager's messages, spelt as ggp-base's manager spells them (see
//! `../shared/captures/ticTacToe`): terms spaced inside their parentheses (`( mark 3 2 )`),
//! move lists as `(noop ( mark 3 2 ) )`, the rules of START one rule after another in one list.
//! GDL-II's PLAY and STOP carry the turn, the player's last move and its percepts instead of
//! the joint move (`protocol.md`).

use gdl_runtime::sexpr::{self, Spacing};
use gdlc::Program;

use super::clock::{Clocks, clock_text};

/// Which messages the players get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// GDL-I: PLAY and STOP carry the joint move.
    Gdl1,
    /// GDL-II: PLAY and STOP carry the turn, the player's own last move and what it sees.
    Gdl2,
}

/// A term (or several) as ggp-base writes it: `(mark 1 1)` becomes `( mark 1 1 )`, atoms stay.
pub fn spaced(text: &str) -> String {
    let tree = sexpr::read(text);
    let mut out = String::new();
    for (k, &top) in tree.top_level().iter().enumerate() {
        if k > 0 {
            out.push(' ');
        }
        sexpr::render(text, &tree, top, Spacing::Padded, &mut out);
    }
    out
}

/// A list of terms as ggp-base writes it: `(noop ( mark 3 2 ) )`.
fn list(terms: &[String]) -> String {
    let mut out = String::from("(");
    for t in terms {
        out.push_str(&spaced(t));
        out.push(' ');
    }
    out.push(')');
    out
}

/// What the manager sends of a description: its rules, one list, and whether it has `sees`.
pub struct Rules {
    /// `(( role x ) ( role o ) ... )`, as START carries them.
    pub list: String,
    /// Whether some rule concludes `sees` (a GDL-II game).
    pub has_sees: bool,
}

impl Rules {
    pub fn of(program: &Program) -> Rules {
        let mut texts = Vec::with_capacity(program.rules.len());
        let mut has_sees = false;
        for rule in &program.rules {
            let mut s = String::new();
            gdlc::print::write_rule_kif(&program.symbols, rule, &mut s);
            let head = s.strip_prefix("(<= ").unwrap_or(&s);
            let head = head.strip_prefix('(').unwrap_or(head);
            has_sees |= head
                .get(..5)
                .is_some_and(|h| h.eq_ignore_ascii_case("sees "));
            texts.push(s);
        }
        Rules {
            list: list(&texts),
            has_sees,
        }
    }
}

/// `( START <id> <role> (<rules>) <startclock> <playclock>)`.
pub fn start(match_id: &str, role: &str, rules: &Rules, clocks: &Clocks) -> String {
    format!(
        "( START {match_id} {role} {} {} {})",
        rules.list,
        clock_text(clocks.start_secs),
        clock_text(clocks.play_secs)
    )
}

/// GDL-I's PLAY: `( PLAY <id> NIL )` first, then `( PLAY <id> (<moves> ) )`.
pub fn play(match_id: &str, last: Option<&[String]>) -> String {
    match last {
        None => format!("( PLAY {match_id} NIL )"),
        Some(moves) => format!("( PLAY {match_id} {} )", list(moves)),
    }
}

/// GDL-I's STOP: `( STOP <id> (<moves> ) )` (`NIL` when the game ended before a move).
pub fn stop(match_id: &str, last: Option<&[String]>) -> String {
    match last {
        None => format!("( STOP {match_id} NIL )"),
        Some(moves) => format!("( STOP {match_id} {} )", list(moves)),
    }
}

/// What one GDL-II player is told after a step: the turn (0 before the first move), its own
/// last move and what it saw.
pub struct Sight<'a> {
    pub turn: usize,
    pub last_move: Option<&'a str>,
    pub percepts: &'a [String],
}

impl Sight<'_> {
    fn text(&self) -> String {
        let last = self.last_move.map_or_else(|| "NIL".to_string(), spaced);
        let seen = if self.percepts.is_empty() {
            "NIL".to_string()
        } else {
            list(self.percepts)
        };
        format!("{} {last} {seen}", self.turn)
    }
}

/// GDL-II's PLAY: `( PLAY <id> <turn> <lastmove> <percepts> )`, `NIL` for no move or no
/// percepts.
pub fn play_gdl2(match_id: &str, sight: &Sight) -> String {
    format!("( PLAY {match_id} {} )", sight.text())
}

/// GDL-II's STOP: as its PLAY.
pub fn stop_gdl2(match_id: &str, sight: &Sight) -> String {
    format!("( STOP {match_id} {} )", sight.text())
}

/// `( ABORT <id> )`.
pub fn abort(match_id: &str) -> String {
    format!("( ABORT {match_id} )")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_and_lists_are_spaced_as_ggp_base_does() {
        assert_eq!(spaced("(mark 3 2)"), "( mark 3 2 )");
        assert_eq!(spaced("noop"), "noop");
        assert_eq!(spaced("(f (g a) ())"), "( f ( g a ) ( ) )");
        assert_eq!(
            play("m", Some(&["noop".into(), "(mark 3 2)".into()])),
            "( PLAY m (noop ( mark 3 2 ) ) )"
        );
        assert_eq!(play("m", None), "( PLAY m NIL )");
        assert_eq!(
            stop("m", Some(&["(mark 2 2)".into(), "noop".into()])),
            "( STOP m (( mark 2 2 ) noop ) )"
        );
        let seen = ["(open 3)".to_string()];
        let sight = Sight {
            turn: 2,
            last_move: Some("(choose 1)"),
            percepts: &seen,
        };
        assert_eq!(
            play_gdl2("m", &sight),
            "( PLAY m 2 ( choose 1 ) (( open 3 ) ) )"
        );
        let first = Sight {
            turn: 0,
            last_move: None,
            percepts: &[],
        };
        assert_eq!(stop_gdl2("m", &first), "( STOP m 0 NIL NIL )");
    }
}
