//! The limit rules on small sources: the `in` form, the file-level form, sections and
//! namespaces, 0 as no limit, attributes and doc comments, look-alikes in comments and strings.

use super::limits::Setting;
use super::options::{LimitOption, SourceOptions};

const MH: LimitOption = LimitOption::MaxHeartbeats;
const SI: LimitOption = LimitOption::SynthInstance;

fn set(value: u64, line: u32) -> Option<Setting> {
    Some(Setting { value, line })
}

/// The `in` setting attached to the declaration whose range is lines `from..=to` (0-based).
fn attached(src: &str, o: LimitOption, from: u32, to: u32) -> Option<Setting> {
    SourceOptions::scan(src).attached(o, ((from, 0), (to, 200)))
}

fn in_force(src: &str, o: LimitOption, line: u32) -> Option<Setting> {
    SourceOptions::scan(src).in_force(o, (line, 0))
}

#[test]
fn the_in_form_applies_to_the_declaration_after_it_only() {
    let src = "set_option maxHeartbeats 400000 in\ntheorem a : True := trivial\n\ntheorem b : True := trivial\n";
    assert_eq!(attached(src, MH, 1, 1), set(400_000, 1));
    assert_eq!(attached(src, MH, 3, 3), None);
    // Not a command-level setting: nothing in force after it.
    assert_eq!(in_force(src, MH, 3), None);
    // On the same line, and inside a range that starts at the set_option itself.
    let one = "set_option maxHeartbeats 1000 in theorem a : True := trivial\n";
    assert_eq!(attached(one, MH, 0, 0), set(1000, 1));
}

#[test]
fn the_in_form_through_doc_comments_attributes_and_modifiers() {
    let src = "set_option maxHeartbeats 800000 in\n/-- A doc comment\n  over lines. -/\n@[simp, grind]\nprivate theorem a : True := trivial\n";
    // The declaration's range starts at its doc comment (line 1).
    assert_eq!(attached(src, MH, 1, 4), set(800_000, 1));
    // Chained with other options, in any order; the innermost of one option wins.
    let chain = "set_option pp.all true in\nset_option synthInstance.maxHeartbeats 40000 in\nset_option maxHeartbeats 10 in\nset_option maxHeartbeats 300000 in\n@[simp] theorem a : True := trivial\n";
    assert_eq!(attached(chain, MH, 4, 4), set(300_000, 4));
    assert_eq!(attached(chain, SI, 4, 4), set(40_000, 2));
}

#[test]
fn the_file_level_form_lasts_until_its_section_or_namespace_ends() {
    let src = "\
set_option maxHeartbeats 100000
theorem a : True := trivial
namespace Foo.Bar
set_option maxHeartbeats 300000
theorem b : True := trivial
section
set_option maxHeartbeats 0
theorem c : True := trivial
end
theorem d : True := trivial
end Foo.Bar
theorem e : True := trivial
";
    assert_eq!(in_force(src, MH, 1), set(100_000, 1));
    assert_eq!(in_force(src, MH, 4), set(300_000, 4));
    // 0 is a setting too (no limit), not an absence.
    assert_eq!(in_force(src, MH, 7), set(0, 7));
    assert_eq!(in_force(src, MH, 9), set(300_000, 4));
    // `end Foo.Bar` closes both scopes `namespace Foo.Bar` opened.
    assert_eq!(in_force(src, MH, 11), set(100_000, 1));
    assert_eq!(in_force(src, MH, 0), None);
}

#[test]
fn nested_namespaces_and_noncomputable_sections() {
    let src = "\
namespace A
noncomputable section
set_option synthInstance.maxHeartbeats 50000
def x := 1
end
def y := 2
end A
";
    assert_eq!(in_force(src, SI, 3), set(50_000, 3));
    assert_eq!(in_force(src, SI, 5), None);
    // A stray `end` does not close the file's own scope.
    let stray = "set_option maxHeartbeats 7\nend\ndef z := 1\n";
    assert_eq!(in_force(stray, MH, 2), set(7, 1));
}

#[test]
fn comments_strings_and_proofs_that_only_look_like_set_option() {
    let src = "\
-- set_option maxHeartbeats 1
/- set_option maxHeartbeats 2
   /- nested -/ set_option maxHeartbeats 3 -/
/-- set_option maxHeartbeats 4 in -/
def s := \"
set_option maxHeartbeats 5\"
def c := 'x'
theorem t : True := by
  set_option maxHeartbeats 6 in trivial
def r := r#\"
set_option maxHeartbeats 8\"#
theorem u : True := trivial
";
    let o = SourceOptions::scan(src);
    assert_eq!(o.in_force(MH, (11, 0)), None);
    assert!(o.in_options.is_empty(), "{:?}", o.in_options);
}

#[test]
fn identifiers_with_primes_are_not_character_literals() {
    let src = "def f' := 'a'\nset_option maxHeartbeats 9\ndef g := 1\n";
    assert_eq!(in_force(src, MH, 2), set(9, 2));
}
