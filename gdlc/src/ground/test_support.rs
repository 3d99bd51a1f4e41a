//! What the grounding tests share.

/// The normalised program of a description that checks (`t.kif`).
pub(super) fn normalised(text: &str) -> crate::normalize::NProgram {
    let checked = crate::frontend::load(
        crate::frontend::Source::new("t.kif", text),
        &Default::default(),
    )
    .expect("checks");
    crate::normalize::normalize(&checked.program, Default::default()).expect("normalises")
}
