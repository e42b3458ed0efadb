//! Runs the kernels crate's unit tests: the `#[selftests]` modules compiled into the library with the `selftest`
//! feature (see `strider_kernels::selftests`), so that `cargo test` builds the crate once, not once more with
//! `--test`.
//!
//! Takes libtest's usual arguments where they make sense: name filters (a test runs when its path contains one;
//! `--exact`: equals one), `--skip NAME`, `--list`, `--nocapture` (panic messages as they happen; otherwise those
//! of a failed test after it, as libtest shows its output); others (`--test-threads N`, …) are accepted and change
//! nothing: the tests run one after another on this thread.

use std::panic::{self, AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

/// The panic messages of the running test, from every thread (tests of the thread pools panic on purpose).
static CAPTURED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Arguments of libtest that take a value (skipped with it when not written as `--flag=value`).
const WITH_VALUE: [&str; 6] = ["--test-threads", "--format", "--color", "--logfile", "-Z", "--shuffle-seed"];

fn main() -> ExitCode {
    let mut filters = Vec::new();
    let mut skips = Vec::new();
    let (mut exact, mut list, mut ignored, mut nocapture) = (false, false, false, false);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--exact" => exact = true,
            "--list" => list = true,
            "--ignored" => ignored = true,
            "--nocapture" => nocapture = true,
            "--skip" => skips.extend(args.next()),
            a if WITH_VALUE.contains(&a) => {
                args.next();
            }
            a if a.starts_with('-') => {}
            _ => filters.push(arg),
        }
    }
    let all = strider_kernels::selftests();
    let total = all.len();
    let tests: Vec<(String, fn())> = all
        .into_iter()
        .map(|(path, f)| (path.strip_prefix("strider_kernels::").unwrap_or(path).to_string(), f))
        .filter(|(name, _)| {
            let matches = |f: &String| if exact { name == f } else { name.contains(f.as_str()) };
            (filters.is_empty() || filters.iter().any(matches)) && !skips.iter().any(|s| name.contains(s.as_str()))
        })
        // None of these tests is ignored: `--ignored` runs none of them, as libtest would.
        .filter(|_| !ignored)
        .collect();
    if list {
        for (name, _) in &tests {
            println!("{name}: test");
        }
        return ExitCode::SUCCESS;
    }
    if !nocapture {
        panic::set_hook(Box::new(|info| {
            let thread = std::thread::current();
            let message = format!("thread '{}' {info}", thread.name().unwrap_or("<unnamed>"));
            CAPTURED.lock().unwrap_or_else(|p| p.into_inner()).push(message);
        }));
    }
    println!("\nrunning {} tests", tests.len());
    let start = Instant::now();
    let mut failed = Vec::new();
    for (name, test) in &tests {
        CAPTURED.lock().unwrap_or_else(|p| p.into_inner()).clear();
        let ok = catch_unwind(AssertUnwindSafe(test)).is_ok();
        println!("test {name} ... {}", if ok { "ok" } else { "FAILED" });
        if !ok {
            for message in CAPTURED.lock().unwrap_or_else(|p| p.into_inner()).iter() {
                println!("{message}");
            }
            failed.push(name.as_str());
        }
    }
    if !failed.is_empty() {
        println!("\nfailures:");
        for name in &failed {
            println!("    {name}");
        }
    }
    println!(
        "\ntest result: {}. {} passed; {} failed; 0 ignored; 0 measured; {} filtered out; finished in {:.2}s\n",
        if failed.is_empty() { "ok" } else { "FAILED" },
        tests.len() - failed.len(),
        failed.len(),
        total - tests.len(),
        start.elapsed().as_secs_f64()
    );
    if failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(101) }
}
