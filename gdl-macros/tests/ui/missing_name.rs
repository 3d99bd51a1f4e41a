gdl_macros::gdl!(file = "game.kif");

fn main() {}
