//! The layout: no cycle between the top-level modules of either crate.
//!
//! A cycle means neither module can be read, tested or moved without the other; the ones this
//! project had (oracle, attribution, witness and corpus; trials and report; table and target; the
//! CLI and its commands; the corpus and the MCP harvest) each hid a type or a constant in the wrong
//! place. The graph is read from the code as text: an edge `a -> b` is a `crate::b` path in a file
//! of module `a`, outside comments and outside its `#[cfg(test)] mod tests`. Text, not the
//! compiler's view, so a path in a string counts too; what it cannot miss is a `use crate::...`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Where an edge comes from: the file and line of its first `crate::` path.
type Graph = BTreeMap<String, BTreeMap<String, (PathBuf, usize)>>;

/// The `.rs` files under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("a source folder").map(|e| e.expect("an entry").path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its comments and its test module.
fn code_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut previous_cfg_test = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if previous_cfg_test && trimmed.starts_with("mod tests") {
            break;
        }
        previous_cfg_test = trimmed == "#[cfg(test)]";
        lines.push(line.split("//").next().unwrap_or_default().to_owned());
    }
    lines
}

/// The module graph of a crate's `src` folder: its top-level modules and the `crate::` paths
/// between them.
fn module_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let module_of = |path: &Path| -> Option<String> {
        let first = path.strip_prefix(src).ok()?.components().next()?.as_os_str().to_str()?.to_owned();
        let name = first.strip_suffix(".rs").unwrap_or(&first).to_owned();
        (!["lib", "main"].contains(&name.as_str())).then_some(name)
    };
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(f)).collect();
    let mut graph: Graph = modules.iter().map(|m| (m.clone(), BTreeMap::new())).collect();
    for file in &files {
        let Some(from) = module_of(file) else { continue };
        let text = std::fs::read_to_string(file).expect("a source file");
        let lines = code_lines(&text);
        // `use crate::{a, b::c}` spans lines: read the code as one text, counting lines.
        let code = lines.join("\n");
        let mut targets: Vec<(usize, String)> = Vec::new();
        for (offset, _) in code.match_indices("crate::") {
            let line = code[..offset].matches('\n').count() + 1;
            let rest = &code[offset + "crate::".len()..];
            let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                group.split(',').filter_map(|item| item.trim().split("::").next()).collect()
            } else {
                rest.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().into_iter().collect()
            };
            targets.extend(names.into_iter().map(|n| (line, n.trim().to_owned())));
        }
        for (line, to) in targets {
            if to != from && modules.contains(&to) {
                graph.get_mut(&from).expect("a module").entry(to).or_insert_with(|| (file.clone(), line));
            }
        }
    }
    graph
}

/// The strongly connected components with more than one module (Tarjan's algorithm).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(v: &'g str, s: &mut State<'g>) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        for w in s.graph[v].keys() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(w, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.stack.contains(&w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let at = s.stack.iter().rposition(|&x| x == v).expect("on the stack");
            let component: Vec<String> = s.stack.split_off(at).into_iter().map(str::to_owned).collect();
            if component.len() > 1 {
                s.found.push(component);
            }
        }
    }
    let mut state = State { graph, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), found: Vec::new() };
    for v in graph.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(v, &mut state);
        }
    }
    state.found
}

/// Every cycle, each with the edges inside it and where they are written.
fn describe(graph: &Graph, root: &Path) -> String {
    let mut out = String::new();
    for component in cycles(graph) {
        out.push_str(&format!("cycle: {}\n", component.join(", ")));
        for from in &component {
            for (to, (file, line)) in &graph[from] {
                if component.contains(to) {
                    out.push_str(&format!("  {from} -> {to}  ({}:{line})\n", file.strip_prefix(root).unwrap_or(file).display()));
                }
            }
        }
    }
    out
}

#[test]
fn no_module_of_either_crate_is_in_a_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace");
    for src in ["harness/src", "translators/src"] {
        let graph = module_graph(&root.join(src));
        assert!(graph.len() > 10, "{src}: the graph names {} modules; the reader is broken", graph.len());
        assert!(graph.values().map(BTreeMap::len).sum::<usize>() > 20, "{src}: almost no edges found; the reader is broken");
        let found = describe(&graph, root);
        assert!(found.is_empty(), "{src} has module cycles (move the shared item to the module both need):\n{found}");
    }
}

#[test]
fn a_cycle_is_found_and_named_with_its_lines() {
    let dir = std::env::temp_dir().join(format!("sf-layout-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("b")).expect("a scratch folder");
    std::fs::write(dir.join("lib.rs"), "pub mod a;\npub mod b;\npub mod c;\n").expect("write");
    std::fs::write(dir.join("a.rs"), "// crate::c is only a comment\nuse crate::{b::Thing, c};\n").expect("write");
    std::fs::write(dir.join("b/mod.rs"), "pub struct Thing;\nfn f() { crate::a::g() }\n#[cfg(test)]\nmod tests {\n    use crate::c;\n}\n").expect("write");
    std::fs::write(dir.join("c.rs"), "pub fn h() {}\n").expect("write");
    let graph = module_graph(&dir);
    let found = describe(&graph, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(cycles(&graph), [vec!["a".to_owned(), "b".to_owned()]], "{graph:?}");
    assert!(found.contains("a -> b  (a.rs:2)") && found.contains("b -> a  (b/mod.rs:2)"), "{found}");
    assert_eq!(graph["a"]["c"].1, 2, "the comment on line 1 is not an edge, the `use` on line 2 is");
    assert!(!graph["b"].contains_key("c"), "a test module's paths are not edges: {graph:?}");
    assert!(!found.contains("-> c"), "c is in no cycle: {found}");
}
