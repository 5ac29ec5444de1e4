//! MD5 (RFC 1321), only as DynamoDB uses it to place partition keys (`KeyValue::scan_hash`):
//! never for security. Written here rather than taken from a crate because it runs on every key
//! lookup: one call, the parts fed from the stack, no buffering state kept between calls.

const SHIFTS: [u32; 64] = [
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15,
    21,
];

/// floor(|sin(i + 1)| × 2^32), as the RFC tabulates it.
const SINES: [u32; 64] = [
    0xd76a_a478,
    0xe8c7_b756,
    0x2420_70db,
    0xc1bd_ceee,
    0xf57c_0faf,
    0x4787_c62a,
    0xa830_4613,
    0xfd46_9501,
    0x6980_98d8,
    0x8b44_f7af,
    0xffff_5bb1,
    0x895c_d7be,
    0x6b90_1122,
    0xfd98_7193,
    0xa679_438e,
    0x49b4_0821,
    0xf61e_2562,
    0xc040_b340,
    0x265e_5a51,
    0xe9b6_c7aa,
    0xd62f_105d,
    0x0244_1453,
    0xd8a1_e681,
    0xe7d3_fbc8,
    0x21e1_cde6,
    0xc337_07d6,
    0xf4d5_0d87,
    0x455a_14ed,
    0xa9e3_e905,
    0xfcef_a3f8,
    0x676f_02d9,
    0x8d2a_4c8a,
    0xfffa_3942,
    0x8771_f681,
    0x6d9d_6122,
    0xfde5_380c,
    0xa4be_ea44,
    0x4bde_cfa9,
    0xf6bb_4b60,
    0xbebf_bc70,
    0x289b_7ec6,
    0xeaa1_27fa,
    0xd4ef_3085,
    0x0488_1d05,
    0xd9d4_d039,
    0xe6db_99e5,
    0x1fa2_7cf8,
    0xc4ac_5665,
    0xf429_2244,
    0x432a_ff97,
    0xab94_23a7,
    0xfc93_a039,
    0x655b_59c3,
    0x8f0c_cc92,
    0xffef_f47d,
    0x8584_5dd1,
    0x6fa8_7e4f,
    0xfe2c_e6e0,
    0xa301_4314,
    0x4e08_11a1,
    0xf753_7e82,
    0xbd3a_f235,
    0x2ad7_d2bb,
    0xeb86_d391,
];

/// The message word each of the 64 steps reads.
const WORD_OF_STEP: [usize; 64] = {
    let mut order = [0; 64];
    let mut i = 0;
    while i < 64 {
        order[i] = match i / 16 {
            0 => i,
            1 => (5 * i + 1) % 16,
            2 => (3 * i + 5) % 16,
            _ => (7 * i) % 16,
        };
        i += 1;
    }
    order
};

/// One step of round `R` (its mixing function chosen at compile time, so each round's loop
/// unrolls without a branch). `a` to `d` are the RFC's names. Always inlined, so that each
/// round's sixteen steps unroll with their function fixed.
#[allow(clippy::inline_always, clippy::many_single_char_names)]
#[inline(always)]
fn step<const R: usize>(a: u32, b: u32, c: u32, d: u32, word: u32, i: usize) -> u32 {
    let f = match R {
        0 => (b & c) | (!b & d),
        1 => (d & b) | (!d & c),
        2 => b ^ c ^ d,
        _ => c ^ (b | !d),
    };
    b.wrapping_add(a.wrapping_add(f).wrapping_add(SINES[i]).wrapping_add(word).rotate_left(SHIFTS[i]))
}

#[allow(clippy::inline_always, clippy::many_single_char_names)]
#[inline(always)]
fn round<const R: usize>(state: [u32; 4], words: &[u32; 16]) -> [u32; 4] {
    let [mut a, mut b, mut c, mut d] = state;
    for i in R * 16..R * 16 + 16 {
        (a, b, c, d) = (d, step::<R>(a, b, c, d, words[WORD_OF_STEP[i]], i), b, c);
    }
    [a, b, c, d]
}

fn compress(state: &mut [u32; 4], block: &[u8; 64]) {
    let mut words = [0u32; 16];
    for (word, bytes) in words.iter_mut().zip(block.chunks_exact(4)) {
        *word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    }
    let mixed = round::<3>(round::<2>(round::<1>(round::<0>(*state, &words), &words), &words), &words);
    for (s, v) in state.iter_mut().zip(mixed) {
        *s = s.wrapping_add(v);
    }
}

/// The MD5 digest of the parts, one after the other.
pub fn digest(parts: &[&[u8]]) -> [u8; 16] {
    let mut state = [0x6745_2301u32, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    let mut block = [0u8; 64];
    let mut filled = 0;
    let mut length: u64 = 0;
    for part in parts {
        length += part.len() as u64;
        let mut rest = *part;
        while !rest.is_empty() {
            let taken = rest.len().min(64 - filled);
            block[filled..filled + taken].copy_from_slice(&rest[..taken]);
            filled += taken;
            rest = &rest[taken..];
            if filled == 64 {
                compress(&mut state, &block);
                filled = 0;
            }
        }
    }
    block[filled] = 0x80;
    block[filled + 1..].fill(0);
    if filled >= 56 {
        compress(&mut state, &block);
        block.fill(0);
    }
    block[56..].copy_from_slice(&(length * 8).to_le_bytes());
    compress(&mut state, &block);
    let mut out = [0u8; 16];
    for (bytes, word) in out.chunks_exact_mut(4).zip(state) {
        bytes.copy_from_slice(&word.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(parts: &[&[u8]]) -> String {
        use std::fmt::Write;
        digest(parts).iter().fold(String::new(), |mut text, b| {
            let _ = write!(text, "{b:02x}");
            text
        })
    }

    #[test]
    fn gives_the_rfc_1321_test_suite_digests() {
        assert_eq!(hex(&[b""]), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(&[b"a"]), "0cc175b9c0f1b6a831c399e269772661");
        assert_eq!(hex(&[b"abc"]), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(hex(&[b"message digest"]), "f96b697d7cb7938d525a2f31aaf161d0");
        assert_eq!(hex(&[b"abcdefghijklmnopqrstuvwxyz"]), "c3fcd3d76192e4007dfb496cca67e13b");
        let digits = b"12345678901234567890123456789012345678901234567890123456789012345678901234567890";
        assert_eq!(hex(&[digits]), "57edf4a22be3c955ac49da2e2107b67a");
    }

    #[test]
    fn parts_hash_as_their_concatenation_at_every_block_edge() {
        let text: Vec<u8> = (0..200u8).collect();
        for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 200] {
            let whole = digest(&[&text[..length]]);
            for cut in [0, length / 3, length / 2, length] {
                assert_eq!(digest(&[&text[..cut], &text[cut..length]]), whole, "{length} cut at {cut}");
            }
        }
    }
}
