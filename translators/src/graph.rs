//! Strongly connected components of a reference graph, shared by the translators (which
//! definitions are recursive) and the harness (how long a `$ref` chain runs).
//!
//! Tarjan's algorithm with an explicit stack, so a chain of thousands of references can neither
//! overflow the stack nor take quadratic time.

/// The strongly connected components of the graph whose node `v` has edges `edges[v]`, in
/// reverse topological order: every component comes after the components it reaches.
#[must_use]
pub fn strongly_connected_components(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = edges.len();
    let (mut order, mut low, mut on_stack) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut counter, mut components) = (Vec::new(), 0, Vec::new());
    for start in 0..n {
        if order[start] != usize::MAX {
            continue;
        }
        // The call stack: (node, next edge to look at).
        let mut calls: Vec<(usize, usize)> = vec![(start, 0)];
        (order[start], low[start], on_stack[start]) = (counter, counter, true);
        counter += 1;
        stack.push(start);
        while let Some(&mut (v, ref mut next)) = calls.last_mut() {
            if let Some(&w) = edges[v].get(*next) {
                *next += 1;
                if order[w] == usize::MAX {
                    (order[w], low[w], on_stack[w]) = (counter, counter, true);
                    counter += 1;
                    stack.push(w);
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == order[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                components.push(component);
            }
        }
    }
    components
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_are_components_and_successors_come_first() {
        // 0 -> 1 -> 2 -> 1, 3 alone with a self loop.
        let edges = vec![vec![1], vec![2], vec![1], vec![3]];
        let mut components = strongly_connected_components(&edges);
        for c in &mut components {
            c.sort_unstable();
        }
        let position = |v: usize| components.iter().position(|c| c.contains(&v)).unwrap();
        assert_eq!(components[position(1)], [1, 2]);
        assert!(position(1) < position(0), "{components:?}");
        assert_eq!(components[position(3)], [3]);
    }

    #[test]
    fn a_long_chain_is_walked_without_recursion() {
        let n = 100_000;
        let edges: Vec<Vec<usize>> = (0..n).map(|i| if i + 1 < n { vec![i + 1] } else { Vec::new() }).collect();
        assert_eq!(strongly_connected_components(&edges).len(), n);
    }
}
