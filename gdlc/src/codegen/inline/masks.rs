//! Named state masks: every mask of state bits that the inline backend tests is a constant
//! that says what it stands for. A single bit is named after its state fact
//! (`BIT_CELL_1_1_X` for `(cell 1 1 x)`); a mask of several bits is `MASK_<k>`, with a doc
//! comment listing its facts. Constants are numbered and named in order of first use, so the
//! same description gives the same code.
//!
//! The registry lives for one [`super::items`] call, on its thread ([`begin`], then
//! [`items`]), so that the expression builders need not carry it.

use std::cell::RefCell;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::ir::Ir;

#[derive(Default)]
struct Masks {
    /// (word, mask) -> its name.
    names: FxHashMap<(usize, u64), Ident>,
    /// In order of first use.
    order: Vec<(usize, u64)>,
    taken: FxHashSet<String>,
    /// How many masks of several bits are named.
    multi: usize,
    /// The text of each state bit.
    bits: Vec<String>,
    /// The roles whose `MOVE_SETS_<r>` table some expression reads.
    move_set_tables: FxHashSet<u32>,
}

thread_local! {
    static MASKS: RefCell<Masks> = RefCell::default();
}

/// Starts naming the masks of `ir`'s code (forgetting any earlier names).
pub(super) fn begin(ir: &Ir) {
    MASKS.with_borrow_mut(|m| {
        *m = Masks {
            bits: ir.bits.clone(),
            ..Masks::default()
        }
    });
}

/// The name of the mask `mask` of word `word` of the state.
pub(super) fn name(word: usize, mask: u64) -> Ident {
    MASKS.with_borrow_mut(|m| {
        if let Some(id) = m.names.get(&(word, mask)) {
            return id.clone();
        }
        let base = if mask.count_ones() == 1 {
            let bit = word * 64 + mask.trailing_zeros() as usize;
            format!(
                "BIT_{}",
                screaming(m.bits.get(bit).map_or("", String::as_str))
            )
        } else {
            m.multi += 1;
            format!("MASK_{}", m.multi)
        };
        let mut text = base.clone();
        let mut k = 2;
        while !m.taken.insert(text.clone()) {
            text = format!("{base}_{k}");
            k += 1;
        }
        let id = format_ident!("{}", text);
        m.names.insert((word, mask), id.clone());
        m.order.push((word, mask));
        id
    })
}

/// The name of role `role`'s table of move sets (`MOVE_SETS_<r>`), noted as read so that
/// only tables some code reads are emitted.
pub(super) fn move_set_table(role: u32) -> Ident {
    MASKS.with_borrow_mut(|m| m.move_set_tables.insert(role));
    format_ident!("MOVE_SETS_{}", role)
}

/// Whether role `role`'s table of move sets was named since [`begin`].
pub(super) fn move_set_table_read(role: u32) -> bool {
    MASKS.with_borrow(|m| m.move_set_tables.contains(&role))
}

/// The constants of the masks named since [`begin`], each with the facts it stands for.
pub(super) fn items() -> TokenStream {
    MASKS.with_borrow_mut(|m| {
        let consts = m.order.iter().map(|&(word, mask)| {
            let id = &m.names[&(word, mask)];
            let facts: Vec<&str> = (0..64)
                .filter(|k| mask & (1u64 << k) != 0)
                .filter_map(|k| m.bits.get(word * 64 + k).map(String::as_str))
                .collect();
            let shown = facts.len().min(12);
            let mut doc = format!(" {}", facts[..shown].join(" "));
            if facts.len() > shown {
                doc.push_str(&format!(" and {} more", facts.len() - shown));
            }
            doc.push_str(&format!(" (state word {word})"));
            let value = Literal::u64_suffixed(mask);
            quote! {
                #[doc = #doc]
                #[allow(dead_code)]
                const #id: u64 = #value;
            }
        });
        let out = quote! { #(#consts)* };
        *m = Masks::default();
        out
    })
}

/// `(cell 1 1 x)` -> `CELL_1_1_X`: ASCII letters and digits, upper case, the rest `_`.
fn screaming(text: &str) -> String {
    let mut s = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_uppercase());
        } else if !s.ends_with('_') && !s.is_empty() {
            s.push('_');
        }
    }
    while s.ends_with('_') {
        s.pop();
    }
    if s.is_empty() {
        s.push_str("FACT");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fact_names_are_identifiers() {
        assert_eq!(screaming("(cell 1 1 x)"), "CELL_1_1_X");
        assert_eq!(
            screaming("(control \"white player\")"),
            "CONTROL_WHITE_PLAYER"
        );
        assert_eq!(screaming("(é)"), "FACT");
    }
}
