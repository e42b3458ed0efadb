//! Running operators on a chosen number of threads.

use strider_kernels::{MAX_THREADS, RunError, thread_pool};

use crate::Error;

/// Runs `f` inside a rayon pool of `threads` threads, so that the operators `f` executes split their work across at
/// most that many threads (they still run small outputs on one). Each pool is built on first use and kept for the
/// life of the process, so a loop that asks for the same count again pays no start-up. Without it, operators use
/// rayon's current pool (the global one: one thread per core, or `RAYON_NUM_THREADS`); to stay on the calling
/// thread, use [`ExecOptions::sequential`](crate::ExecOptions::sequential) instead. To choose the threads of one
/// execution, [`ExecOptions::with_threads`](crate::ExecOptions::with_threads) is cheaper: it enters the pool only
/// when the output is large enough to split, while `with_threads` always hands `f` to a pool thread.
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
    let pool = thread_pool(threads).map_err(|e| match e {
        RunError::InvalidThreadCount(threads) => Error::InvalidThreadCount { threads, max: MAX_THREADS },
        e => Error::Internal { detail: e.to_string() },
    })?;
    Ok(pool.install(f))
}
