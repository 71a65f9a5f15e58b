//! Folded stacks as a tree of frames, for folding without a text key per slice.
//!
//! A node is a frame under its parent node: the pair (parent, name), where the name is a number
//! given to each distinct cleaned frame name. A hash map finds a node by that pair, so opening a
//! frame costs one lookup of two integers, and each node keeps the self time added to its stack.
//! The `;`-joined stacks are built once, by [`StackTree::into_folded`]. The tree holds a node per
//! distinct stack that was ever opened, whatever the number of slices.

use std::collections::{BTreeMap, HashMap};

use foldhash::fast::RandomState;

use super::{clean_name, Folded};

/// A node of a [`StackTree`]: a frame, or the root (the empty stack).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct NodeId(u32);

/// A frame under its parent.
#[derive(Debug)]
struct Node {
    parent: NodeId,
    name: u32,
    /// The self time added to the stack ending with this frame, in nanoseconds (saturating).
    weight: u64,
}

/// A number given to each distinct cleaned name.
#[derive(Debug, Default)]
pub(crate) struct Names {
    /// The cleaned names, by number.
    names: Vec<String>,
    /// Each cleaned name's number.
    numbers: HashMap<String, u32, RandomState>,
    /// The number of the cleaned form of each raw name seen.
    raw: HashMap<String, u32, RandomState>,
}

impl Names {
    /// The number of the cleaned form of the raw name `raw`.
    pub(crate) fn number(&mut self, raw: &str) -> u32 {
        if let Some(&number) = self.raw.get(raw) {
            return number;
        }
        let number = self.number_of_clean(&clean_name(Some(raw)));
        self.raw.insert(raw.to_owned(), number);
        number
    }

    /// The number of `name`, which is already clean.
    pub(crate) fn number_of_clean(&mut self, name: &str) -> u32 {
        if let Some(&number) = self.numbers.get(name) {
            return number;
        }
        let number = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        self.names.push(name.to_owned());
        self.numbers.insert(name.to_owned(), number);
        number
    }

    fn get(&self, number: u32) -> &str {
        usize::try_from(number)
            .ok()
            .and_then(|i| self.names.get(i))
            .map_or("", String::as_str)
    }
}

/// Folded stacks as a tree of frames (see the [module documentation](self)).
#[derive(Debug)]
pub(crate) struct StackTree {
    /// The nodes; node 0 is the root, and a node's parent comes before it.
    nodes: Vec<Node>,
    /// Each frame's node, by (parent, name).
    children: HashMap<(NodeId, u32), NodeId, RandomState>,
    /// The frame names.
    pub(crate) names: Names,
}

impl Default for StackTree {
    fn default() -> Self {
        StackTree {
            nodes: vec![Node {
                parent: Self::ROOT,
                name: 0,
                weight: 0,
            }],
            children: HashMap::default(),
            names: Names::default(),
        }
    }
}

impl StackTree {
    /// The root: the empty stack, parent of the first frames.
    pub(crate) const ROOT: NodeId = NodeId(0);

    /// The node of the frame named `name` (a number of [`StackTree::names`]) under `parent`.
    pub(crate) fn child(&mut self, parent: NodeId, name: u32) -> NodeId {
        if let Some(&node) = self.children.get(&(parent, name)) {
            return node;
        }
        let node = NodeId(u32::try_from(self.nodes.len()).unwrap_or(u32::MAX));
        self.nodes.push(Node {
            parent,
            name,
            weight: 0,
        });
        self.children.insert((parent, name), node);
        node
    }

    /// Adds `weight` nanoseconds of self time to the stack ending with `node`.
    pub(crate) fn add(&mut self, node: NodeId, weight: u64) {
        if let Some(node) = self.nodes.get_mut(node.0 as usize) {
            node.weight = node.weight.saturating_add(weight);
        }
    }

    /// The number of nodes, the root included: one per distinct stack opened.
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The stacks with a weight, as `;`-joined names, and their weights.
    pub(crate) fn into_folded(self, skipped_open: u64) -> Folded {
        let mut stacks = BTreeMap::new();
        let mut frames = Vec::new();
        for (index, node) in self.nodes.iter().enumerate() {
            if index == 0 || node.weight == 0 {
                continue;
            }
            frames.clear();
            let mut at = node;
            loop {
                frames.push(self.names.get(at.name));
                match self.nodes.get(at.parent.0 as usize) {
                    Some(parent) if at.parent != Self::ROOT => at = parent,
                    _ => break,
                }
            }
            frames.reverse();
            stacks.insert(frames.join(";"), node.weight);
        }
        Folded::from_parts(stacks, skipped_open)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stack_is_one_node_however_often_it_is_opened() {
        let mut tree = StackTree::default();
        for _ in 0..1000 {
            let main = tree.names.number("main");
            let main = tree.child(StackTree::ROOT, main);
            let draw = tree.names.number("draw;it");
            let draw = tree.child(main, draw);
            tree.add(draw, 2);
            tree.add(main, 1);
        }
        assert_eq!(tree.len(), 3);
        let folded = tree.into_folded(4);
        assert_eq!(
            folded.lines().collect::<Vec<_>>(),
            ["main 1000", "main;draw:it 2000"]
        );
        assert_eq!(folded.skipped_open(), 4);
    }

    #[test]
    fn raw_names_that_clean_alike_share_a_number() {
        let mut names = Names::default();
        assert_eq!(names.number(" a "), names.number("a"));
        assert_ne!(names.number("a"), names.number("b"));
        assert_eq!(names.number(""), names.number_of_clean("(unnamed)"));
    }
}
