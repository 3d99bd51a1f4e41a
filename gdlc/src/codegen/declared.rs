//! What a generated game says of its `base` and `input` declarations
//! ([`crate::interp::declared`]): the `Game::declarations`, `Game::undeclared_facts` and
//! `Game::is_declared_move` methods, over a mask of the state bits and a table of the moves
//! that nothing declares. Nothing is generated for a description without `base` and `input`
//! (the trait's defaults say so).

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use rustc_hash::FxHashSet as HashSet;

use super::state_words;
use crate::interp::declared::Declaration;
use crate::ir::Ir;

/// The constants (`UNDECLARED_BITS`, `UNDECLARED_CONSTANT_FACTS`, `UNDECLARED_MOVES`) and the
/// methods of the `impl Game`.
pub(crate) fn items(ir: &Ir) -> (TokenStream, TokenStream) {
    let d = &ir.declarations;
    if d.kinds() == gdl_runtime::Declarations::default() {
        return (TokenStream::new(), TokenStream::new());
    }
    let name = |k: gdl_runtime::Declared| match k {
        gdl_runtime::Declared::Absent => quote! { Absent },
        gdl_runtime::Declared::Given => quote! { Given },
        gdl_runtime::Declared::Unevaluated => quote! { Unevaluated },
    };
    let (base_kind, input_kind) = (name(d.base.kind()), name(d.input.kind()));
    let mut consts = TokenStream::new();
    let mut methods = quote! {
        fn declarations(&self) -> gdl_runtime::Declarations {
            gdl_runtime::Declarations {
                base: gdl_runtime::Declared::#base_kind,
                input: gdl_runtime::Declared::#input_kind,
            }
        }
    };
    if let Declaration::Given(base) = &d.base {
        let base: HashSet<&str> = base.iter().map(String::as_str).collect();
        let mut mask = vec![0u64; state_words(ir)];
        for (i, fact) in ir.bits.iter().enumerate() {
            if !base.contains(fact.as_str()) {
                mask[i / 64] |= 1 << (i % 64);
            }
        }
        let constants = ir
            .constant_facts
            .iter()
            .filter(|f| !base.contains(f.as_str()));
        let words = Literal::usize_unsuffixed(mask.len());
        let mask = mask.iter().map(|&w| Literal::u64_suffixed(w));
        consts.extend(quote! {
            /// The state bits whose facts no `base` fact declares.
            pub const UNDECLARED_BITS: [u64; #words] = [#(#mask),*];
            /// The facts of `CONSTANT_FACTS` that no `base` fact declares.
            pub const UNDECLARED_CONSTANT_FACTS: &[&str] = &[#(#constants),*];
        });
        methods.extend(quote! {
            fn undeclared_facts(&self, state: &State, out: &mut Vec<String>) {
                out.clear();
                let none = state.0.iter().zip(&UNDECLARED_BITS).all(|(w, m)| w & m == 0);
                if none && UNDECLARED_CONSTANT_FACTS.is_empty() {
                    return;
                }
                out.extend(UNDECLARED_CONSTANT_FACTS.iter().map(|f| f.to_string()));
                for (i, fact) in BITS.iter().enumerate() {
                    if (state.0[i / 64] & UNDECLARED_BITS[i / 64]) >> (i % 64) & 1 != 0 {
                        out.push(fact.to_string());
                    }
                }
                out.sort_unstable();
            }
        });
    }
    if let Declaration::Given(input) = &d.input {
        let rows = ir.moves.iter().enumerate().map(|(r, moves)| {
            let declared: HashSet<&str> = input
                .get(r)
                .map(|m| m.iter().map(String::as_str).collect())
                .unwrap_or_default();
            let undeclared = (0..moves.len() as u32)
                .filter(|&m| !declared.contains(moves[m as usize].as_str()))
                .map(Literal::u32_unsuffixed);
            quote! { &[#(#undeclared),*] }
        });
        consts.extend(quote! {
            /// Per role, the moves (ascending) that no `input` fact declares.
            pub const UNDECLARED_MOVES: &[&[u32]] = &[#(#rows),*];
        });
        methods.extend(quote! {
            fn is_declared_move(&self, role: RoleIndex, mv: u32) -> bool {
                UNDECLARED_MOVES
                    .get(role)
                    .is_none_or(|m| m.binary_search(&mv).is_err())
            }
        });
    }
    (consts, methods)
}
