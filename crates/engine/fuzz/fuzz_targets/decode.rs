//! Any bytes under any Content-Encoding, as `dynalab serve` decodes request bodies: an answer or
//! DynamoDB's error, never a panic, a hang, or a body past the limit (zip bombs included).
//! Seed it with a few real streams: `mkdir -p corpus/decode && printf '\0' > corpus/decode/plain`.
#![no_main]

use dynalab_server::encoding::decode;
use libfuzzer_sys::fuzz_target;

const CODINGS: [&str; 7] = ["gzip", "deflate", "gzip, deflate", "identity", "x-gzip", "br", "deflate, gzip"];
/// Small, so a bomb reaches it quickly.
const LIMIT: usize = 64 * 1024;

fuzz_target!(|data: &[u8]| {
    let Some((selector, body)) = data.split_first() else { return };
    let coding = CODINGS[usize::from(*selector) % CODINGS.len()];
    if let Ok(decoded) = decode(Some(coding), body.to_vec().into(), LIMIT) {
        assert!(decoded.len() <= LIMIT, "{coding}: {} bytes past the limit", decoded.len());
    }
});
