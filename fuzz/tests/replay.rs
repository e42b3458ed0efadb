//! Replays every committed input of every fuzz target (`fuzz/corpus/<target>/` and the reproducers in
//! `fuzz/regressions/<target>/`) through the same checks the fuzzers run, on stable Rust, as part of `cargo test --workspace`.

use std::path::Path;

#[test]
fn replay_corpus_and_regressions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut replayed = 0;
    for (name, check) in strider_fuzz::TARGETS {
        for dir in ["corpus", "regressions"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir).join(name)) else { continue };
            let mut files: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
            files.sort();
            for file in files {
                let data = std::fs::read(&file).unwrap();
                let outcome = std::panic::catch_unwind(|| check(&data));
                assert!(
                    outcome.is_ok(),
                    "{name}: {} fails (replay it with `cargo fuzz run {name} {}`)",
                    file.display(),
                    file.display()
                );
                replayed += 1;
            }
        }
        // The empty input and a few fixed ones, even without a corpus.
        for data in [&[][..], &[0u8; 64][..], &[0xFFu8; 64][..], &(0..=255u8).collect::<Vec<_>>()[..]] {
            check(data);
        }
    }
    eprintln!("replayed {replayed} committed fuzz inputs");
}
