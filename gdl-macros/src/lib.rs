//! The `gdl!` procedural macro: a thin layer over the `gdlc` compiler library.
//!
//! The macro arrives together with the code generator (see `ARCHITECTURE.md`); until then this
//! crate exports nothing.
