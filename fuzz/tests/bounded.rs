//! Each fuzz target on its corpus, then on mutations of it (bytes cut, repeated, flipped, spliced
//! from another seed) for `FUZZ_SECONDS` seconds (5 by default) — deterministic from a fixed seed,
//! so a failure repeats. A panic anywhere fails the test and prints the input that caused it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The target's seeds: its corpus folder, and for `import` every design file the repository has.
fn seeds(target: &str) -> Vec<Vec<u8>> {
    let mut folders = vec![root().join("corpus").join(target)];
    if target == "import" {
        for folder in ["../tests/designs", "../tests/imports", "../examples"] {
            folders.push(root().join(folder));
        }
    }
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        let mut files: Vec<PathBuf> =
            entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect();
        files.sort();
        seeds.extend(files.iter().filter_map(|f| std::fs::read(f).ok()).filter(|bytes| bytes.len() <= 256 * 1024));
    }
    if seeds.is_empty() {
        seeds.push(b"{}".to_vec());
    }
    seeds
}

struct Mutator(u64);

impl Mutator {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }

    fn mutate(&mut self, seed: &[u8], other: &[u8]) -> Vec<u8> {
        const SPECIAL: &[u8] = b"{}[]\"'<>#|:,;=()%*\\ \n\t0123456789-.eE";
        let mut data = seed.to_vec();
        for _ in 0..1 + self.below(8) {
            let at = self.below(data.len() + 1);
            match self.below(5) {
                0 if !data.is_empty() => {
                    let end = (at + self.below(32)).min(data.len());
                    data.drain(at.min(end)..end);
                }
                1 => data.insert(at, SPECIAL[self.below(SPECIAL.len())]),
                2 if at < data.len() => data[at] ^= 1 << self.below(8),
                3 => {
                    let end = (at + self.below(64)).min(data.len());
                    let copied = data[at.min(end)..end].to_vec();
                    data.splice(at..at, copied);
                }
                _ => {
                    let start = self.below(other.len() + 1);
                    let end = (start + self.below(64)).min(other.len());
                    data.splice(at..at, other[start..end].iter().copied());
                }
            }
        }
        data
    }
}

#[test]
fn every_target_survives_its_corpus_and_mutations_of_it() {
    let seconds: u64 = std::env::var("FUZZ_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    for (name, target) in dynalab_fuzz::TARGETS {
        let seeds = seeds(name);
        for seed in &seeds {
            target(seed);
        }
        let mut mutator = Mutator(0x9e37_79b9_7f4a_7c15);
        let deadline = Instant::now() + Duration::from_secs(seconds);
        let mut runs = 0u64;
        while Instant::now() < deadline {
            let seed = &seeds[mutator.below(seeds.len())];
            let other = &seeds[mutator.below(seeds.len())];
            let input = mutator.mutate(seed, other);
            let outcome = std::panic::catch_unwind(|| target(&input));
            assert!(outcome.is_ok(), "{name} panicked on {:?}", String::from_utf8_lossy(&input));
            runs += 1;
        }
        eprintln!("{name}: {} seeds, {runs} mutations in {seconds} s", seeds.len());
    }
}
