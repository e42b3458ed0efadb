//! The parsers of the `strider` command, as a library so that they can be fuzzed and tested on their own: `.npy`
//! files as strider tensors, and NumPy-style slice expressions as DML_SLICE1 windows. The command itself is
//! `src/main.rs`.

pub mod npy;
pub mod window;
