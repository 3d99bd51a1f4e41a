//! Small token helpers of the inline backend: parentheses where needed and balanced `|`/`&`
//! chains. A leaf module: `expr`, `shifts` and `next` build on it.

use proc_macro2::TokenStream;
use quote::quote;

/// `e` in parentheses, unless it is one parenthesised group, a name or a number already
/// (`((x))` is noise, and clippy says so).
pub(super) fn paren(e: TokenStream) -> TokenStream {
    let mut trees = e.clone().into_iter();
    match (trees.next(), trees.next()) {
        (Some(proc_macro2::TokenTree::Group(g)), None)
            if g.delimiter() == proc_macro2::Delimiter::Parenthesis =>
        {
            return e;
        }
        // A name or a number needs none.
        (Some(proc_macro2::TokenTree::Ident(_) | proc_macro2::TokenTree::Literal(_)), None) => {
            return e;
        }
        _ => {}
    }
    quote! { (#e) }
}

/// A binary operator of generated expressions (`|` and `&` on `bool` or `u64`).
#[derive(Clone, Copy)]
pub(super) enum Op {
    Or,
    And,
}

/// How many operands one parenthesised group of [`join_balanced`] holds.
const FAN_IN: usize = 4;

/// `parts` joined by `op` as a balanced tree of parenthesised groups of at most [`FAN_IN`]
/// operands, so the nesting depth of the expression grows with the logarithm of the number of
/// operands: a chain `a | b | ..` is a left-deep tree for rustc's parser, and one of 10,000
/// operands overflows its stack. One operand is returned as it is; none gives an empty stream.
pub(super) fn join_balanced(mut parts: Vec<TokenStream>, op: Op) -> TokenStream {
    let join = |c: &[TokenStream]| match op {
        Op::Or => quote! { #(#c)|* },
        Op::And => quote! { #(#c)&* },
    };
    while parts.len() > FAN_IN {
        parts = parts
            .chunks(FAN_IN)
            .map(|c| match c {
                [one] => one.clone(),
                _ => {
                    let e = join(c);
                    quote! { (#e) }
                }
            })
            .collect();
    }
    join(&parts)
}

/// The size of generated code: its tokens, those inside groups included (doc comments are
/// one token each).
pub(super) fn size(e: &TokenStream) -> usize {
    e.clone()
        .into_iter()
        .map(|t| match t {
            proc_macro2::TokenTree::Group(g) => 1 + size(&g.stream()),
            _ => 1,
        })
        .sum()
}
