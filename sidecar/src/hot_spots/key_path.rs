//! A path of keys, as `top --path` and `leanscope/hotSpots`'s `path` take it: key labels
//! (`class` or `class name`, as the table prints them) joined by `>`, from a root down
//! (`Elab.command theorem>Elab.step simp`); with `--inverted`, from a key up through its
//! callers. Spaces around `>` are allowed. A label may itself hold `>` (`x > 0`): at each
//! level the longest label of a node there that the rest of the text starts with wins.

use recording::hotspots::{KeyTable, Tree, ROOT};

/// The node of `tree` reached from `from` by the labels of `text`.
pub fn find(tree: &Tree, keys: &KeyTable, from: u32, text: &str) -> Result<u32, String> {
    let mut at = from;
    let mut rest = text.trim_start();
    let mut walked: Vec<String> = Vec::new();
    while !rest.is_empty() {
        let candidates = tree
            .children(at)
            .iter()
            .map(|&c| (c, keys.get(tree.node(c).key).label()));
        match take(rest, candidates) {
            Some((n, label, after)) => {
                at = n;
                walked.push(label);
                rest = after;
            }
            None => {
                let under = if walked.is_empty() {
                    "at the top of the tree".to_owned()
                } else {
                    format!("under {}", walked.join(" > "))
                };
                return Err(format!(
                    "no key {under} starts the rest of the path {rest:?} (keys are written as the table writes them, joined by `>`)"
                ));
            }
        }
    }
    if at == ROOT && from == ROOT {
        return Err("the key path is empty".into());
    }
    Ok(at)
}

/// The key whose label starts `text`, and the rest of the path after it.
pub fn first_key<'t>(keys: &KeyTable, text: &'t str) -> Result<(u32, &'t str), String> {
    let text = text.trim_start();
    let candidates = (0..keys.len() as u32).map(|k| (k, keys.get(k).label()));
    match take(text, candidates) {
        Some((k, _, rest)) => Ok((k, rest)),
        None if text.is_empty() => Err("the key path is empty".into()),
        None => Err(format!(
            "no key starts the path {text:?} (keys are written as the table writes them, joined by `>`)"
        )),
    }
}

/// Of `candidates` (id, label), the one with the longest label that `text` starts with,
/// followed by the end or a `>`; with the text after that `>`.
fn take<'t>(
    text: &'t str,
    candidates: impl Iterator<Item = (u32, String)>,
) -> Option<(u32, String, &'t str)> {
    let mut best: Option<(u32, String, &'t str)> = None;
    for (id, label) in candidates {
        let Some(after) = text.strip_prefix(label.as_str()) else {
            continue;
        };
        let after = after.trim_start();
        let rest = if after.is_empty() {
            after
        } else if let Some(r) = after.strip_prefix('>') {
            r.trim_start()
        } else {
            continue;
        };
        if best.as_ref().is_none_or(|b| label.len() > b.1.len()) {
            best = Some((id, label, rest));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use recording::hotspots::{Key, TreeBuilder, OTHER};

    #[test]
    fn labels_joined_by_arrows_walk_the_tree_and_labels_may_hold_arrows() {
        let mut keys = KeyTable::new();
        let cmd = keys.id(Key::new("Elab.command", "theorem"));
        let gt = keys.id(Key::new("Meta.isDefEq", "x > 0"));
        let short = keys.id(Key::new("Meta.isDefEq", "x"));
        let k = keys.id(Key::new("Kernel", ""));
        let mut b = TreeBuilder::new(OTHER);
        let a = b.child(ROOT, cmd);
        let g = b.child(a, gt);
        let s = b.child(a, short);
        let kk = b.child(g, k);
        for n in [a, g, s, kk] {
            b.add(n, 1, 1);
        }
        let t = b.finish();
        assert_eq!(find(&t, &keys, ROOT, "Elab.command theorem"), Ok(a));
        assert_eq!(
            find(
                &t,
                &keys,
                ROOT,
                "Elab.command theorem > Meta.isDefEq x > 0>Kernel"
            ),
            Ok(kk)
        );
        assert_eq!(
            find(&t, &keys, ROOT, "Elab.command theorem>Meta.isDefEq x"),
            Ok(s)
        );
        let e = find(&t, &keys, ROOT, "Elab.command theorem>Kernel").unwrap_err();
        assert!(e.contains("under Elab.command theorem"), "{e}");
        assert!(find(&t, &keys, ROOT, "").is_err());
        assert_eq!(first_key(&keys, "Kernel > x"), Ok((k, "x")));
        assert!(first_key(&keys, "Nope").is_err());
    }
}
