//! Running operators on a chosen number of threads.

use std::sync::{Arc, Mutex};

use crate::Error;

/// The most threads [`with_threads`] accepts.
pub const MAX_THREADS: usize = 256;

/// Runs `f` inside a rayon pool of `threads` threads, so that the operators `f` executes split their work across at
/// most that many threads (they still run small outputs on one). Each pool is built on first use and kept for the
/// life of the process, so a loop that asks for the same count again pays no start-up. Without it, operators use
/// rayon's current pool (the global one: one thread per core, or `RAYON_NUM_THREADS`); to stay on the calling
/// thread, use [`ExecOptions::sequential`](crate::ExecOptions::sequential) instead.
///
/// # Errors
///
/// [`Error::InvalidThreadCount`] for 0 or more than [`MAX_THREADS`]; [`Error::Internal`] when the operating system
/// refuses to start the threads.
///
/// # Examples
///
/// ```
/// use strider::{DataType, Identity, TensorDesc};
/// let t = TensorDesc::new(DataType::Float32, &[1 << 20])?;
/// let op = Identity::new(&t, &t)?;
/// let (x, mut y) = (vec![0u8; 4 << 20], vec![1u8; 4 << 20]);
/// strider::with_threads(2, || op.execute(&x, &mut y))??;
/// assert!(y.iter().all(|&b| b == 0));
/// # Ok::<(), strider::Error>(())
/// ```
pub fn with_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> Result<R, Error> {
    if threads == 0 || threads > MAX_THREADS {
        return Err(Error::InvalidThreadCount { threads, max: MAX_THREADS });
    }
    Ok(pool(threads)?.install(f))
}

/// The kept pool of `threads` threads.
fn pool(threads: usize) -> Result<Arc<rayon::ThreadPool>, Error> {
    static POOLS: Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(Vec::new());
    // A panic while the lock was held cannot leave the list inconsistent (a push is the only change).
    let mut pools = POOLS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, pool)) = pools.iter().find(|(n, _)| *n == threads) {
        return Ok(Arc::clone(pool));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("strider-{i}"))
        .build()
        .map_err(|e| Error::Internal { detail: format!("could not start a pool of {threads} threads: {e}") })?;
    let pool = Arc::new(pool);
    pools.push((threads, Arc::clone(&pool)));
    Ok(pool)
}
