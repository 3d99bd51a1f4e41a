//! The `MOVES` table of a module. Up to [`CodegenOptions::moves_text_min`] moves, one string
//! literal per move (`pub const MOVES: &[&[&str]]`); past it, one literal per role holding its
//! moves one a line (`MOVES_TEXT`), split once on first use by the module's `moves(role)`:
//! rustc reads one long literal in no time, while 259,202 literals (amazonsTorus) cost it
//! seconds, and formatting them costs gdlc as much.

use proc_macro2::TokenStream;
use quote::quote;

use super::CodegenOptions;
use crate::ir::Ir;

/// Whether the moves of `ir` are written as text, one literal per role.
pub(super) fn as_text(ir: &Ir, options: &CodegenOptions) -> bool {
    ir.moves.iter().map(Vec::len).sum::<usize>() > options.moves_text_min
}

/// The items of the header that name the moves.
pub(super) fn table(ir: &Ir, options: &CodegenOptions) -> TokenStream {
    if !as_text(ir, options) {
        let moves = ir.moves.iter().map(|ms| quote! { &[#(#ms),*] });
        return quote! {
            /// The moves of each role, in byte order of the text; a move is its index here.
            pub const MOVES: &[&[&str]] = &[#(#moves),*];
        };
    }
    quote! {
        /// The moves of `role`, in byte order of the text; a move is its index here (split
        /// from `MOVES_TEXT` on first use).
        pub fn moves(role: RoleIndex) -> &'static [&'static str] {
            static MOVES: std::sync::OnceLock<Vec<Vec<&'static str>>> = std::sync::OnceLock::new();
            MOVES
                .get_or_init(|| {
                    MOVES_TEXT
                        .iter()
                        .map(|text| text.split_terminator('\n').collect())
                        .collect()
                })
                .get(role)
                .map_or(&[], Vec::as_slice)
        }
    }
}

/// The bodies of `write_move`, `parse_move` and `move_count` (from `role`, `mv`, `out`;
/// `role`, `text`; `role`).
pub(super) fn methods(
    ir: &Ir,
    options: &CodegenOptions,
) -> (TokenStream, TokenStream, TokenStream) {
    if !as_text(ir, options) {
        return (
            quote! {
                if let Some(text) = MOVES.get(role).and_then(|m| m.get(mv as usize)) {
                    out.push_str(text);
                }
            },
            quote! {
                let text = gdl_runtime::text::normalize(text)?;
                let index = MOVES.get(role)?.binary_search(&text.as_str()).ok()?;
                u32::try_from(index).ok()
            },
            quote! { MOVES.get(role).map(|m| m.len()) },
        );
    }
    (
        quote! {
            if let Some(text) = moves(role).get(mv as usize) {
                out.push_str(text);
            }
        },
        quote! {
            let text = gdl_runtime::text::normalize(text)?;
            let index = moves(role).binary_search(&text.as_str()).ok()?;
            u32::try_from(index).ok()
        },
        quote! { MOVES_TEXT.get(role).map(|_| moves(role).len()) },
    )
}

/// The text appended to the formatted module: `MOVES_TEXT` when the moves are text, else
/// nothing.
pub(super) fn data(ir: &Ir, options: &CodegenOptions) -> String {
    if !as_text(ir, options) {
        return String::new();
    }
    let mut out = String::from(
        "\n/// The moves of each role, one a line (see `moves`).\n#[rustfmt::skip]\nstatic MOVES_TEXT: &[&str] = &[\n",
    );
    for ms in &ir.moves {
        out.push_str("\"\\\n");
        for m in ms {
            // A line per move: `\n`, then a continuation that skips the line break.
            out.extend(m.chars().flat_map(char::escape_default));
            out.push_str("\\n\\\n");
        }
        out.push_str("\",\n");
    }
    out.push_str("];\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_as_text_are_one_literal_per_role_a_move_a_line() {
        let ir = Ir {
            moves: vec![
                vec!["(mark 1 1)".to_string(), "(say \"hi\")".to_string()],
                Vec::new(),
            ],
            ..Ir::default()
        };
        let options = CodegenOptions {
            moves_text_min: 1,
            ..CodegenOptions::default()
        };
        assert!(as_text(&ir, &options));
        let text = data(&ir, &options);
        assert_eq!(
            text,
            "\n/// The moves of each role, one a line (see `moves`).\n#[rustfmt::skip]\nstatic \
             MOVES_TEXT: &[&str] = &[\n\"\\\n(mark 1 1)\\n\\\n(say \\\"hi\\\")\\n\\\n\",\n\"\\\n\",\n];\n"
        );
        assert!(!as_text(&ir, &CodegenOptions::default()));
        assert!(data(&ir, &CodegenOptions::default()).is_empty());
    }

    #[test]
    fn the_move_count_is_the_table_length() {
        let ir = Ir {
            moves: vec![vec!["a".to_string(), "b".to_string()], Vec::new()],
            ..Ir::default()
        };
        let text = CodegenOptions {
            moves_text_min: 1,
            ..CodegenOptions::default()
        };
        let (_, _, count) = methods(&ir, &text);
        let count = count.to_string().replace(' ', "");
        assert_eq!(count, "MOVES_TEXT.get(role).map(|_|moves(role).len())");
        let (_, _, count) = methods(&ir, &CodegenOptions::default());
        assert_eq!(
            count.to_string().replace(' ', ""),
            "MOVES.get(role).map(|m|m.len())"
        );
    }
}
