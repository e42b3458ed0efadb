//! How a split program's chunks are shared between the calling thread and pool threads: chunks are claimed from a
//! counter, so the caller never waits for a helper that has not started (it takes the chunk itself); it waits only
//! for chunks another thread is running, spinning first; and a helper that ran a chunk keeps polling the pool for a
//! while afterwards, so that the next call finds it awake instead of paying its wake-up.
//!
//! PERF: before, the other chunks went to rayon (a join inside a pool, a scope's tasks from outside it, where the
//! caller then slept on a lock). A worker that had gone to sleep between calls (rayon parks an idle worker after a
//! few dozen rounds of `sched_yield`) woke in tens of µs on the project's VMs, as long as the half it was woken for,
//! so the caller often ran both halves, or slept until the late worker finished. Per-call times on the Zen 4 VM,
//! two threads, 1400 calls each in interleaved blocks, p50 / p90 µs, rayon → this: the u8 1080p center crop called
//! from outside the pool (C, Python) 79 / 99 → 54 / 57; with 30 µs of other work between calls 78 / 125 → 54 / 60
//! (inside the pool 71 / 103 → 55 / 59), with 150 µs 148 / 179 → 69 / 117; f32 even channels from outside 172 / 235
//! → 146 / 176, with 30 µs between calls 204 / 321 → 151 / 194; back to back inside the pool (`strider bench`) the
//! same (153, 55). OpenMP runtimes keep idle threads spinning for the same reason.

use std::any::Any;
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::Thread;
use std::time::{Duration, Instant};

use crate::params;

/// Runs `run(0..chunks)` on the calling thread and up to `chunks - 1` helpers of `pool` (rayon's current pool when
/// `None`), each chunk exactly once; returns when every chunk has finished. A helper that ran a chunk lingers (see
/// [`linger`]) when `lingers` says so. A panic of a chunk is resumed on the calling thread once no chunk is running
/// any more.
pub(crate) fn split<F: Fn(usize) + Sync>(pool: Option<&rayon::ThreadPool>, chunks: usize, lingers: bool, run: &F) {
    let team = Arc::new(Team {
        next: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
        chunks,
        caller: std::thread::current(),
        call: call::<F>,
        data: (run as *const F).cast(),
        panic: Mutex::new(None),
    });
    for _ in 1..chunks {
        let helper = Arc::clone(&team);
        let help = move || {
            let started = Instant::now();
            if helper.work() > 0 && lingers {
                drop(helper);
                linger(started.elapsed());
            }
        };
        match pool {
            Some(pool) => pool.spawn(help),
            None => rayon::spawn(help),
        }
    }
    let started = Instant::now();
    team.work();
    team.wait(started.elapsed());
    let panic = team.panic.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
    if let Some(payload) = panic {
        resume_unwind(payload);
    }
}

/// The state the calling thread shares with its helpers; helpers that start after every chunk was claimed only
/// read the counter (the `Arc` keeps it alive for them).
struct Team {
    /// The next chunk to claim (may run past `chunks`: a claim beyond it is no claim).
    next: AtomicUsize,
    /// Chunks finished.
    done: AtomicUsize,
    chunks: usize,
    /// Unparked by whoever finishes the last chunk.
    caller: Thread,
    /// `call(data, c)` runs chunk `c`: the caller's closure with its type (and lifetime) erased.
    call: unsafe fn(*const (), usize),
    data: *const (),
    /// The first panic of a chunk.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

// SAFETY: `data` is only dereferenced (through `call`) by a thread that claimed a chunk, while the caller is still
// inside `split` (it returns only after every claimed chunk has finished), and it points at an `F: Sync`; every
// other field is Send and Sync.
unsafe impl Send for Team {}
// SAFETY: as above.
unsafe impl Sync for Team {}

/// Runs chunk `c` of the closure behind `data`.
///
/// # Safety
///
/// `data` points at a live `F`.
unsafe fn call<F: Fn(usize)>(data: *const (), c: usize) {
    // SAFETY: the caller guarantees `data` is a live `F`.
    let f = unsafe { &*data.cast::<F>() };
    f(c);
}

impl Team {
    /// Claims and runs chunks until none is left; returns how many this thread ran.
    fn work(&self) -> usize {
        let mut ran = 0;
        loop {
            let c = self.next.fetch_add(1, Ordering::Relaxed);
            if c >= self.chunks {
                return ran;
            }
            // SAFETY: chunk `c` < chunks is claimed by this thread alone, and `split` (whose closure `data` points
            // at) does not return before `done` counts it, below.
            let result = catch_unwind(AssertUnwindSafe(|| unsafe { (self.call)(self.data, c) }));
            if let Err(payload) = result {
                self.panic.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).get_or_insert(payload);
            }
            ran += 1;
            if self.done.fetch_add(1, Ordering::AcqRel) + 1 == self.chunks {
                self.caller.unpark();
            }
        }
    }

    /// Waits for the chunks other threads claimed: spins for about as long as the caller's own share took (a
    /// helper's chunk is no longer, and it started before the caller ran out of chunks), then parks.
    fn wait(&self, own: Duration) {
        let spin = own.clamp(params::JOIN_SPIN_MIN, params::JOIN_SPIN_MAX);
        let started = Instant::now();
        while self.done.load(Ordering::Acquire) < self.chunks {
            if started.elapsed() < spin {
                pause();
            } else {
                std::thread::park();
            }
        }
    }
}

thread_local! {
    /// While this thread lingers: the work time of a helper it ran from inside the linger (which does not linger
    /// itself, keeping the nesting one deep, but renews the outer linger).
    static LINGER: Cell<Option<Option<Duration>>> = const { Cell::new(None) };
}

/// Keeps a helper that just ran chunks for `worked` polling its pool for new work for a while (proportional to
/// `worked`, bounded); a job found that is not another split's helper ends it.
fn linger(worked: Duration) {
    #[cfg(feature = "selftest")]
    tests::lingered();
    if let Some(renewed) = LINGER.get() {
        LINGER.set(Some(renewed.max(Some(worked))));
        return;
    }
    let (num, den) = params::LINGER_PER_WORK;
    let bound = |worked: Duration| (worked * num / den).clamp(params::LINGER_MIN, params::LINGER_MAX);
    let (mut started, mut limit) = (Instant::now(), bound(worked));
    LINGER.set(Some(None));
    while started.elapsed() < limit {
        // Lets any other runnable thread have this CPU: the linger only uses time nobody else wants.
        std::thread::yield_now();
        match rayon::yield_now() {
            Some(rayon::Yield::Idle) => {}
            _ => match LINGER.replace(Some(None)) {
                Some(Some(worked)) => (started, limit) = (Instant::now(), bound(worked)),
                _ => break,
            },
        }
    }
    LINGER.set(None);
}

/// A short busy wait (a few hundred cycles) between two polls of the finished chunks.
fn pause() {
    for _ in 0..params::SPIN_PAUSES {
        core::hint::spin_loop();
    }
}

#[cfg(feature = "selftest")]
#[strider_kernels_macros::selftests]
mod tests {
    use super::*;

    /// Runs `split` and returns how many times each chunk ran.
    fn counts(pool: Option<&rayon::ThreadPool>, chunks: usize) -> Vec<usize> {
        let ran: Vec<AtomicUsize> = (0..chunks).map(|_| AtomicUsize::new(0)).collect();
        split(pool, chunks, true, &|c| {
            ran[c].fetch_add(1, Ordering::Relaxed);
        });
        ran.iter().map(|r| r.load(Ordering::Relaxed)).collect()
    }

    /// The names of the threads of this test's pools that started to linger. (The hook runs in every test of the
    /// workspace's build, which has this module: other threads are not recorded.)
    static LINGERED: Mutex<Vec<String>> = Mutex::new(Vec::new());

    pub(super) fn lingered() {
        let name = std::thread::current().name().unwrap_or("").to_string();
        if name.starts_with("linger-") {
            LINGERED.lock().unwrap_or_else(|p| p.into_inner()).push(name);
        }
    }

    #[test]
    fn helpers_linger_only_when_asked() {
        for lingers in [false, true] {
            let prefix = format!("linger-{lingers}-");
            let named = prefix.clone();
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(2)
                .thread_name(move |i| format!("{named}{i}"))
                .build()
                .unwrap();
            let helped = AtomicUsize::new(0);
            let me = std::thread::current().id();
            // Slow chunks: the pool's threads take some of them (on a busy machine, after a few rounds).
            for round in 0..100 {
                split(Some(&pool), 4, lingers, &|_| {
                    std::thread::sleep(Duration::from_millis(2));
                    if std::thread::current().id() != me {
                        helped.fetch_add(1, Ordering::Relaxed);
                    }
                });
                if round >= 4 && helped.load(Ordering::Relaxed) > 0 {
                    break;
                }
            }
            assert!(helped.load(Ordering::Relaxed) > 0, "the pool's threads ran chunks");
            // A helper starts to linger right after its chunk, possibly after the split returned.
            std::thread::sleep(Duration::from_millis(20));
            drop(pool);
            let lingered = LINGERED.lock().unwrap().iter().filter(|n| n.starts_with(&prefix)).count();
            assert_eq!(lingered > 0, lingers, "{lingered} lingers with lingering {lingers}");
        }
    }

    #[test]
    fn every_chunk_runs_once_from_outside_and_inside_pools() {
        let pools: Vec<rayon::ThreadPool> =
            [1, 2, 4].iter().map(|&n| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap()).collect();
        // Repeated calls run into lingering helpers and into helpers of earlier calls that start late.
        for round in 0..30 {
            for chunks in 1..=9 {
                assert_eq!(counts(None, chunks), vec![1; chunks], "global pool, {chunks} chunks, round {round}");
                for pool in &pools {
                    let n = pool.current_num_threads();
                    assert_eq!(counts(Some(pool), chunks), vec![1; chunks], "outside a pool of {n}, {chunks} chunks");
                    let inside = pool.install(|| counts(Some(pool), chunks));
                    assert_eq!(inside, vec![1; chunks], "inside a pool of {n}, {chunks} chunks");
                    let current = pool.install(|| counts(None, chunks));
                    assert_eq!(current, vec![1; chunks], "current pool of {n}, {chunks} chunks");
                }
            }
        }
    }

    #[test]
    fn the_caller_never_waits_for_a_helper_that_has_not_started() {
        // The pool's only thread is busy until the split returns: the caller must run every chunk itself.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let (started_tx, started_rx) = std::sync::mpsc::channel::<()>();
        pool.spawn(move || {
            started_tx.send(()).unwrap();
            rx.recv().unwrap();
        });
        started_rx.recv().unwrap();
        let me = std::thread::current().id();
        let on_caller = AtomicUsize::new(0);
        split(Some(&pool), 4, true, &|_| {
            if std::thread::current().id() == me {
                on_caller.fetch_add(1, Ordering::Relaxed);
            }
        });
        assert_eq!(on_caller.load(Ordering::Relaxed), 4);
        tx.send(()).unwrap();
        // The helpers queued behind the blocking job start after the split returned and claim nothing.
        assert_eq!(counts(Some(&pool), 3), vec![1; 3]);
    }

    #[test]
    fn splits_nest_inside_parallel_work() {
        use rayon::prelude::*;
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let ok = pool.install(|| (0..64).into_par_iter().all(|i| counts(None, 1 + i % 5) == vec![1; 1 + i % 5]));
        assert!(ok);
    }

    #[test]
    fn a_panicking_chunk_panics_the_caller_after_the_other_chunks_finished() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        for bad in 0..4 {
            let finished = AtomicUsize::new(0);
            let result = catch_unwind(AssertUnwindSafe(|| {
                split(Some(&pool), 4, true, &|c| {
                    std::thread::sleep(Duration::from_millis(2));
                    assert_ne!(c, bad, "chunk {c} fails");
                    finished.fetch_add(1, Ordering::Relaxed);
                });
            }));
            let payload = result.expect_err("the chunk's panic reaches the caller");
            let message = payload.downcast_ref::<String>().map(String::as_str).unwrap_or("");
            assert!(message.contains(&format!("chunk {bad} fails")), "{message}");
            assert_eq!(
                finished.load(Ordering::Relaxed),
                3,
                "every other chunk ran to the end before the caller went on"
            );
        }
    }
}
