//! The tokens of infix GDL (see the grammar in the parent module).

use crate::ast::Span;
use crate::ast::is_name_char;
use crate::diag::Diagnostic;
use crate::diag::codes;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    /// A name, plain or quoted; its text is in [`Token::text`].
    Name,
    /// A variable; its KIF name (without `?`) is in [`Token::text`].
    Var,
    Neck,
    Amp,
    Bar,
    Comma,
    Tilde,
    LParen,
    RParen,
    Dot,
    /// Characters that start no token; the lexer has reported them.
    Bad,
    Eof,
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) span: Span,
    /// The name of a [`Tok::Name`] or [`Tok::Var`], decoded.
    pub(super) text: String,
    /// The token is the first of its line.
    pub(super) line_start: bool,
    /// A blank line comes before the token.
    pub(super) after_blank: bool,
}

struct Lexer<'s> {
    src: &'s str,
    i: usize,
    toks: Vec<Token>,
    diags: Vec<Diagnostic>,
}

/// The tokens of `src` (ending with [`Tok::Eof`]), the lexical errors, and the spans of the
/// comments (from `%` or `//` to the end of the line, without the `\n`).
pub(super) fn lex(src: &str) -> (Vec<Token>, Vec<Diagnostic>, Vec<Span>) {
    let mut lx = Lexer {
        src,
        i: 0,
        toks: Vec::new(),
        diags: Vec::new(),
    };
    let mut comments = Vec::new();
    let b = src.as_bytes();
    let (mut seen_nl, mut clean_line, mut blank) = (true, false, false);
    while lx.i < b.len() {
        let c = b[lx.i];
        let next = b.get(lx.i + 1).copied();
        if c == b'\n' {
            blank |= seen_nl && clean_line;
            (seen_nl, clean_line) = (true, true);
            lx.i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            lx.i += 1;
            continue;
        }
        if c == b'%' || (c == b'/' && next == Some(b'/')) {
            clean_line = false;
            let start = lx.i;
            while lx.i < b.len() && b[lx.i] != b'\n' {
                lx.i += 1;
            }
            comments.push(Span::new(start, lx.i));
            continue;
        }
        let start = lx.i;
        let (tok, text) = lx.token(c, next);
        let span = Span::new(start, lx.i);
        lx.toks.push(Token {
            tok,
            span,
            text,
            line_start: seen_nl,
            after_blank: blank,
        });
        (seen_nl, clean_line, blank) = (false, false, false);
    }
    let end = Span::new(b.len(), b.len());
    let eof = Token {
        tok: Tok::Eof,
        span: end,
        text: String::new(),
        line_start: true,
        after_blank: blank,
    };
    lx.toks.push(eof);
    (lx.toks, lx.diags, comments)
}

impl Lexer<'_> {
    /// Reads the token starting with byte `c` at `self.i` (not white space nor a comment).
    fn token(&mut self, c: u8, next: Option<u8>) -> (Tok, String) {
        let punct = match (c, next) {
            (b'(', _) => Some((Tok::LParen, 1)),
            (b')', _) => Some((Tok::RParen, 1)),
            (b',', _) => Some((Tok::Comma, 1)),
            (b'&', _) => Some((Tok::Amp, 1)),
            (b'|', _) => Some((Tok::Bar, 1)),
            (b'~', _) => Some((Tok::Tilde, 1)),
            (b'.', _) => Some((Tok::Dot, 1)),
            (b':', Some(b'-')) => Some((Tok::Neck, 2)),
            _ => None,
        };
        if let Some((tok, len)) = punct {
            self.i += len;
            return (tok, String::new());
        }
        let start = self.i;
        match (c, next) {
            (b'\'', _) => self.quoted(start, Tok::Name),
            (b'?', Some(b'\'')) => {
                self.i += 1;
                self.quoted(start, Tok::Var)
            }
            (b'?', _) => {
                self.i += 1;
                let name = self.run();
                if name.is_empty() {
                    return self.bad(start, "a variable needs a name after `?`".into());
                }
                (Tok::Var, name.to_string())
            }
            _ if c.is_ascii_uppercase() || c == b'_' => {
                let name = self.run();
                let mut text = name.to_string();
                text[..1].make_ascii_lowercase();
                (Tok::Var, text)
            }
            _ if c.is_ascii_lowercase() || c.is_ascii_digit() => (Tok::Name, self.run().into()),
            (b'-', Some(d)) if d.is_ascii_digit() => {
                self.i += 1;
                let name = self.run();
                (Tok::Name, format!("-{name}"))
            }
            _ => self.bad_run(start),
        }
    }

    /// Reads name characters from `self.i`.
    fn run(&mut self) -> &str {
        let start = self.i;
        let b = self.src.as_bytes();
        while self.i < b.len() && is_name_char(b[self.i]) {
            self.i += 1;
        }
        &self.src[start..self.i]
    }

    fn bad(&mut self, start: usize, message: String) -> (Tok, String) {
        self.diags.push(Diagnostic::error(
            codes::SYNTAX,
            Span::new(start, self.i),
            message,
        ));
        (Tok::Bad, String::new())
    }

    /// Reads a quoted name whose `'` is at `self.i`; `start` includes a leading `?`.
    fn quoted(&mut self, start: usize, tok: Tok) -> (Tok, String) {
        let mut text = String::new();
        let mut chars = self.src[self.i + 1..].char_indices();
        let base = self.i + 1;
        let mut bad_char = None;
        loop {
            match chars.next() {
                None | Some((_, '\n')) => {
                    let line_end = self.src[base..]
                        .find('\n')
                        .map_or(self.src.len(), |k| base + k);
                    self.i = line_end;
                    let end = self.src[..line_end]
                        .trim_end_matches('\r')
                        .len()
                        .max(start + 1);
                    self.diags.push(Diagnostic::error(
                        codes::SYNTAX,
                        Span::new(start, end),
                        "this quoted name is never closed",
                    ));
                    return (Tok::Bad, String::new());
                }
                Some((k, '\'')) => {
                    self.i = base + k + 1;
                    break;
                }
                Some((_, c)) => {
                    let c = match c {
                        '\\' => match chars.clone().next() {
                            Some((_, e)) if e != '\n' => {
                                chars.next();
                                e
                            }
                            _ => c,
                        },
                        c => c,
                    };
                    if c.is_ascii_whitespace() || matches!(c, '(' | ')' | ';') {
                        bad_char.get_or_insert(c);
                    }
                    text.push(c);
                }
            }
        }
        if let Some(c) = bad_char {
            let message = format!("a name cannot contain {:?}: KIF could not write it", c);
            return self.bad(start, message);
        }
        if text.is_empty() {
            return self.bad(start, "a name cannot be empty".into());
        }
        if tok == Tok::Name && text.starts_with('?') {
            let message = "a constant cannot start with `?`: in KIF it would be a variable";
            return self.bad(start, message.into());
        }
        (tok, text)
    }

    /// Reads characters that start no token, up to white space or a character that does.
    fn bad_run(&mut self, start: usize) -> (Tok, String) {
        let rest = &self.src[start..];
        let bytes = rest.as_bytes();
        let mut end = rest.len();
        for (k, c) in rest.char_indices().skip(1) {
            let next = bytes.get(k + 1).copied();
            let starts_token = c.is_ascii_whitespace()
                || c.is_ascii_alphanumeric()
                || "_'?(),&|~.%".contains(c)
                || (c == ':' && next == Some(b'-'))
                || (c == '/' && next == Some(b'/'))
                || (c == '-' && next.is_some_and(|d| d.is_ascii_digit()));
            if starts_token {
                end = k;
                break;
            }
        }
        self.i = start + end;
        let text = &rest[..end];
        let message = if text.starts_with(';') {
            "`;` does not start a comment in infix GDL: write `%` or `//`".to_string()
        } else if text.starts_with("<=") {
            "`<=` is prefix (KIF) syntax: infix rules are written `head :- body`".to_string()
        } else {
            format!(
                "unexpected `{text}`: names with characters other than letters, digits, `_` \
                 and `-` are written in single quotes, e.g. `'a+b'`"
            )
        };
        self.bad(start, message)
    }
}
