//! How well the witness generator aims, per corpus case: the share of valid draws the source
//! accepts and of near misses it rejects. A low valid yield means the generator misreads that
//! schema (never a false witness: the validator judges every draw, but fewer useful candidates).
//!
//! ```sh
//! cargo run -p schema-fidelity --example witness_yield [-- --all]
//! ```
//! Without `--all` only own-corpus cases are listed; with it, the JSON-Schema-Test-Suite too.

use schema_fidelity::project::Project;
use schema_fidelity::session::{self, Selection};
use schema_fidelity::trials;
use schema_fidelity::validation::{self, Env};
use schema_fidelity::witness::{self, Plan, Pool};

fn main() {
    let all = std::env::args().any(|a| a == "--all");
    let loaded = session::load(Project::at(trials::workspace_root()), &Selection::All);
    let env = Env { remotes: loaded.env.remotes.clone(), ..Env::default() };
    let draws = 200;
    let (mut valid_total, mut miss_total, mut cases) = (0.0, 0.0, 0);
    let mut rows = Vec::new();
    for case in &loaded.cases {
        if !all && !case.id.starts_with("corpus/") {
            continue;
        }
        let Ok(validator) = validation::compile(&case.schema, &env, case.assert_formats) else { continue };
        let plan = Plan::new(&case.schema);
        let mut rng = witness::rng(witness::case_seed(&case.id), "yield");
        let valid = (0..draws).filter(|_| validator.is_valid(&witness::draw(&plan, &mut rng, Pool::Valid))).count();
        let missed = (0..draws).filter(|_| !validator.is_valid(&witness::draw(&plan, &mut rng, Pool::NearMiss))).count();
        let (v, m) = (valid as f64 / f64::from(draws), missed as f64 / f64::from(draws));
        valid_total += v;
        miss_total += m;
        cases += 1;
        rows.push((v, m, case.id.clone()));
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (v, m, id) in &rows {
        println!("{:5.1}% valid  {:5.1}% missed  {id}", v * 100.0, m * 100.0);
    }
    let n = f64::from(cases.max(1));
    println!("{cases} cases: mean valid yield {:.1}%, mean near-miss yield {:.1}%", valid_total / n * 100.0, miss_total / n * 100.0);
    let zero = rows.iter().filter(|(v, ..)| *v == 0.0).count();
    println!("{zero} cases with no valid draw");
}
