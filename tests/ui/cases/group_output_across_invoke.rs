// Two models sharing one arena (`Config::compile_group`, build.rs): a reference into one
// model's output may not live across the other model's invoke, which overwrites the shared arena.
use tinyaot_ui_tests::groups::pair::Pair;

fn main() {
    let mut models = Pair::new();
    let mut kws = models.kws();
    kws.invoke();
    let score = kws.output0();
    models.cmd().invoke();
    println!("{}", score[0]);
}
