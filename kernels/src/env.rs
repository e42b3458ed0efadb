//! The environment variables the kernels read (`STRIDER_CACHE`, `STRIDER_MAX_ISA`, `STRIDER_LINGER`,
//! `STRIDER_TIMED_STORES`, and `RAYON_NUM_THREADS` through rayon's global pool): each is read once, and a value that is not accepted is reported in one line on standard
//! error — naming the variable, what it accepts and what is used instead — never a panic, never a silent change of
//! behaviour.

use std::sync::OnceLock;

use crate::params::MAX_THREADS;

/// Prints `strider: warning: {message}` on standard error.
#[cold]
#[inline(never)]
pub(crate) fn warn(message: &str) {
    eprintln!("strider: warning: {message}");
}

/// The value of `name`: `None` when it is unset, and (with a warning) when it is not UTF-8.
pub(crate) fn var(name: &str) -> Option<String> {
    match std::env::var(name) {
        Ok(value) => Some(value),
        Err(std::env::VarError::NotPresent) => None,
        Err(std::env::VarError::NotUnicode(raw)) => {
            warn(&format!("{name}={raw:?} ignored: it is not UTF-8"));
            None
        }
    }
}

/// A switch read once from `name`: `0` is off, `1` on; unset (or, with a warning, any other value) is `default`.
fn switch(name: &str, default: bool, cell: &OnceLock<bool>) -> bool {
    *cell.get_or_init(|| match var(name).as_deref() {
        None => default,
        Some("0") => false,
        Some("1") => true,
        Some(other) => {
            let used = if default { "on" } else { "off" };
            warn(&format!("{name}={other:?} ignored: it accepts 0 (off) or 1 (on); {used} is used"));
            default
        }
    })
}

/// Whether pool threads that ran chunks of a split keep polling for the next call's work (`STRIDER_LINGER`, on by
/// default; see [`ExecOptions::linger`](crate::ExecOptions::linger)).
pub(crate) fn linger() -> bool {
    static CELL: OnceLock<bool> = OnceLock::new();
    switch("STRIDER_LINGER", true, &CELL)
}

/// Whether programs near the streaming threshold time their own calls to choose their store kind
/// (`STRIDER_TIMED_STORES`, on by default; see [`ExecOptions::timed_stores`](crate::ExecOptions::timed_stores)).
pub(crate) fn timed_stores() -> bool {
    static CELL: OnceLock<bool> = OnceLock::new();
    switch("STRIDER_TIMED_STORES", true, &CELL)
}

/// The threads a split may use when no pool is given: those of the rayon pool the caller runs in, or of rayon's
/// global pool (at most [`MAX_THREADS`]); 1 when the global pool could not start.
///
/// The global pool is started here, once, rather than lazily inside rayon, where a failure to start its threads
/// (an absurd `RAYON_NUM_THREADS`, a process out of threads) is a panic. `RAYON_NUM_THREADS` values rayon does not
/// take as a count (it then uses one thread per CPU) and counts above [`MAX_THREADS`] (splits use at most that
/// many) are reported once.
pub(crate) fn pool_threads() -> usize {
    if rayon::current_thread_index().is_some() {
        return rayon::current_num_threads().clamp(1, MAX_THREADS);
    }
    static GLOBAL: OnceLock<usize> = OnceLock::new();
    *GLOBAL.get_or_init(start_global_pool)
}

#[cold]
#[inline(never)]
fn start_global_pool() -> usize {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from).min(MAX_THREADS);
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(text) = var("RAYON_NUM_THREADS") {
        match text.trim().parse::<usize>() {
            // PERF: rayon would start them all (100000 threads took a minute here, then failed in the standard
            // library's thread set-up, which no caller can catch).
            Ok(n) if n > MAX_THREADS => {
                warn(&format!(
                    "RAYON_NUM_THREADS={text:?} is above {MAX_THREADS}, the most threads Strider splits an operator \
                     across; rayon's global pool starts with {cpus} (one per CPU)"
                ));
                builder = builder.num_threads(cpus);
            }
            Ok(_) => {}
            Err(_) => warn(&format!(
                "RAYON_NUM_THREADS={text:?} is not a thread count (0 for one per CPU, or 1 to {MAX_THREADS}); rayon's \
                 global pool starts with one thread per CPU"
            )),
        }
    }
    // Builds the global pool with rayon's defaults (what its first use would build); an error means that it exists
    // already (the application built it) or that its threads could not start.
    match builder.build_global() {
        Ok(()) => rayon::current_num_threads().clamp(1, MAX_THREADS),
        Err(e) if e.to_string().contains("already") => rayon::current_num_threads().clamp(1, MAX_THREADS),
        Err(e) => {
            warn(&format!("rayon's global thread pool could not start ({e}); operators run on the calling thread"));
            1
        }
    }
}
