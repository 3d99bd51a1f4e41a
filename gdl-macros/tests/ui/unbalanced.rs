gdl_macros::gdl!(name = Broken, source = "(role x)\n(init (cell 1)\n(<= terminal (true (cell 1))))\n(goal x ?v)");

fn main() {}
