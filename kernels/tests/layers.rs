//! The kernels crate's layers hold: each module uses only the modules listed before it in the table of
//! `src/lib.rs` (read from the table itself, so the documentation and this check cannot drift apart), and every
//! module of the crate has a row there. Test code (items under `#[cfg(feature = "selftest")]` and `tests.rs` files)
//! may use anything. And every unit test is run: in a `#[selftests]` module, listed by `selftests()`.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

/// The modules of the layer table in order: the back-quoted names of the first cell of each row.
fn table_order(lib: &str) -> Vec<String> {
    let mut order = Vec::new();
    for line in lib.lines() {
        let Some(row) = line.strip_prefix("//! | ") else { continue };
        let first = row.split(" | ").next().unwrap_or("");
        for name in first.split('`').skip(1).step_by(2) {
            order.push(name.trim_end_matches('/').to_string());
        }
    }
    order
}

/// The `mod x;` declarations of `lib.rs`.
fn declared_modules(lib: &str) -> BTreeSet<String> {
    lib.lines()
        .filter_map(|l| l.trim().strip_prefix("mod ").and_then(|r| r.strip_suffix(';')))
        .map(str::to_string)
        .collect()
}

/// Whether a line is the attribute that compiles an item only with the crate's unit tests.
fn is_test_cfg(line: &str) -> bool {
    let line = line.trim();
    line.starts_with("#[cfg(feature = \"selftest\")") || line.starts_with("#[cfg(all(feature = \"selftest\"")
}

/// The source without comments and without the items under `#[cfg(feature = "selftest")]` (the attribute's next
/// item: one line ending in `;`, or everything up to its balanced closing brace).
fn non_test_code(src: &str) -> String {
    let mut out = String::new();
    let mut lines = src.lines().map(|l| match l.find("//") {
        Some(i) => &l[..i],
        None => l,
    });
    while let Some(line) = lines.next() {
        if !is_test_cfg(line) {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let mut depth = 0i64;
        let mut opened = false;
        for item in lines.by_ref() {
            if item.trim_start().starts_with("#[") && !opened {
                continue; // further attributes of the same item
            }
            depth += item.matches('{').count() as i64 - item.matches('}').count() as i64;
            opened |= item.contains('{');
            if (opened && depth <= 0) || (!opened && item.trim_end().ends_with(';')) {
                break;
            }
        }
    }
    out
}

/// The top-level modules a piece of code names through `crate::`, including the groups of `use crate::{a, b::c}`.
fn crate_uses(code: &str) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level names of the group: split at commas outside nested braces.
            let mut depth = 0;
            let mut start = 0;
            let bytes = group.as_bytes();
            for (j, &c) in bytes.iter().enumerate() {
                match c {
                    b'{' => depth += 1,
                    b'}' if depth == 0 => {
                        used.insert(ident(&group[start..j]));
                        break;
                    }
                    b'}' => depth -= 1,
                    b',' if depth == 0 => {
                        used.insert(ident(&group[start..j]));
                        start = j + 1;
                    }
                    _ => {}
                }
            }
        } else {
            used.insert(ident(rest));
        }
    }
    used.remove("");
    used
}

fn ident(s: &str) -> String {
    s.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// Every `.rs` file under `dir`, with the top-level module it belongs to.
fn sources(src: &Path) -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("read src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(src).expect("under src");
                let top = rel.components().next().expect("component").as_os_str().to_string_lossy();
                files.push((top.trim_end_matches(".rs").to_string(), path));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn modules_use_only_the_layers_listed_before_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    let order = table_order(&lib);
    let rank: HashMap<&str, usize> = order.iter().enumerate().map(|(i, m)| (m.as_str(), i)).collect();
    assert_eq!(rank.len(), order.len(), "a module is listed twice in the layer table: {order:?}");
    let declared = declared_modules(&lib);
    let unlisted: Vec<_> = declared.iter().filter(|m| !rank.contains_key(m.as_str())).collect();
    assert!(unlisted.is_empty(), "modules without a row in lib.rs's layer table: {unlisted:?}");
    assert!(order.len() >= 15, "the layer table was not found in lib.rs: {order:?}");

    let mut violations = Vec::new();
    for (module, path) in sources(&src) {
        if module == "lib" || path.file_name().is_some_and(|f| f == "tests.rs") {
            continue;
        }
        let Some(&own) = rank.get(module.as_str()) else { continue };
        let code = non_test_code(&fs::read_to_string(&path).expect("source"));
        for used in crate_uses(&code) {
            if rank.get(used.as_str()).is_some_and(|&r| r > own) {
                violations.push(format!("{} uses `{used}`, listed after `{module}`", path.display()));
            }
        }
    }
    assert!(violations.is_empty(), "layering broken:\n{}", violations.join("\n"));
}

#[test]
fn the_checker_sees_what_it_must() {
    let code =
        "use crate::arch::{A, B};\nuse crate::{plan::Plan, tables::{X, Y}, exec};\nfn f() { crate::walk::g() }\n";
    let used: Vec<_> = crate_uses(code).into_iter().collect();
    assert_eq!(used, ["arch", "exec", "plan", "tables", "walk"]);
    let stripped = non_test_code(
        "use crate::a;\n// use crate::b;\n#[cfg(feature = \"selftest\")]\nuse crate::c;\n#[cfg(all(feature = \"selftest\", x))]\n\
         #[allow(x)]\nmod t {\n  use crate::d;\n  fn g() {}\n}\nuse crate::e;\n",
    );
    assert_eq!(crate_uses(&stripped).into_iter().collect::<Vec<_>>(), ["a", "e"]);
    assert_eq!(table_order("//! | `a`, `b/` | x |\n//! |---|---|\n//! | `c` | y |\n"), ["a", "b", "c"]);
}

/// Every `#[test]` of the crate's sources runs: the library has no `--test` build, so a test outside a
/// `#[selftests]` module, or a module missing from `selftests()`, would never be compiled or run.
#[test]
fn every_unit_test_is_run() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut written = 0;
    for (_, path) in sources(&src) {
        let code = fs::read_to_string(&path).expect("source");
        let tests = code.lines().filter(|l| l.trim() == "#[test]").count();
        written += tests;
        assert!(!code.contains("#[cfg(test)]"), "{}: `#[cfg(test)]` code is never built here", path.display());
        assert!(
            tests == 0 || code.contains("#[strider_kernels_macros::selftests]"),
            "{}: its tests are in no `#[selftests]` module",
            path.display()
        );
    }
    let listed = strider_kernels::selftests().len();
    // The transposes' tests are x86-only; elsewhere fewer are listed than written.
    if cfg!(target_arch = "x86_64") {
        assert_eq!(listed, written, "`#[test]`s in src/ against those `selftests()` lists");
    } else {
        assert!(listed <= written && listed > 0, "{listed} listed, {written} written");
    }
}
