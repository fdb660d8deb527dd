use schema_fidelity::project::Project;
use schema_fidelity::dialect;
use schema_fidelity::session::{self, Selection};
use schema_fidelity::trials;
use schema_fidelity_translators::{builtin, Outcome};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let loaded = session::load(Project::at(trials::workspace_root()), &Selection::All);
    let t = builtin::by_name(&args[1]).unwrap();
    let case = loaded.cases.iter().find(|c| c.id == args[2]).unwrap();
    println!("source: {}", case.schema);
    match t.translate(&case.schema) {
        Outcome::Projected(p) => { println!("codec: {:?}", p.codec); println!("lifted: {}", dialect::lift(p.dialect, &p.schema).unwrap()); }
        other => println!("{other:?}"),
    }
}
